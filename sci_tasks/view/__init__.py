"""``sci-view RUN_OR_SWEEP [--out FILE]``: one self-contained HTML page to browse every sample.

Works on any folder holding lm-eval output written with ``--log_samples``: a ``sci-eval`` run
(``<run>/<model>/results_*.json`` + ``samples_<task>_*.jsonl``), a sweep folder (one job
folder per model x task set), or stock ``lm_eval --output_path`` output. Every folder with a
results file is one *run* (one model). The page has, per task, a summary (headline metrics
with bootstrap ± from ``sci_tasks.stats``, sample counts), then every sample: prompt,
images (downsized, embedded as data URLs), response, the filtered text that was scored, the
target, and each check's verdict (pass / fail / partial / unscored), group, reason and
judge, read from each logged sample's ``record`` by its benchmark's ``checks`` hook (the page
names no benchmark). The same document answered by several runs is shown side by side.

No server and no network: CSS and JS are inline, the data is one JSON block that the
page's script reads with ``JSON.parse`` and puts on the page as text only (``textContent``),
so a response holding ``</script>`` or ``<img onerror=...>`` is shown, never run.

Parts by job: reading the runs and their samples is ``sci_tasks.logged`` (shared with
sci-agree, below both commands); ``page`` makes the summaries, the page data as named
fields and the rendering; this module is the command.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from sci_tasks import stats
from sci_tasks.logged.runs import Run, caveats, find_runs, is_bundled, read_run, run_caveats
from sci_tasks.logged.samples import (
    GIVEN_CHECKS,
    _first,
    checks_of,
    has_judge,
    image_paths,
    page_check,
    prompt_of,
    thumbnail,
    values_of,
    verdict_of,
)
from sci_tasks.view.page import (
    PAGE_SIZE,
    build_page,
    csp_hash,
    headlines,
    page_data,
    script_json,
    summary_rows,
    unpaired_runs,
)

__all__ = [
    "GIVEN_CHECKS", "PAGE_SIZE", "Run", "_first", "build_page", "caveats", "checks_of",
    "csp_hash", "find_runs", "has_judge", "headlines", "image_paths", "is_bundled", "main",
    "page_check", "page_data", "prompt_of", "read_run", "run_caveats", "script_json",
    "summary_rows", "thumbnail", "unpaired_runs", "values_of", "verdict_of", "write_view",
]  # fmt: skip

OUT_NAME = "sci-view.html"


def write_view(root: Path, out: Path | None = None, iters: int = stats.ITERS) -> Path:
    root = Path(root).resolve()
    if root.is_file():  # sci-agree's disagreements.jsonl: just those items, a source each
        from sci_tasks.agree.view import disagreement_runs

        runs = disagreement_runs(root)
        if not runs:
            raise ValueError(f"{root}: no item on which the sources differ, nothing to show")
        out = Path(out) if out else root.with_suffix(".html")
    else:
        runs = find_runs(root)
    if not runs:
        raise ValueError(
            f"no samples_*.jsonl under {root}: run lm_eval / sci-eval with --log_samples"
        )
    out = Path(out) if out else root / OUT_NAME
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(build_page(root, runs, iters), encoding="utf-8")
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="sci-view", description=(__doc__ or "").splitlines()[0].split(": ", 1)[-1]
    )
    parser.add_argument(
        "path", type=Path,
        help="a run, sweep or lm_eval --output_path folder, or sci-agree's disagreements.jsonl",
    )  # fmt: skip
    parser.add_argument("--out", type=Path, default=None, help=f"page to write (PATH/{OUT_NAME})")
    parser.add_argument(
        "--iters", type=int, default=stats.ITERS, help="bootstrap resamples for the ± figures"
    )
    args = parser.parse_args(None if argv is None else list(argv))
    if not (args.path.is_dir() or args.path.is_file()):
        parser.error(f"{args.path} is not a folder or a disagreements.jsonl file")
    try:
        print(write_view(args.path, args.out, args.iters))
    except ValueError as exc:
        parser.exit(1, f"sci-view: {exc}\n")


if __name__ == "__main__":
    main()
