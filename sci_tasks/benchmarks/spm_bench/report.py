"""SPM-Bench report of one run: per-field table (Markdown, CSV), per-question SIP-F1
histogram and per-field radar chart, from lm-eval's ``samples_spm_bench_*.jsonl`` files.

Each logged sample carries the per-question record that ``.metrics.score`` builds (as the
sample's ``record`` entry): id, technique, field, gold, prediction,
confidence and the scores. Because the technique tasks and the field tasks share questions,
records are deduplicated by question id (technique tasks read first), so a question counts
once however many of the tasks were run. Pooled values are recomputed from the records:
Delta and ECE of a row are those of the row's questions, not means of task values.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import astuple, dataclass, fields
from pathlib import Path
from typing import Any, cast

import numpy as np
from matplotlib.figure import Figure
from matplotlib.projections.polar import PolarAxes
from matplotlib.ticker import MaxNLocator

from sci_tasks import stats
from sci_tasks.benchmarks.spm_bench import BENCHMARK
from sci_tasks.benchmarks.spm_bench.metrics import delta, ece
from sci_tasks.data.jsonl import sample_detail
from sci_tasks.report import (
    bundled_sources,
    bundled_suffix,
    csv_cells,
    fmt,
    heading,
    logged_samples,
    mark_bundled,
    markdown_table,
    newest_samples,
    save_figure,
)

TECHNIQUE_TASKS = BENCHMARK.splits
RECORD_KEYS = (
    "id", "technique", "field", "gold", "prediction", "parsed", "confidence",
    "em", "spc", "sip_f1", "f1", "output_tokens",
)  # fmt: skip
OUTPUTS = {
    "table_md": "spm_bench_fields.md",
    "table_csv": "spm_bench_fields.csv",
    "histogram": "spm_bench_sip_f1_hist.png",
    "radar": "spm_bench_fields_radar.png",
}


@dataclass(frozen=True)
class Row:
    """Pooled scores of a set of questions (one field, one technique, or all)."""

    name: str
    questions: int
    em: float
    spc: float
    sip_f1: float
    f1: float
    delta: float
    ece: float
    with_confidence: int
    unparsed_rate: float
    no_confidence_rate: float
    mean_output_tokens: float
    em_se: float = math.nan  # bootstrap standard errors (sci_tasks.stats)
    spc_se: float = math.nan
    sip_f1_se: float = math.nan


COLUMNS = [
    ("name", "field"),
    ("questions", "questions"),
    ("em", "EM"),
    ("spc", "SPC"),
    ("sip_f1", "SIP-F1"),
    ("f1", "F1"),
    ("delta", "Delta"),
    ("ece", "ECE"),
    ("with_confidence", "with confidence"),
    ("unparsed_rate", "unparsed"),
    ("no_confidence_rate", "no confidence"),
    ("mean_output_tokens", "mean tokens"),
    ("em_se", "± EM"),
    ("spc_se", "± SPC"),
    ("sip_f1_se", "± SIP-F1"),
]


def write_report(run_dir: Path, out_dir: Path) -> list[Path]:
    """Write the table (Markdown, CSV) and the two plots; return the written paths."""
    run_dir, out_dir = Path(run_dir), Path(out_dir)
    records, files = load_records(run_dir)
    if not records:
        return []
    out_dir.mkdir(parents=True, exist_ok=True)
    by_field = rows_by(records, "field")
    by_technique = rows_by(records, "technique")
    overall = summarise("all", records)
    bundled = bundled_sources(files, "spm_bench")
    paths = {key: out_dir / name for key, name in OUTPUTS.items()}
    paths["table_md"].write_text(
        markdown(by_field, by_technique, overall, records, files, run_dir, bundled),
        encoding="utf-8",
    )
    write_csv(paths["table_csv"], [*by_field, overall])
    plot_histogram(paths["histogram"], [r["sip_f1"] for r in records], overall, bundled)
    plot_radar(paths["radar"], by_field, bundled)
    return list(paths.values())


# --- reading --------------------------------------------------------------------------------


def samples_files(run_dir: Path) -> list[Path]:
    """The newest samples file of each SPM-Bench task under ``run_dir`` (one model only),
    technique tasks first; empty when the run has no SPM-Bench samples."""
    newest = newest_samples(run_dir, "spm_bench")

    def order(task: str) -> tuple[int, str]:
        return (
            (TECHNIQUE_TASKS.index(task), "")
            if task in TECHNIQUE_TASKS
            else (len(TECHNIQUE_TASKS), task)
        )

    return [newest[t] for t in sorted(newest, key=order)]


def load_records(run_dir: Path) -> tuple[list[dict[str, Any]], list[Path]]:
    """Per-question records, one per question id, and the files they came from."""
    files = samples_files(run_dir)
    records: dict[str, dict[str, Any]] = {}
    for path in files:
        for where, sample in logged_samples(path):
            record = sample_detail(sample, where, RECORD_KEYS)
            records.setdefault(str(record["id"]), record)
    return list(records.values()), files


# --- pooling --------------------------------------------------------------------------------


def summarise(name: str, records: Sequence[Mapping[str, Any]]) -> Row:
    def mean(key: str) -> float:
        return float(np.mean([float(r[key]) for r in records])) if records else math.nan

    confidences = [r["confidence"] for r in records]
    return Row(
        name=name,
        questions=len(records),
        em=mean("em"),
        spc=mean("spc"),
        sip_f1=mean("sip_f1"),
        f1=mean("f1"),
        delta=delta([r["spc"] for r in records], [r["sip_f1"] for r in records]),
        ece=ece(confidences, [r["em"] for r in records]),
        with_confidence=sum(c is not None for c in confidences),
        unparsed_rate=float(np.mean([not r["parsed"] for r in records])),
        no_confidence_rate=float(np.mean([c is None for c in confidences])),
        mean_output_tokens=mean("output_tokens"),
        em_se=_se("em", records),
        spc_se=_se("spc", records),
        sip_f1_se=_se("sip_f1", records),
    )


def _se(key: str, records: Sequence[Mapping[str, Any]]) -> float:
    """Bootstrap standard error of the mean of ``key`` over the questions."""
    return stats.bootstrap([(float(r[key]), 1.0) for r in records]).stderr


def rows_by(records: Iterable[Mapping[str, Any]], key: str) -> list[Row]:
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for r in records:
        groups.setdefault(str(r[key]), []).append(r)
    return [summarise(name, groups[name]) for name in sorted(groups)]


# --- tables ---------------------------------------------------------------------------------


def _md_table(rows: Sequence[Row], first: str) -> list[str]:
    """The rows with the pooled one last, in bold: the one table (``markdown_table``), its
    cells formatted here because one column differs (mean tokens to 1 place, scores to 3)."""
    head = [first, *(title for _, title in COLUMNS[1:])]
    cells = [
        [fmt(v, 1 if f.name == "mean_output_tokens" else 3)
         for f, v in zip(fields(Row), astuple(row), strict=True)]
        for row in rows
    ]  # fmt: skip
    return markdown_table(head, cells, bold_last=True).splitlines()


def markdown(
    by_field: Sequence[Row],
    by_technique: Sequence[Row],
    overall: Row,
    records: Sequence[Mapping[str, Any]],
    files: Sequence[Path],
    run_dir: Path,
    bundled: Sequence[str] = (),
) -> str:
    params = sorted(
        {
            (float(r.get("sip_lambda", math.nan)), float(r.get("sip_gamma", math.nan)))
            for r in records
        }
    )
    shown = ", ".join(f"lambda = {lam:g}, Gamma = {gam:g}" for lam, gam in params)
    suffix = bundled_suffix(bundled)
    files_shown = ", ".join(f"`{p.name}`" for p in files)
    intro = (
        f"Run: `{run_dir}`; {overall.questions} questions from {files_shown} "
        "(each question counted once)."
    )
    lines = heading("SPM-Bench", intro, bundled, "questions")
    lines += [f"## By field{suffix}", "", *_md_table([*by_field, overall], "field"), ""]
    lines += [f"## By technique{suffix}", "",
              *_md_table([*by_technique, overall], "technique"), ""]  # fmt: skip
    lines += [
        f"SIP-F1 with {shown}. Delta = |mean SPC - mean SIP-F1| over the row's questions; "
        "ECE: stated confidence against EM in 10 equal-width bins, over the questions with "
        "a confidence (`with confidence`). `unparsed`: share of replies with no readable "
        "answer (scored as an empty selection); `mean tokens`: word and punctuation tokens "
        "per reply.",
        "",
    ]
    return "\n".join(lines)


def write_csv(path: Path, rows: Sequence[Row]) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow([f.name if f.name != "name" else "field" for f in fields(Row)])
        writer.writerows(csv_cells(astuple(row)) for row in rows)


# --- plots ----------------------------------------------------------------------------------


def plot_histogram(
    path: Path, values: Sequence[float], overall: Row, bundled: Sequence[str] = ()
) -> None:
    fig = Figure(figsize=(6.0, 3.8), layout="constrained")
    ax = fig.add_subplot()
    edges = np.linspace(0.0, 1.0, 21)
    ax.hist(np.clip(values, 0.0, 1.0), bins=list(edges), color="#3b6fb6", edgecolor="white")
    ax.axvline(overall.sip_f1, color="#c0392b", linestyle="--", linewidth=1.5,
               label=f"mean SIP-F1 = {overall.sip_f1:.3f}")  # fmt: skip
    ax.set_xlim(0.0, 1.0)
    ax.xaxis.set_major_locator(MaxNLocator(11))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("per-question SIP-F1")
    ax.set_ylabel("questions")
    ax.set_title(f"SPM-Bench: SIP-F1 per question ({overall.questions} questions)")
    ax.legend(loc="best", frameon=True, framealpha=0.9)
    ax.grid(axis="y", alpha=0.3)
    mark_bundled(fig, bundled)
    save_figure(fig, path)


RADAR_SERIES: list[tuple[str, Callable[[Row], float], str, float]] = [
    ("SIP-F1", lambda r: r.sip_f1, "#3b6fb6", 10.0),
    ("SPC", lambda r: r.spc, "#e67e22", 7.0),
    ("EM", lambda r: r.em, "#2e8b57", 4.0),
]  # largest marker first: equal values stay visible as nested dots


def plot_radar(path: Path, rows: Sequence[Row], bundled: Sequence[str] = ()) -> None:
    """One spoke per field on a fixed 0..1 scale. The centre is a ring (the radial origin
    sits below 0), so low scores spread along the 0 ring instead of collapsing to a dot;
    each field's values are printed under its name."""
    fig = Figure(figsize=(8.4, 7.6), layout="constrained")
    ax = cast(PolarAxes, fig.add_subplot(projection="polar"))
    ax.set_theta_offset(math.pi / 2)  # first field at the top, then clockwise
    ax.set_theta_direction(-1)
    angles = np.linspace(0.0, 2 * math.pi, len(rows), endpoint=False)
    closed = np.append(angles, angles[:1])
    for label, value, colour, size in RADAR_SERIES:
        vals = [value(r) for r in rows]
        vals = [0.0 if math.isnan(v) else v for v in vals]
        ax.plot(closed, [*vals, vals[0]], color=colour, linewidth=2, marker="o",
                markersize=size, label=label)  # fmt: skip
        ax.fill(closed, [*vals, vals[0]], color=colour, alpha=0.08)
    ax.set_xticks(angles)

    def shown(r: Row) -> str:
        return " ".join(f"{label} {fmt(value(r), 2)}" for label, value, _, _ in RADAR_SERIES)

    # one word per line keeps long field names inside the figure
    ax.set_xticklabels(
        [f"{r.name.replace(' ', chr(10))} (n={r.questions})\n{shown(r)}" for r in rows],
        fontsize=8,
    )
    ax.tick_params(axis="x", pad=16)
    ax.set_ylim(0.0, 1.0)
    ax.set_rorigin(-0.25)
    ticks = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    ax.set_yticks(ticks)
    ax.set_yticklabels([f"{t:.1f}" for t in ticks], fontsize=7, color="#555555")
    ax.set_rlabel_position(180.0 / max(len(rows), 1))  # between the first two spokes
    ax.yaxis.grid(True, color="#999999", linewidth=0.8)
    ax.xaxis.grid(True, color="#bbbbbb", linewidth=0.8)
    ax.set_title("SPM-Bench by field (radius: score, 0 to 1)", pad=14)
    fig.legend(loc="outside lower center", ncol=len(RADAR_SERIES), frameon=False)
    mark_bundled(fig, bundled)
    save_figure(fig, path)
