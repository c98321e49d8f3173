"""SciMIF breakdowns from a run's logged samples (the paper's Tables 3, 4, 13 and 14).

Input: the ``samples_scimif_*.jsonl`` files lm-eval (or ``sci-score``) wrote with
``--log_samples``. Each sample carries its constraint verdicts (in ``drfr``) and its
correctness grade (``correct``), so every table is recomputed from per-constraint scores:

* per discipline: CSR, ISR, DRFR, unscored rate, and the same three under the authors'
  convention (``unscored as fail``: compare these with the paper); Overall = mean ISR over
  the disciplines; a pooled row over every sample (the authors' adapter's "overall");
* DRFR per constraint source (original / core_task / added_general), both conventions;
* DRFR per functional group (10), in both conventions, and per constraint;
* DRFR per domain: general constraints vs each discipline's scientific ones, both ways;
* correctness x instruction following: CF / CV / IF / IV, phi, Jaccard, chi-square p.

A sample logged by several tasks (a discipline task, ``scimif_all``, a task-type task) is
counted once, preferring the discipline task, then ``scimif_all``, then task types.
"""

from __future__ import annotations

import csv
import json
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tabulate import tabulate

from sci_tasks.data.scimif import SHORT
from sci_tasks.metrics import scimif
from sci_tasks.metrics.constraints.registry import Group
from sci_tasks.report import newest_samples

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
    for task, path in newest_samples(run_dir, "scimif").items():
        priority = _PRIORITY.get(task, 2)
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            record = json.loads(line)
            if "drfr" not in record:  # a --predict_only run: score it first with sci-score
                raise ValueError(
                    f"{path} holds no scores (predict-only?): run sci-score on it first"
                )
            doc = record["doc"]
            correct = record.get("correct")
            sample = Sample(
                doc["discipline"],
                int(doc["id"]),
                record["drfr"]["constraints"],
                correct.get("score") if isinstance(correct, dict) else None,
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


def discipline_table(samples: Sequence[Sample]) -> list[list[Any]]:
    metrics = ["CSR", "ISR", "DRFR", "unscored rate"]
    rows: list[list[Any]] = [
        ["discipline", "samples", *metrics, *(f"{m} {AS_FAIL}" for m in metrics[:3])]
    ]
    for d in DISCIPLINES:
        own = [s for s in samples if s.discipline == d]
        if own:
            rows.append([d, len(own), *_both_conventions(own)])
    per_discipline = rows[1:]

    def mean_isr(column: int) -> float:
        values = [r[column] for r in per_discipline]
        return sum(values) / len(values) if values else math.nan

    overall: list[Any] = [OVERALL, len(samples)] + [""] * (len(rows[0]) - 2)
    for column in (rows[0].index("ISR"), rows[0].index(f"ISR {AS_FAIL}")):
        overall[column] = mean_isr(column)
    rows.append(overall)
    rows.append([POOLED, len(samples), *_both_conventions(samples)])
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


def write_report(run_dir: Path, out_dir: Path) -> list[Path]:
    """Write every table as Markdown and CSV under ``out_dir``; returns the files."""
    samples = read_samples(run_dir)
    if not samples:
        return []
    out_dir.mkdir(parents=True, exist_ok=True)
    tables = {name: fn(samples) for name, fn in TABLES.items()}
    tables["correctness"] = correctness_table(samples, run_dir.name)
    written = []
    markdown = ["# SciMIF report", "", f"{len(samples)} samples from {run_dir}", ""]
    for name, rows in tables.items():
        csv_path = out_dir / f"scimif_{name}.csv"
        with csv_path.open("w", newline="", encoding="utf-8") as fh:
            csv.writer(fh).writerows(rows)
        written.append(csv_path)
        markdown += [f"## {name}", "", _markdown(rows), ""]
    md_path = out_dir / "scimif_report.md"
    md_path.write_text("\n".join(markdown), encoding="utf-8")
    return [md_path, *written]


def _markdown(rows: list[list[Any]]) -> str:
    body = [[_fmt(x) for x in row] for row in rows[1:]]
    return tabulate(body, headers=rows[0], tablefmt="github")


def _fmt(value: Any) -> Any:
    if isinstance(value, float):
        return "n/a" if math.isnan(value) else f"{value:.4f}"
    return value
