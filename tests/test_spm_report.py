"""SPM-Bench report from lm-eval samples files: pooled per-field values computed by hand,
deduplication across tasks, and readable plots."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from sci_tasks.benchmarks.spm_bench import loader as spm_bench
from sci_tasks.benchmarks.spm_bench.metrics import process_results
from sci_tasks.benchmarks.spm_bench.report import OUTPUTS, load_records, write_report

# question id -> reply. Hand-computed (lambda 0.6, Gamma 6):
#   stm-001 gold AB,  "A, B" conf .9       EM 1  SPC 1    SIP 1                     F1 1   10 tokens
#   afm-004 gold ABC, "A" conf .8          EM 0  SPC 1/3  P'=1, R=1/3: 0.6*0.5=0.3  F1 .5  8 tokens
#   tem-002 gold AB,  prose "A and C"      EM 0  SPC 0    P'=1/7, R=1/2: 0.6*2/9    F1 .5  8 tokens
#   stm-003 gold ABC, "no idea" unparsed   EM 0  SPC 0    SIP 0                     F1 0   2 tokens
#   tem-004 gold AB,  JSON A, B conf .6    EM 1  SPC 1    SIP 1                     F1 1   23 tokens
REPLIES = {
    "spm-stm-001": "Answer: A, B\nConfidence: 0.9",
    "spm-afm-004": "Answer: A\nConfidence: 0.8",
    "spm-tem-002": "I think A and C are correct.",
    "spm-stm-003": "no idea",
    "spm-tem-004": '{"answer": ["A","B"], "confidence": 0.6}',
}
TASK_OF = {t: f"spm_bench_{t.lower()}" for t in spm_bench.TECHNIQUES}


def sample_line(doc_id: int, doc: dict[str, Any], reply: str) -> str:
    """One line as lm-eval's --log_samples writes it (doc, responses, per-sample metric values)."""
    return json.dumps(
        {
            "doc_id": doc_id,
            "doc": doc,
            "target": ", ".join(doc["answer"]),
            "arguments": {"gen_args_0": {"arg_0": "...", "arg_1": {}}},
            "resps": [[reply]],
            "filtered_resps": [reply],
            "filter": "none",
            "metrics": ["em", "delta"],
            **process_results(doc, [reply]),
        }
    )


def write_run(
    folder: Path, replies: dict[str, str], stamp: str = "2026-01-02T03-04-05.000001"
) -> None:
    docs = {d["id"]: d for d in spm_bench.load()}
    by_task: dict[str, list[str]] = {}
    for i, (qid, reply) in enumerate(replies.items()):
        by_task.setdefault(TASK_OF[docs[qid]["technique"]], []).append(
            sample_line(i, docs[qid], reply)
        )
    folder.mkdir(parents=True, exist_ok=True)
    for task, lines in by_task.items():
        (folder / f"samples_{task}_{stamp}.jsonl").write_text("\n".join(lines) + "\n")


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    model = tmp_path / "run" / "some-model"
    write_run(model, REPLIES)
    # an older run of the STM task and a field task repeating a question with other replies:
    # the newest file of a task and the technique tasks win, each question counts once
    write_run(
        model,
        {"spm-stm-001": "Answer: D", "spm-stm-003": "Answer: D"},
        stamp="2025-12-31T00-00-00.000000",
    )
    docs = {d["id"]: d for d in spm_bench.load()}
    (model / "samples_spm_bench_defect_engineering_2026-01-02T03-04-05.000001.jsonl").write_text(
        sample_line(0, docs["spm-stm-001"], "Answer: C") + "\n"
    )
    return tmp_path / "run"


def test_records_are_deduplicated_newest_file_and_technique_tasks_first(run_dir: Path) -> None:
    records, files = load_records(run_dir)
    assert sorted(r["id"] for r in records) == sorted(REPLIES)
    assert [f.name.split("_2026")[0] for f in files] == [
        "samples_spm_bench_stm", "samples_spm_bench_afm", "samples_spm_bench_tem",
        "samples_spm_bench_defect_engineering",
    ]  # fmt: skip
    stm1 = next(r for r in records if r["id"] == "spm-stm-001")
    assert stm1["prediction"] == ["A", "B"] and stm1["field"] == "Defect Engineering"


