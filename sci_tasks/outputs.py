"""The one writer, the one reader and the one table of everything sci-tasks writes.

- ``json_text`` / ``write_json`` / ``jsonl_line`` / ``write_jsonl``: strict JSON (NaN and
  infinity as ``null``, which strict parsers accept; Python's json would write ``NaN``).
  Every JSON file the project writes (sci-eval, sci-lm-eval, sci-score, sci-report,
  sci-leaderboard, sci-view's data) goes through them.
- ``read_jsonl``: the one reader of JSON Lines this package or lm-eval wrote (errors name
  file and line); it is ``sci_tasks.data.jsonl.read_samples``.
- ``markdown_table``: the one Markdown table (reports, leaderboard, sci-eval's table).
- ``OUTPUT_FOLDERS`` / ``NOT_METRIC_KEYS`` / ``metric_keys``: which folders inside a run are
  our own outputs (never read back as a run), and which results keys are not metrics
  (``record``, the per-sample detail, is never shown as a metric row).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from sci_tasks.data.jsonl import read_samples as read_jsonl

__all__ = [
    "NOT_METRIC_KEYS",
    "OUTPUT_FOLDERS",
    "fmt",
    "json_safe",
    "json_text",
    "jsonl_line",
    "markdown_table",
    "metric_keys",
    "read_jsonl",
    "write_json",
    "write_jsonl",
]

# folders sci-score, sci-report and sci-leaderboard write inside a run (or a sweep) folder
OUTPUT_FOLDERS = frozenset({"scores", "report", "leaderboard"})

# results-entry keys that are not metrics: lm-eval's bookkeeping, and ``record`` (the
# per-sample detail our scorers log; its aggregate is a placeholder, never a number to show)
NOT_METRIC_KEYS = frozenset(
    {"alias", "name", "sample_len", "sample_count", "samples", "record", "bundled_samples"}
)


def json_safe(value: Any) -> Any:
    """``value`` with every NaN or infinity as None (JSON has no NaN); tuples as lists."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def json_text(value: Any, indent: int | None = 2, compact: bool = False) -> str:
    """Strict JSON text of ``value`` (NaN as null; other objects by ``str``). ``compact``:
    no spaces after separators (large data shipped to a page)."""
    separators = (",", ":") if compact else None
    return json.dumps(
        json_safe(value), indent=indent, ensure_ascii=False, allow_nan=False, default=str,
        separators=separators,
    )  # fmt: skip


def write_json(path: Path, value: Any, indent: int | None = 2) -> Path:
    """``value`` written to ``path`` as strict JSON (UTF-8, parent folders made)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json_text(value, indent=indent) + "\n", encoding="utf-8")
    return path


def jsonl_line(value: Any) -> str:
    """One JSON Lines line (strict, no newline inside)."""
    return json_text(value, indent=None)


def write_jsonl(path: Path, rows: Iterable[Any]) -> Path:
    """Every row of ``rows`` as a line of strict JSON in ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(jsonl_line(row) + "\n")
    return path


def metric_keys(values: Mapping[str, Any]) -> Iterator[str]:
    """The results keys of one task's entry that are metric values: not bookkeeping, not a
    standard error, not ``record``, not a flag (``"<metric>,<filter>"`` or a bare name)."""
    for key, value in values.items():
        metric = key.partition(",")[0]
        if metric in NOT_METRIC_KEYS or metric.endswith("_stderr") or isinstance(value, bool):
            continue
        yield key


def fmt(value: Any, digits: int = 4) -> str:
    """A table cell: floats to ``digits`` places, NaN as "n/a"."""
    if isinstance(value, float):
        return "n/a" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def markdown_table(
    head: Sequence[str],
    rows: Iterable[Sequence[Any]],
    digits: int = 4,
    bold_last: bool = False,
    right: Iterable[int] | None = None,
    aligned: bool = False,
) -> str:
    """The one Markdown table: the first column left, the others right-aligned (or the
    columns ``right``); cells through ``fmt`` (strings kept as they are). ``aligned``: pad
    the cells to a common width, for a table read on a console."""
    body = [[fmt(v, digits) for v in row] for row in rows]
    if bold_last and body:
        body[-1] = [f"**{c}**" for c in body[-1]]
    right_cols = set(range(1, len(head))) if right is None else set(right)
    cells = [list(head), *body]
    widths = [max(3, *(len(r[i]) for r in cells)) if aligned else 0 for i in range(len(head))]

    def line(row: Sequence[str]) -> str:
        fitted = [
            c.rjust(w) if i in right_cols else c.ljust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        return "| " + " | ".join(fitted) + " |"

    # unpadded: "---" / "---:" (a report's reader renders it); padded: as wide as the column
    marks = [
        ("-" * (max(w, 4) - 1) + ":") if i in right_cols else "-" * max(w, 3)
        for i, w in enumerate(widths)
    ]
    rule_line = "| " + " | ".join(marks) + " |"
    return "\n".join([line(head), rule_line, *map(line, body)])
