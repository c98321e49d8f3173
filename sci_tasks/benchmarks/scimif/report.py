"""SciMIF breakdowns from a run's logged samples (the paper's Tables 3, 4, 13 and 14).

Input: the ``samples_scimif_*.jsonl`` files lm-eval (or ``sci-score``) wrote with
``--log_samples``. Each sample's ``record`` entry carries its constraint verdicts
(``constraints``) and its correctness grade (``correctness``), so every table is recomputed
from per-constraint scores:

* per discipline: CSR, ISR, DRFR, unscored rate, and the same three under the authors'
  convention (``unscored as fail``: compare these with the paper); Overall = mean ISR over
  the disciplines; a pooled row over every sample (the authors' adapter's "overall");
* DRFR per constraint source (original / core_task / added_general), both conventions;
* DRFR per functional group (10), in both conventions, and per constraint;
* DRFR per domain: general constraints vs each discipline's scientific ones, both ways;
* correctness x instruction following: CF / CV / IF / IV, phi, Jaccard, chi-square p;
* two plots: CSR / ISR / DRFR per discipline, and DRFR per functional group.

A run on the bundled samples says so in the title of every table and on every plot.

A sample logged by several tasks (a discipline task, ``scimif_all``, a task-type task) is
counted once, preferring the discipline task, then ``scimif_all``, then task types.
"""

from __future__ import annotations

import csv
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sci_tasks import report, stats
from sci_tasks.benchmarks.scimif import SHORT
from sci_tasks.benchmarks.scimif import metrics as scimif
from sci_tasks.data.jsonl import sample_detail
from sci_tasks.metrics.constraints.registry import Group

DISCIPLINES = tuple(SHORT)
_PRIORITY = {f"scimif_{s}": 0 for s in SHORT.values()} | {"scimif_all": 1}


@dataclass(frozen=True)
class Sample:
    discipline: str
    sample_id: int
    verdicts: list[dict[str, Any]]  # name, constraint, group, domain, score, reason, source
    correct: float | None

    @property
    def scores(self) -> list[float | None]:
        return [v["score"] for v in self.verdicts]


def read_samples(run_dir: Path) -> list[Sample]:
    """Every SciMIF sample under ``run_dir`` once (see module docstring for the choice)."""
    chosen: dict[tuple[str, int], tuple[int, Sample]] = {}
    for task, path in report.newest_samples(run_dir, "scimif").items():
        priority = _PRIORITY.get(task, 2)
        for where, logged in report.logged_samples(path):
            detail = sample_detail(logged, where, ("constraints", "correctness"))
            doc = logged["doc"]
            correctness = detail["correctness"]
            sample = Sample(
                doc["discipline"],
                int(doc["id"]),
                detail["constraints"],
                correctness.get("score") if isinstance(correctness, dict) else None,
            )
            key = (sample.discipline, sample.sample_id)
            if key not in chosen or priority < chosen[key][0]:
                chosen[key] = (priority, sample)
    return [s for _, s in chosen.values()]


# --- tables (lists of rows; the first row is the header) -----------------------------------


def _drfr_of(verdicts: Iterable[dict[str, Any]]) -> tuple[float, int, int]:
    """(DRFR, scored, unscored) over a set of verdicts."""
    scores = [v["score"] for v in verdicts]
    scored = [s for s in scores if s is not None]
    value = sum(scored) / len(scored) if scored else math.nan
    return value, len(scored), len(scores) - len(scored)


AS_FAIL = "(unscored as fail)"  # the authors' convention, comparable with the paper
OVERALL = "Overall (mean ISR over disciplines)"
POOLED = "All samples pooled"


def _both_conventions(own: Sequence[Sample]) -> list[Any]:
    """CSR, ISR, DRFR, unscored rate, then CSR, ISR, DRFR with unscored counted as 0."""
    _, scored, unscored = _drfr_of(v for s in own for v in s.verdicts)
    logs = [s.verdicts for s in own]
    return [
        scimif.csr(s.scores for s in own),
        scimif.isr(s.scores for s in own),
        scimif.drfr(s.scores for s in own),
        unscored / (scored + unscored) if scored + unscored else math.nan,
        scimif.csr_unscored_as_fail(logs),
        scimif.isr_unscored_as_fail(logs),
        scimif.drfr_unscored_as_fail(logs),
    ]


