"""sci-report for the units benchmark: number and exact match per kind and overall, with
bootstrap standard errors (Markdown and CSV), from its logged samples."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from sci_tasks import stats
from sci_tasks.data.jsonl import sample_detail
from sci_tasks.outputs import markdown_table
from sci_tasks.report import csv_cells, heading, logged_samples, newest_samples

from . import BENCHMARK, KINDS

OUTPUTS = {"table_md": "units.md", "table_csv": "units.csv"}
HEAD = ("kind", "questions", "number", "exact", "± number", "± exact")


def load_records(run_dir: Path) -> tuple[list[dict[str, Any]], list[Path]]:
    newest = newest_samples(Path(run_dir), BENCHMARK.name)
    files = [newest[t] for t in BENCHMARK.splits if t in newest]  # metric, imperial
    records: dict[str, dict[str, Any]] = {}
    for path in files:
        for where, sample in logged_samples(path):
            record = sample_detail(sample, where, ("id", "kind", "number", "exact"))
            records.setdefault(str(record["id"]), record)
    return list(records.values()), files


def row(name: str, records: list[dict[str, Any]]) -> list[Any]:
    number = stats.bootstrap([(r["number"], 1.0) for r in records])
    exact = stats.bootstrap([(r["exact"], 1.0) for r in records])
    return [name, len(records), number.value, exact.value, number.stderr, exact.stderr]


def table(records: list[dict[str, Any]]) -> list[list[Any]]:
    kinds = [k for k in KINDS if any(r["kind"] == k for r in records)]
    return [*(row(k, [r for r in records if r["kind"] == k]) for k in kinds), row("all", records)]


def write_report(run_dir: Path, out_dir: Path) -> list[Path]:
    records, files = load_records(run_dir)
    if not records:
        return []
    rows = table(records)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {key: out_dir / name for key, name in OUTPUTS.items()}
    intro = f"Run: `{run_dir}`; {len(records)} questions from " + ", ".join(
        f"`{p.name}`" for p in files
    )
    lines = [*heading(BENCHMARK.title, intro + ".", []),
             markdown_table(HEAD, rows, digits=3, bold_last=True), ""]  # fmt: skip
    paths["table_md"].write_text("\n".join(lines), encoding="utf-8")
    with paths["table_csv"].open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(HEAD)
        writer.writerows(csv_cells(r) for r in rows)
    return list(paths.values())
