"""SciGen-Verify report of one run: Acc_a / Acc_e / Acc_i per category, per discipline and
overall (Markdown and CSV), and SciGen-Rubric RR / NHR / SF1 per domain when the run has it.

Reads lm-eval's ``samples_scigen_verify_*.jsonl`` (and ``samples_scigen_rubric_*.jsonl``)
files, as written by ``--log_samples`` or re-written by ``sci-score`` under
``<run>/scores/<judge>/``. Each SciGen-Verify sample carries its full record as the
``record`` entry (``.metrics.score_sample``: category, discipline, label,
judgement and the three cascade scores); so does each rubric sample. Records
are deduplicated by id, and every pooled value is recomputed from the records with the
metric module's own formulas, so the overall Acc_i is exact (over all negatives) whatever
the categories' shares of negatives.

    python -m sci_tasks.benchmarks.scigen_verify.report <run folder> [<output folder>]
"""

from __future__ import annotations

import csv
import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import astuple, dataclass, fields
from pathlib import Path
from typing import Any

from sci_tasks import stats
from sci_tasks.benchmarks.scigen_verify import CATEGORIES
from sci_tasks.benchmarks.scigen_verify.loader import DISCIPLINES
from sci_tasks.benchmarks.scigen_verify.metrics import acc_a, acc_e, acc_i, judgement_score
from sci_tasks.benchmarks.scigen_verify.rubric import macro_over_domains
from sci_tasks.data.jsonl import sample_detail
from sci_tasks.report import (
    bundled_sources,
    bundled_suffix,
    csv_cells,
    heading,
    logged_samples,
    markdown_table,
    newest_samples,
)

VERIFY_PREFIX = "samples_scigen_verify_"
RUBRIC_PREFIX = "samples_scigen_rubric_"
RECORD_KEYS = ("id", "category", "discipline", "label", "judgement", "acc_a", "acc_e", "acc_i")
RUBRIC_KEYS = ("id", "domain", "parsed", "weights_ok", "n_points", "rr", "nhr", "sf1")
OUTPUTS = {"table_md": "scigen_verify.md", "table_csv": "scigen_verify.csv"}


@dataclass(frozen=True)
class Row:
    """Pooled values of a set of samples (one category, one discipline, or all)."""

    group: str  # "category", "discipline" or "overall"
    name: str
    samples: int
    negatives: int
    acc_a: float
    acc_e: float
    acc_i: float
    acc_e_unscored: int
    acc_i_unscored: int
    unparsed: int
    acc_a_se: float = math.nan  # bootstrap standard errors (sci_tasks.stats); NaN where the
    acc_e_se: float = math.nan  # value itself is NaN (an unscored sample)
    acc_i_se: float = math.nan


@dataclass(frozen=True)
class RubricRow:
    name: str
    rubrics: int
    rr: float
    nhr: float
    sf1: float
    unscored: int
    unparsed: int
    weights_off: int
    mean_points: float


# --- reading -----------------------------------------------------------------------------------


def samples_files(run_dir: Path, prefix: str = VERIFY_PREFIX) -> list[Path]:
    """The newest samples file of each task with ``prefix`` under ``run_dir`` (one run;
    re-scores under ``scores/`` are skipped: point the report at ``scores/<judge>``)."""
    newest = newest_samples(Path(run_dir), prefix.removeprefix("samples_"))
    return [newest[t] for t in sorted(newest)]


def _read(files: Sequence[Path], keys: Sequence[str]) -> list[dict[str, Any]]:
    records: dict[str, dict[str, Any]] = {}
    for path in files:
        for where, sample in logged_samples(path):
            record = sample_detail(sample, where, keys)
            records.setdefault(str(record["id"]), record)
    return list(records.values())


def load_records(run_dir: Path) -> tuple[list[dict[str, Any]], list[Path]]:
    files = samples_files(run_dir)
    return _read(files, RECORD_KEYS), files


