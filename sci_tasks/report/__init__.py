"""Reports built from the files of an lm-eval run (tables and plots), one module per benchmark."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from sci_tasks import run_folder
from sci_tasks.data.jsonl import read_samples
from sci_tasks.outputs import fmt, markdown_table
from sci_tasks.run_folder import newest_samples

# the one table (sci_tasks.outputs) and the one run-folder reader (sci_tasks.run_folder), as
# reports use them
__all__ = ["fmt", "markdown_table", "newest_samples"]


def logged_samples(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """(``"<file>:<line>"``, sample) for every sample of a samples file."""
    for lineno, sample in enumerate(read_samples(path), start=1):
        yield f"{path}:{lineno}", sample


BUNDLED = "bundled sample data: not benchmark results"  # title suffix / plot note


def bundled_sources(files: Iterable[Path], prefix: str = "") -> list[str]:
    """The bundled data sources behind logged samples files (empty: real data). A sample is
    bundled when its doc's ``data_source`` starts with "bundled" or its ``bundled_sample``
    flag is set; a results file next to the samples giving a task named ``<prefix>...``
    ``bundled_samples`` > 0 counts too, so the mark survives samples logged without docs."""
    found: set[str] = set()
    folders: set[Path] = set()
    for path in files:
        folders.add(path.parent)
        for sample in read_samples(path):
            doc = sample.get("doc")
            if not isinstance(doc, dict):
                continue
            source = str(doc.get("data_source") or "")
            if source.startswith("bundled") or doc.get("bundled_sample") is True:
                found.add(source or "bundled samples")
    if found:
        return sorted(found)
    for folder in sorted(folders):
        for results in run_folder.results_files(folder, recursive=False):
            try:
                tasks = run_folder.read_results(results)["results"]
            except ValueError:
                continue  # an unreadable results file says nothing either way
            for task, values in tasks.items():
                flag = values.get("bundled_samples,none") if isinstance(values, dict) else None
                if task.startswith(prefix) and isinstance(flag, (int, float)) and flag > 0:
                    found.add(f"bundled samples (results of {task})")
    return sorted(found)


def bundled_suffix(sources: Sequence[str]) -> str:
    """`` (bundled sample data: not benchmark results)`` for a title, or ""."""
    return f" ({BUNDLED})" if sources else ""


def heading(title: str, intro: str, bundled: Sequence[str], what: str = "data") -> list[str]:
    """A report's first lines: its title (marked when the data are bundled samples), one
    line saying what it was computed from, and the bundled-data warning when it applies."""
    lines = [f"# {title} report{bundled_suffix(bundled)}", "", intro, ""]
    if bundled:
        lines += [
            f"**Bundled sample {what}: these numbers are not benchmark results.** "
            f"Data: {'; '.join(bundled)}.",
            "",
        ]
    return lines


def mark_bundled(fig: Any, sources: Sequence[str]) -> None:
    """A visible note above a matplotlib figure drawn from bundled samples (a suptitle:
    the constrained layout keeps it clear of the axes and legend)."""
    if sources:
        shown = "; ".join(sources)
        shown = shown if len(shown) <= 70 else shown[:67] + "..."
        fig.suptitle(f"{BUNDLED.capitalize()}\n({shown})", color="#b03a2e", fontsize=9,
                     fontweight="bold")  # fmt: skip


def csv_cells(values: Iterable[Any]) -> list[Any]:
    """A CSV row: NaN (no value) is an empty cell, never 0; other values as they are."""
    return ["" if isinstance(v, float) and math.isnan(v) else v for v in values]


def save_figure(fig: Any, path: Path) -> None:
    # no timestamp / software metadata: the same run gives the same file
    fig.savefig(path, dpi=110, metadata={"Software": None})