SE = "± "  # column prefix: bootstrap standard error of the metric (sci_tasks.stats)


def _standard_errors(own: Sequence[Sample]) -> list[float]:
    """Bootstrap standard errors of CSR, ISR and DRFR over the samples (unscored excluded),
    each resampled as the ratio of sums it is (``sci_tasks.stats.bootstrap``)."""

    def one(value: float | None) -> tuple[float, float]:
        return (0.0, 0.0) if value is None else (value, 1.0)  # no value: out of the mean

    csr = [one(scimif.sample_csr(s.scores)) for s in own]
    isr = [one(scimif.sample_isr(s.scores)) for s in own]
    drfr = [(sum(x for x in s.scores if x is not None), sum(x is not None for x in s.scores))
            for s in own]  # fmt: skip
    return [stats.bootstrap(parts).stderr for parts in (csr, isr, drfr)]


def discipline_table(samples: Sequence[Sample]) -> list[list[Any]]:
    metrics = ["CSR", "ISR", "DRFR", "unscored rate"]
    rows: list[list[Any]] = [
        [
            "discipline", "samples", *metrics, *(f"{m} {AS_FAIL}" for m in metrics[:3]),
            *(f"{SE}{m}" for m in metrics[:3]),
        ]
    ]  # fmt: skip
    for d in DISCIPLINES:
        own = [s for s in samples if s.discipline == d]
        if own:
            rows.append([d, len(own), *_both_conventions(own), *_standard_errors(own)])
    per_discipline = rows[1:]

    def mean_isr(column: int) -> float:
        values = [r[column] for r in per_discipline]
        return sum(values) / len(values) if values else math.nan

    overall: list[Any] = [OVERALL, len(samples)] + [""] * (len(rows[0]) - 2)
    for column in (rows[0].index("ISR"), rows[0].index(f"ISR {AS_FAIL}")):
        overall[column] = mean_isr(column)
    rows.append(overall)
    rows.append([POOLED, len(samples), *_both_conventions(samples), *_standard_errors(samples)])
    return rows


def source_table(samples: Sequence[Sample]) -> list[list[Any]]:
    """DRFR per constraint source, per discipline and pooled, in both conventions (the
    authors' adapter reports ``<source>_accuracy``: the "unscored as fail" rows)."""
    present = [d for d in DISCIPLINES if any(s.discipline == d for s in samples)]
    rows: list[list[Any]] = [["source", "convention", *present, "all"]]
    for source in scimif.SOURCES:
        for convention, fn in (
            ("unscored excluded", scimif.drfr_of_source),
            ("unscored as fail", scimif.drfr_unscored_as_fail),
        ):
            row: list[Any] = [source, convention]
            for d in [*present, None]:
                logs = [s.verdicts for s in samples if d is None or s.discipline == d]
                row.append(fn(logs, source))
            rows.append(row)
    return rows


def _drfr_as_fail(verdicts: Iterable[dict[str, Any]]) -> float:
    """DRFR over a set of verdicts under the authors' convention (unscored counts 0)."""
    return scimif.drfr([scimif.scores_unscored_as_fail(list(verdicts))])


def group_table(samples: Sequence[Sample], unscored_as_fail: bool = False) -> list[list[Any]]:
    """DRFR per functional group, per discipline and pooled (paper Table 4)."""
    drfr_of = _drfr_as_fail if unscored_as_fail else (lambda vs: _drfr_of(vs)[0])
    present = [d for d in DISCIPLINES if any(s.discipline == d for s in samples)]
    rows: list[list[Any]] = [["group", *present, "all"]]
    for group in Group:
        row: list[Any] = [group.value]
        for d in [*present, None]:
            verdicts = [
                v for s in samples if d is None or s.discipline == d for v in s.verdicts
                if v["group"] == group.value
            ]  # fmt: skip
            row.append(drfr_of(verdicts))
        rows.append(row)
    return rows


def group_table_unscored_as_fail(samples: Sequence[Sample]) -> list[list[Any]]:
    return group_table(samples, unscored_as_fail=True)


