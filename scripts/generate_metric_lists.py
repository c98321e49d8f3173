"""Write the ``metric_list:`` block of every benchmark's task YAMLs from its metric specs.

The specs are ``MetricSpec``s in each registered benchmark's declaration
(``Benchmark.metrics``, in its tasks' template, and ``Benchmark.task_metrics`` for a task
with a list of its own): ``Benchmark.metric_lists()`` names the YAML of each. Only the block
is rewritten, from its ``metric_list:`` line to the next top-level line; the rest of the
file (comments, filters, metadata) stays as it is. A test checks that the committed files
are exactly what this script writes.

Run from the repository root::

    python scripts/generate_metric_lists.py          # (re)write the blocks
    python scripts/generate_metric_lists.py --check  # exit 1 if any file differs
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

from sci_tasks.benchmarks import MetricSpec, all_benchmarks

WIDTH = 90  # of a comment line, its "  # " included
# the block: "metric_list:" and the indented lines after it (entries and their comments)
_BLOCK = re.compile(r"^metric_list:\n(?:[ \t]+.*\n)*", re.M)


def render(specs: Sequence[MetricSpec]) -> str:
    """The ``metric_list:`` block of ``specs``, each entry under its wrapped comment."""
    lines = ["metric_list:"]
    for spec in specs:
        if spec.comment:
            lines += textwrap.wrap(
                spec.comment,
                WIDTH,
                initial_indent="  # ",
                subsequent_indent="  # ",
                break_on_hyphens=False,
            )
        lines += [
            f"  - metric: {spec.name}",
            f"    aggregation: {spec.aggregation}",
            f"    higher_is_better: {str(spec.higher_is_better).lower()}",
        ]
    return "\n".join(lines) + "\n"


def rewrite(text: str, specs: Sequence[MetricSpec], where: Path) -> str:
    """``text`` with its one ``metric_list:`` block replaced by the block of ``specs``."""
    blocks = _BLOCK.findall(text)
    if len(blocks) != 1:
        raise ValueError(f"{where}: {len(blocks)} top-level metric_list blocks, want 1")
    return _BLOCK.sub(lambda _: render(specs), text, count=1)


def wanted() -> dict[Path, str]:
    """Each YAML whose metric_list the specs generate -> its whole text as generated."""
    out: dict[Path, str] = {}
    for benchmark in all_benchmarks():
        for path, specs in benchmark.metric_lists().items():
            if specs:  # a benchmark without specs keeps its hand-written list
                out[path] = rewrite(path.read_text(encoding="utf-8"), specs, path)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare, write nothing")
    args = parser.parse_args(argv)
    try:
        texts = wanted()
    except (RuntimeError, ValueError, OSError) as exc:  # a plugin that cannot load, a bad YAML
        print(f"{Path(__file__).name}: {exc}", file=sys.stderr)
        return 2
    differ = [p for p, text in texts.items() if p.read_text(encoding="utf-8") != text]
    if args.check:
        for path in differ:
            print(f"{path}: its metric_list differs from what {Path(__file__).name} writes")
        return 1 if differ else 0
    for path in differ:
        path.write_text(texts[path], encoding="utf-8")
    print(f"{len(texts)} metric_list blocks ({len(differ)} written)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
