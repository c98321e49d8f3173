"""``sci-report RUN_DIR [--out DIR]``: tables and plots from a run's logged samples.

Each registered benchmark's report module (its declaration's ``report``,
``sci_tasks.registry``) writes what it can find under RUN_DIR (lm-eval or sci-score
output written with ``--log_samples``); default output: ``RUN_DIR/report/``. A benchmark
whose samples cannot be read is one line on stderr (exit status 1); the others are written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sci_tasks import registry
from sci_tasks.data.locate import DataError


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="sci-report", description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path, help="folder holding samples_*.jsonl files")
    parser.add_argument("--out", type=Path, default=None, help="output folder (RUN_DIR/report)")
    args = parser.parse_args(argv)
    run_dir = args.run_dir.resolve()
    if not run_dir.is_dir():
        parser.error(f"{run_dir} is not a folder")
    out = (args.out or run_dir / "report").resolve()
    written: list[Path] = []
    failed = False
    for benchmark in registry.all_benchmarks():
        try:
            written += registry.report_writer(benchmark)(run_dir, out)
        except Exception as exc:  # one benchmark's bad samples must not cost the others' report
            failed = True
            detail = str(exc) if isinstance(exc, (DataError, ValueError, OSError)) else repr(exc)
            print(f"sci-report: {benchmark.title}: {detail}", file=sys.stderr)
    for path in written:
        print(path)
    if failed:
        parser.exit(1)
    if not written:
        parser.exit(1, f"no samples of sci-tasks benchmarks under {run_dir}\n")


if __name__ == "__main__":
    main()