def constraint_table(samples: Sequence[Sample]) -> list[list[Any]]:
    by_name: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for s in samples:
        for v in s.verdicts:
            by_name[v["constraint"] or f"(unknown) {v['name']}"].append(v)
    rows: list[list[Any]] = [["constraint", "group", "domain", "scored", "unscored", "DRFR"]]
    for name in sorted(by_name):
        verdicts = by_name[name]
        value, scored, unscored = _drfr_of(verdicts)
        rows.append(
            [name, verdicts[0]["group"] or "", verdicts[0]["domain"] or "", scored, unscored, value]
        )
    return rows


def domain_table(samples: Sequence[Sample]) -> list[list[Any]]:
    """DRFR of general vs scientific constraints per discipline (paper Table 13)."""
    header = ["general DRFR", "scientific DRFR"]
    rows: list[list[Any]] = [["discipline", *header, *(f"{h} {AS_FAIL}" for h in header)]]
    for d in DISCIPLINES:
        own = [v for s in samples if s.discipline == d for v in s.verdicts]
        if own:
            general = [v for v in own if v["domain"] == "general"]
            science = [v for v in own if v["domain"] not in (None, "general")]
            rows.append(
                [
                    d,
                    _drfr_of(general)[0],
                    _drfr_of(science)[0],
                    _drfr_as_fail(general),
                    _drfr_as_fail(science),
                ]
            )
    return rows


def correctness_table(samples: Sequence[Sample], model: str = "") -> list[list[Any]]:
    """Correctness x ISR per model (paper Table 14)."""
    pairs = [(s.correct, scimif.sample_isr(s.scores)) for s in samples]
    c = scimif.crossing(pairs)
    header = ["model", "n", "CF", "CV", "IF", "IV", "phi", "Jaccard", "chi2 p-value"]
    row = [
        model,
        int(c["n"]),
        c["CF"],
        c["CV"],
        c["IF"],
        c["IV"],
        c["phi"],
        c["jaccard"],
        c["p_value"],
    ]
    return [header, row]


TABLES = {
    "disciplines": discipline_table,
    "sources": source_table,
    "groups": group_table,
    "groups_unscored_as_fail": group_table_unscored_as_fail,
    "constraints": constraint_table,
    "domains": domain_table,
}


PLOTS = {"disciplines": "scimif_disciplines.png", "groups": "scimif_groups.png"}


def write_report(run_dir: Path, out_dir: Path) -> list[Path]:
    """Write every table as Markdown and CSV and the two plots under ``out_dir``; returns
    the files."""
    samples = read_samples(run_dir)
    if not samples:
        return []
    bundled = report.bundled_sources(report.newest_samples(run_dir, "scimif").values(), "scimif")
    suffix = report.bundled_suffix(bundled)
    out_dir.mkdir(parents=True, exist_ok=True)
    tables = {name: fn(samples) for name, fn in TABLES.items()}
    tables["correctness"] = correctness_table(samples, run_dir.name)
    written = []
    markdown = report.heading("SciMIF", f"{len(samples)} samples from {run_dir}", bundled)
    for name, rows in tables.items():
        csv_path = out_dir / f"scimif_{name}.csv"
        with csv_path.open("w", newline="", encoding="utf-8") as fh:
            csv.writer(fh).writerows(rows)
        written.append(csv_path)
        markdown += [f"## {name}{suffix}", "", report.markdown_table(rows[0], rows[1:]), ""]
    plots = {key: out_dir / name for key, name in PLOTS.items()}
    plot_disciplines(plots["disciplines"], tables["disciplines"], bundled)
    plot_groups(plots["groups"], tables["groups"], tables["groups_unscored_as_fail"], bundled)
    markdown += ["## plots", "", *(f"![{p.stem}]({p.name})" for p in plots.values()), ""]
    md_path = out_dir / "scimif_report.md"
    md_path.write_text("\n".join(markdown), encoding="utf-8")
    return [md_path, *written, *plots.values()]


# --- plots ----------------------------------------------------------------------------------

BAR_COLOURS = ("#3b6fb6", "#e67e22", "#2e8b57")
UNIT_TICKS = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]


def _bar_labels(ax: Any, positions: Iterable[float], values: Sequence[float], **kw: Any) -> None:
    """The value above each bar; "n/a" (grey, on the axis) where there is none."""
    for x, v in zip(positions, values, strict=True):
        text, y = ("n/a", 0.0) if math.isnan(v) else (f"{v:.2f}", v)
        ax.text(x, y + 0.015, text, color="grey" if math.isnan(v) else "black", **kw)