def load_rubric_records(run_dir: Path) -> tuple[list[dict[str, Any]], list[Path]]:
    files = samples_files(run_dir, RUBRIC_PREFIX)
    return _read(files, RUBRIC_KEYS), files


# --- pooling -----------------------------------------------------------------------------------


def summarise(group: str, name: str, records: Sequence[Mapping[str, Any]]) -> Row:
    negatives = [r for r in records if not r["label"]]
    return Row(
        group=group,
        name=name,
        samples=len(records),
        negatives=len(negatives),
        acc_a=acc_a((bool(r["label"]), r["judgement"]) for r in records),
        acc_e=acc_e(r["acc_e"] for r in records),
        acc_i=acc_i((bool(r["label"]), r["acc_i"]) for r in records),
        acc_e_unscored=sum(r["acc_e"] is None for r in records),
        acc_i_unscored=sum(r["acc_i"] is None for r in negatives),
        unparsed=sum(r["judgement"] is None for r in records),
        **_standard_errors(records),
    )


def _standard_errors(records: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """Bootstrap s.e. of Acc_a (every sample), Acc_e (every sample) and Acc_i (negatives)."""
    a = [(judgement_score(bool(r["label"]), r["judgement"]), 1.0) for r in records]
    e = [None if r["acc_e"] is None else (float(r["acc_e"]), 1.0) for r in records]
    i = [None if r["acc_i"] is None else (float(r["acc_i"]), 1.0)
         for r in records if not r["label"]]  # fmt: skip
    return {
        "acc_a_se": stats.bootstrap(a).stderr,
        "acc_e_se": stats.bootstrap(e).stderr,
        "acc_i_se": stats.bootstrap(i).stderr,
    }


def breakdown(
    records: Iterable[Mapping[str, Any]], key: str, order: Sequence[str] = ()
) -> list[Row]:
    """One row per value of ``key`` (``category`` or ``discipline``), known values in
    ``order`` first, then any others alphabetically."""
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for r in records:
        groups.setdefault(str(r[key]), []).append(r)
    names = [n for n in order if n in groups] + sorted(n for n in groups if n not in order)
    return [summarise(key, n, groups[n]) for n in names]


def table(records: Sequence[Mapping[str, Any]]) -> list[Row]:
    """Per category, per discipline, then overall."""
    return [
        *breakdown(records, "category", CATEGORIES),
        *breakdown(records, "discipline", DISCIPLINES),
        summarise("overall", "all", records),
    ]


def rubric_table(records: Sequence[Mapping[str, Any]]) -> list[RubricRow]:
    """Per domain, then the macro average over domains (the paper's aggregate)."""
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for r in records:
        groups.setdefault(str(r["domain"]), []).append(r)
    names = [d for d in DISCIPLINES if d in groups] + sorted(
        g for g in groups if g not in DISCIPLINES
    )
    rows = [_rubric_row(n, groups[n]) for n in names]
    rows.append(_rubric_row("macro over domains", list(records)))
    return rows


def _rubric_row(name: str, records: Sequence[Mapping[str, Any]]) -> RubricRow:
    """Within one domain the macro value is the plain mean of its rubrics."""

    def macro(key: str) -> float:
        return macro_over_domains({"value": r[key], "domain": r["domain"]} for r in records)

    rr, nhr, sf1 = (macro(key) for key in ("rr", "nhr", "sf1"))
    return RubricRow(
        name=name,
        rubrics=len(records),
        rr=rr,
        nhr=nhr,
        sf1=sf1,
        unscored=sum(r["rr"] is None for r in records),
        unparsed=sum(not r["parsed"] for r in records),
        weights_off=sum(bool(r["parsed"]) and not r["weights_ok"] for r in records),
        mean_points=sum(r["n_points"] for r in records) / len(records) if records else math.nan,
    )


# --- output ------------------------------------------------------------------------------------


VERIFY_HEAD = ("", "samples", "negatives", "Acc_a", "Acc_e", "Acc_i",
               "Acc_e unscored", "Acc_i unscored", "unparsed",
               "± Acc_a", "± Acc_e", "± Acc_i")  # fmt: skip
RUBRIC_HEAD = ("domain", "rubrics", "RR", "NHR", "SF1", "unscored", "unparsed",
               "weights != 10", "mean points")  # fmt: skip


def _md(head: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    return markdown_table(head, rows, digits=3).splitlines()


def markdown(
    rows: Sequence[Row],
    records: Sequence[Mapping[str, Any]],
    files: Sequence[Path],
    run_dir: Path,
    rubric_rows: Sequence[RubricRow] = (),
    bundled: Sequence[str] = (),
) -> str:
    judges = sorted(
        {str(r[k]) for r in records for k in ("acc_e_judge", "acc_i_judge") if r.get(k)}
    )
    suffix = bundled_suffix(bundled)
    files_shown = ", ".join(f"`{p.name}`" for p in files)
    intro = f"Run: `{run_dir}`; {len(records)} SciGen-Verify samples. Files: {files_shown}."
    lines = heading("SciGen-Verify", intro, bundled, "records")
    for group, title in (("category", "By category"), ("discipline", "By discipline")):
        part = [r for r in rows if r.group in (group, "overall")]
        lines += [
            f"## {title}{suffix}",
            "",
            *_md((group, *VERIFY_HEAD[1:]), (astuple(r)[1:] for r in part)),
            "",
        ]
    lines += [
        "Acc_a: right judgements over all samples (no judgement = wrong). Acc_e: right judgement "
        "and an explanation the judge finds equivalent to the reference, over all samples. "
        "Acc_i: right judgement and a valid, actionable edit, over the negatives. n/a: some "
        "sample needed a judge verdict it did not get (counted in the unscored columns).",
        "",
        "Judges: " + (", ".join(f"`{j}`" for j in judges) if judges else "none used") + ".",
        "",
    ]
    if rubric_rows:
        lines += [
            f"## SciGen-Rubric{suffix}",
            "",
            *_md(RUBRIC_HEAD, (astuple(r) for r in rubric_rows)),
            "",
        ]
        lines += [
            "Per domain: means of the per-rubric RR / NHR / SF1; last row: their unweighted "
            "mean over domains. Weights that do not sum to 10 are counted, not penalised.",
            "",
        ]
    return "\n".join(lines)


def write_csv(path: Path, rows: Sequence[Row], rubric_rows: Sequence[RubricRow] = ()) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow([f.name for f in fields(Row)])
        writer.writerows(csv_cells(astuple(row)) for row in rows)
        if rubric_rows:
            writer.writerow([])
            writer.writerow([f"rubric_{f.name}" for f in fields(RubricRow)])
            writer.writerows(csv_cells(astuple(row)) for row in rubric_rows)


def write_report(run_dir: Path, out_dir: Path) -> list[Path]:
    """Write the Markdown and CSV tables; return their paths."""
    run_dir, out_dir = Path(run_dir), Path(out_dir)
    records, files = load_records(run_dir)
    rubric_records, rubric_files = load_rubric_records(run_dir)
    if not records and not rubric_records:
        return []  # no SciGen samples in this run
    rows = table(records)
    rubric_rows = rubric_table(rubric_records) if rubric_records else []
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {key: out_dir / name for key, name in OUTPUTS.items()}
    bundled = bundled_sources([*files, *rubric_files], "scigen_")
    paths["table_md"].write_text(
        markdown(rows, records, [*files, *rubric_files], run_dir, rubric_rows, bundled),
        encoding="utf-8",
    )
    write_csv(paths["table_csv"], rows, rubric_rows)
    return list(paths.values())


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if not 1 <= len(args) <= 2:
        raise SystemExit(
            "usage: python -m sci_tasks.benchmarks.scigen_verify.report <run folder> "
            "[<output folder>]"
        )
    run_dir = Path(args[0])
    out_dir = Path(args[1]) if len(args) > 1 else run_dir / "report"
    for path in write_report(run_dir, out_dir):
        print(path)


if __name__ == "__main__":
    main()