def test_per_field_table_matches_hand_computed_values(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    paths = write_report(run_dir, out)
    assert paths == [out / name for name in OUTPUTS.values()] and all(p.is_file() for p in paths)
    rows = {r["field"]: r for r in csv.DictReader((out / OUTPUTS["table_csv"]).open())}
    assert list(rows) == ["Defect Engineering", "Topology", "all"]
    expected = {
        # Defect Engineering: stm-001, afm-004, tem-002
        #   SPC (1 + 1/3 + 0)/3 = 4/9; SIP (1 + 0.3 + 0.6*2/9)/3 = 0.47778; Delta = 0.03333
        #   ECE: 0.9 right (bin 9), 0.8 wrong (bin 8) -> (0.1 + 0.8)/2 = 0.45
        "Defect Engineering": dict(
            questions=3,
            em=1 / 3,
            spc=4 / 9,
            sip_f1=(1.3 + 0.4 / 3) / 3,
            f1=2 / 3,
            delta=abs(4 / 9 - (1.3 + 0.4 / 3) / 3),
            ece=0.45,
            with_confidence=2,
            unparsed_rate=0.0,
            no_confidence_rate=1 / 3,
            mean_output_tokens=26 / 3,
        ),
        # Topology: stm-003 (unparsed), tem-004 (right, 0.6) -> ECE |1 - 0.6| = 0.4
        "Topology": dict(
            questions=2,
            em=0.5,
            spc=0.5,
            sip_f1=0.5,
            f1=0.5,
            delta=0.0,
            ece=0.4,
            with_confidence=1,
            unparsed_rate=0.5,
            no_confidence_rate=0.5,
            mean_output_tokens=12.5,
        ),
        # all five: SPC 2.3333/5, SIP 2.4333/5 -> Delta 0.02; ECE (0.1 + 0.8 + 0.4)/3
        "all": dict(
            questions=5,
            em=0.4,
            spc=(7 / 3) / 5,
            sip_f1=(2.3 + 0.4 / 3) / 5,
            f1=0.6,
            delta=0.02,
            ece=1.3 / 3,
            with_confidence=3,
            unparsed_rate=0.2,
            no_confidence_rate=0.4,
            mean_output_tokens=10.2,
        ),
    }
    for name, values in expected.items():
        for key, value in values.items():
            assert float(rows[name][key]) == pytest.approx(value), (name, key)
    # bootstrap s.e. of the mean EM of Topology's two questions (0 and 1): resampled means
    # 0, 0.5, 1 with chances 1/4, 1/2, 1/4, so sd = sqrt(0.125) = 0.354
    assert float(rows["Topology"]["em_se"]) == pytest.approx(0.125**0.5, abs=0.01)
    md = (out / OUTPUTS["table_md"]).read_text()
    row = "| Defect Engineering | 3 | 0.333 | 0.444 | 0.478 | 0.667 | 0.033 | 0.450 | 2 | 0.000 |"
    assert f"{row} 0.333 | 8.7 |" in md
    assert "| **all** | **5** | **0.400** | **0.467** | **0.487** |" in md
    assert "## By technique" in md and "| TEM | 2 |" in md
    assert "Bundled sample questions" in md and "lambda = 0.6, Gamma = 6" in md


def test_plots_are_real_images(run_dir: Path, tmp_path: Path) -> None:
    write_report(run_dir, tmp_path / "r")
    for key in ("histogram", "radar"):
        with Image.open(tmp_path / "r" / OUTPUTS[key]) as im:
            assert im.format == "PNG" and im.width >= 500 and im.height >= 350
            pixels = np.asarray(im.convert("L"), dtype=float)
            assert pixels.std() > 10  # drawn, not blank


def test_report_errors(tmp_path: Path) -> None:
    assert write_report(tmp_path, tmp_path / "out") == []  # no SPM-Bench samples: nothing
    write_run(tmp_path / "two" / "model-a", {"spm-stm-001": "Answer: A"})
    write_run(tmp_path / "two" / "model-b", {"spm-stm-001": "Answer: A"})
    with pytest.raises(ValueError, match="samples of several runs/models"):
        write_report(tmp_path / "two", tmp_path / "out")
    bad = tmp_path / "bad" / "m"
    bad.mkdir(parents=True)
    (bad / "samples_spm_bench_stm_2026-01-01T00-00-00.0.jsonl").write_text(
        '{"doc_id": 0, "em": 1.0}\n'
    )
    with pytest.raises(
        ValueError, match=r"samples_spm_bench_stm_.*\.jsonl:1: no per-sample 'record' entry"
    ):
        write_report(tmp_path / "bad", tmp_path / "out")
    # a record without the fields the tables need: named, with the missing fields
    (bad / "samples_spm_bench_stm_2026-01-01T00-00-00.0.jsonl").write_text(
        '{"doc_id": 0, "record": {"id": "q1", "em": 1.0}}\n'
    )
    with pytest.raises(ValueError, match=r"\.jsonl:1: the 'record' entry lacks technique, field"):
        write_report(tmp_path / "bad", tmp_path / "out")


NOTE_RED = np.array([0xB0, 0x3A, 0x2E])  # the colour of the bundled-data note on plots
SIP_BLUE = np.array([0x3B, 0x6F, 0xB6])  # the radar's SIP-F1 series


def pixels_like(png: Path, colour: np.ndarray, within: int = 12) -> np.ndarray:
    """Row and column of every pixel within ``within`` of ``colour`` in each channel (12
    tells the note from the histogram's mean line, #c0392b, 16 away)."""
    with Image.open(png) as im:
        rgb = np.asarray(im.convert("RGB"), dtype=int)
    return np.argwhere(np.abs(rgb - colour).max(axis=2) < within)


def test_radar_stays_readable_when_every_score_is_zero(tmp_path: Path) -> None:
    """An echo-like model scores 0 everywhere: the points lie on the 0 ring, one per field,
    instead of collapsing to one dot in the centre."""
    docs = spm_bench.load()
    fields = sorted({d["field"] for d in docs})
    write_run(tmp_path / "run" / "m", {d["id"]: "no idea" for d in docs})
    write_report(tmp_path / "run", tmp_path / "out")
    md = (tmp_path / "out" / OUTPUTS["table_md"]).read_text()
    assert "| **all** | **16** | **0.000** | **0.000** | **0.000** |" in md
    png = tmp_path / "out" / OUTPUTS["radar"]
    with Image.open(png) as im:
        height = im.height
    blue = pixels_like(png, SIP_BLUE)
    blue = blue[blue[:, 0] < 0.85 * height]  # the plot, not the legend's marker under it
    rows, cols = np.ptp(blue[:, 0]), np.ptp(blue[:, 1])
    assert len(fields) == 6 and rows > 80 and cols > 80, (rows, cols)  # a ring, not a dot


def test_bundled_questions_are_marked_on_every_table_and_plot(
    run_dir: Path, tmp_path: Path
) -> None:
    write_report(run_dir, tmp_path / "out")
    md = (tmp_path / "out" / OUTPUTS["table_md"]).read_text()
    mark = " (bundled sample data: not benchmark results)"
    assert md.startswith(f"# SPM-Bench report{mark}")
    assert f"## By field{mark}" in md and f"## By technique{mark}" in md
    assert "Data: bundled spm_bench samples (no data location set)." in md
    for key in ("histogram", "radar"):
        png = tmp_path / "out" / OUTPUTS[key]
        note = pixels_like(png, NOTE_RED)
        with Image.open(png) as im:
            top = im.height // 8
        assert (note[:, 0] < top).sum() > 200, key  # the red note above the plot


def test_real_data_carries_no_bundled_mark(tmp_path: Path) -> None:
    docs = [
        d | {"data_source": "folder /data/spm", "bundled_sample": False}
        for d in list(spm_bench.load())[:3]
    ]
    folder = tmp_path / "run" / "m"
    folder.mkdir(parents=True)
    lines = [sample_line(i, d, "Answer: A") for i, d in enumerate(docs)]
    (folder / f"samples_{TASK_OF[docs[0]['technique']]}_2026.jsonl").write_text(
        "\n".join(lines) + "\n"
    )
    write_report(tmp_path / "run", tmp_path / "out")
    md = (tmp_path / "out" / OUTPUTS["table_md"]).read_text()
    assert "Bundled sample" not in md and "bundled sample data" not in md
    for key in ("histogram", "radar"):
        png = tmp_path / "out" / OUTPUTS[key]
        with Image.open(png) as im:
            top = im.height // 8
        note = pixels_like(png, NOTE_RED)
        assert (note[:, 0] < top).sum() == 0, key