def plot_disciplines(path: Path, table: list[list[Any]], bundled: Sequence[str]) -> None:
    """CSR, ISR and DRFR per discipline and pooled over all samples (unscored excluded)."""
    import numpy as np
    from matplotlib.figure import Figure

    head = table[0]
    rows = [r for r in table[1:] if r[0] != OVERALL]
    names = [f"{r[0]}\n(n={r[1]})" for r in rows]
    fig = Figure(figsize=(max(6.0, 1.3 * len(rows) + 2.0), 4.6), layout="constrained")
    ax = fig.add_subplot()
    x = np.arange(len(rows))
    width = 0.8 / 3
    for i, metric in enumerate(("CSR", "ISR", "DRFR")):
        values = [float(r[head.index(metric)]) for r in rows]
        pos = x - 0.4 + width * (i + 0.5)
        heights = [0.0 if math.isnan(v) else v for v in values]
        errors = [float(r[head.index(SE + metric)]) for r in rows]
        errors = [0.0 if math.isnan(e) else e for e in errors]  # bootstrap s.e. as error bars
        ax.bar(pos, heights, width * 0.92, label=metric, color=BAR_COLOURS[i],
               edgecolor=BAR_COLOURS[i], yerr=errors, capsize=2,
               error_kw={"elinewidth": 0.8, "ecolor": "#333333"})  # fmt: skip
        _bar_labels(ax, pos, values, ha="center", va="bottom", fontsize=8)
    if len(rows) > 1:  # the pooled row is no discipline: set it apart
        ax.axvline(len(rows) - 1.5, color="grey", linestyle=":", linewidth=1)
    ax.set_xticks(x)
    ax.set_xticklabels(names, fontsize=9)
    ax.set_ylim(0.0, 1.12)
    ax.set_yticks(UNIT_TICKS)
    ax.set_ylabel("score (unscored excluded), ± bootstrap s.e.")
    _finish(fig, ax, "SciMIF: CSR / ISR / DRFR per discipline", "y", bundled, path)


def plot_groups(
    path: Path, excluded: list[list[Any]], as_fail: list[list[Any]], bundled: Sequence[str]
) -> None:
    """DRFR per functional group over all samples, in both conventions (horizontal bars)."""
    import numpy as np
    from matplotlib.figure import Figure

    groups = [r[0] for r in excluded[1:]]
    fig = Figure(figsize=(7.0, 0.42 * len(groups) + 2.0), layout="constrained")
    ax = fig.add_subplot()
    y = np.arange(len(groups))
    series = (("DRFR (unscored excluded)", excluded), (f"DRFR {AS_FAIL}", as_fail))
    for i, (label, table) in enumerate(series):
        values = [float(r[-1]) for r in table[1:]]  # the pooled "all" column
        pos = y - 0.2 + 0.4 * i
        ax.barh(pos, [0.0 if math.isnan(v) else v for v in values], 0.38, label=label,
                color=BAR_COLOURS[i], edgecolor=BAR_COLOURS[i])  # fmt: skip
        for p, v in zip(pos, values, strict=True):
            text, at = ("n/a", 0.0) if math.isnan(v) else (f"{v:.2f}", v)
            ax.text(at + 0.01, p, text, va="center", fontsize=7,
                    color="grey" if math.isnan(v) else "black")  # fmt: skip
    ax.set_yticks(y)
    ax.set_yticklabels(groups, fontsize=9)
    ax.invert_yaxis()  # the paper's group order, top to bottom
    ax.set_xlim(0.0, 1.1)
    ax.set_xticks(UNIT_TICKS)
    ax.set_xlabel("DRFR (n/a: no scored constraint of the group)")
    _finish(fig, ax, "SciMIF: DRFR per functional group (all samples)", "x", bundled, path)


def _finish(fig: Any, ax: Any, title: str, grid: str, bundled: Sequence[str], path: Path) -> None:
    """Title, value grid behind the bars, legend below (one row), bundled mark; saved."""
    ax.set_title(title)
    ax.grid(axis=grid, alpha=0.3)
    ax.set_axisbelow(True)
    ncol = len(ax.get_legend_handles_labels()[1])
    fig.legend(loc="outside lower center", ncol=ncol, frameon=False)
    report.mark_bundled(fig, bundled)
    report.save_figure(fig, path)
