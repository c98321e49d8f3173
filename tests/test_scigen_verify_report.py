"""SciGen-Verify report: hand-built samples files, pooled values by hand, and the
bundled-sample mark on every table (and none on real data)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sci_tasks.benchmarks.scigen_verify.report import OUTPUTS, write_report

# (id, category, discipline, label, judgement, acc_e, acc_i): Acc_a = right judgements over
# all = 2/3; Acc_e = 1/3; Acc_i over the two negatives = (1 + 0) / 2
RECORDS = [
    ("v1", "instruction_following", "physics", True, True, 1.0, None),
    ("v2", "instruction_following", "physics", False, False, 0.0, 1.0),
    ("v3", "world_knowledge", "biology", False, True, 0.0, 0.0),
]


def write_run(folder: Path, source: str) -> Path:
    lines = []
    for sid, category, discipline, label, judgement, acc_e, acc_i in RECORDS:
        record: dict[str, Any] = {
            "id": sid, "category": category, "discipline": discipline, "label": label,
            "judgement": judgement, "acc_a": float(label == judgement), "acc_e": acc_e,
            "acc_i": acc_i,
        }  # fmt: skip
        doc = {"id": sid, "data_source": source, "bundled_sample": source.startswith("bundled")}
        lines.append(json.dumps({"doc_id": len(lines), "doc": doc, "record": record}))
    run = folder / "model"
    run.mkdir(parents=True)
    (run / "samples_scigen_verify_world_knowledge_2026.jsonl").write_text("\n".join(lines) + "\n")
    return folder


@pytest.mark.parametrize("bundled", [True, False])
def test_tables_and_the_bundled_mark(tmp_path: Path, bundled: bool) -> None:
    source = "bundled scigen_verify samples (no data location set)" if bundled else "folder /d"
    run = write_run(tmp_path / "run", source)
    write_report(run, tmp_path / "out")
    md = (tmp_path / "out" / OUTPUTS["table_md"]).read_text()
    assert "| all | 3 | 2 | 0.667 | 0.333 | 0.500 | 0 | 0 | 0 |" in md
    mark = " (bundled sample data: not benchmark results)"
    titles = [line for line in md.splitlines() if line.startswith("#")]
    assert titles == [
        "# SciGen-Verify report" + mark * bundled,
        "## By category" + mark * bundled,
        "## By discipline" + mark * bundled,
    ]
    assert (f"Data: {source}." in md) is bundled
    assert ("**Bundled sample records" in md) is bundled


def test_rows_carry_bootstrap_standard_errors() -> None:
    from sci_tasks.benchmarks.scigen_verify.report import summarise

    keys = ("id", "category", "discipline", "label", "judgement", "acc_e", "acc_i")
    records = [dict(zip(keys, r, strict=True)) for r in RECORDS]
    row = summarise("overall", "all", records)
    # Acc_i over the negatives v2 (1) and v3 (0): resampled means 0, 0.5, 1 with chances
    # 1/4, 1/2, 1/4, so the bootstrap s.e. is sqrt(0.125) = 0.354
    assert row.acc_i == 0.5 and row.acc_i_se == pytest.approx(0.125**0.5, abs=0.01)
    # Acc_a: right, right, wrong (2/3): sd of a resampled mean of three 0/1 values with
    # p = 2/3 is sqrt(2/9 / 3) = 0.272
    assert row.acc_a_se == pytest.approx((2 / 27) ** 0.5, abs=0.015)
