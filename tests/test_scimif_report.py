"""SciMIF breakdowns (groups, domains, disciplines, correctness crossing) on hand-built
samples files, with every expected number computed by hand in the comments."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from sci_tasks.benchmarks.scimif import metrics as scimif
from sci_tasks.benchmarks.scimif import report

SOURCE = {"general_all_uppercase": "original"}  # other general ones: added_general


def verdict(constraint: str, group: str, score: float | None) -> dict[str, Any]:
    general = constraint.startswith("general_")
    return {
        "name": constraint,
        "constraint": constraint,
        "group": group,
        "domain": constraint.split("_", 1)[0],
        "score": score,
        "reason": "hand-made",
        "judge": None,
        "source": SOURCE.get(constraint, "added_general" if general else "core_task"),
    }


# a name no checker knows: unscored in both conventions, left out of both
UNKNOWN = {
    **verdict("made_up", "", None),
    **{"constraint": None, "group": None, "domain": None, "source": "added_general"},
}


def sample(
    discipline: str, sample_id: int, verdicts: list[dict[str, Any]], correct: float | None
) -> str:
    return json.dumps(
        {
            "doc": {"discipline": discipline, "id": sample_id, "data_source": "folder /data"},
            "record": {"constraints": verdicts, "correctness": {"score": correct}},
        }
    )


CHEM = [
    # S1: general 1, science 0 -> CSR 0.5, ISR 0, correct
    sample("chemistry", 1, [verdict("general_json_constraint", "Format", 1.0),
                            verdict("chemistry_atom_count_constraint", "Number", 0.0)], 1.0),
    # S2: CSR 1, ISR 1, incorrect
    sample("chemistry", 2, [verdict("general_all_uppercase", "Letter", 1.0)], 0.0),
]  # fmt: skip
BIO = [
    # S3: CSR 0.75, ISR 0, correct
    sample("biology", 1, [verdict("general_wrap_up", "Format", 1.0),
                          verdict("biology_analysis_steps_constraint", "Procedure", 0.5)], 1.0),
    # S4: one unscored; CSR 1, ISR 1, not graded
    sample("biology", 2, [verdict("general_judge", "Selection", None),
                          verdict("biology_sequence_length_constraint", "Number", 1.0)], None),
    # S5: nothing scored (judge missing, unknown name): no CSR / ISR; not graded
    sample("biology", 3, [verdict("biology_analysis_steps_constraint", "Procedure", None),
                          UNKNOWN], None),
]  # fmt: skip
# the same chemistry sample logged by scimif_all with other verdicts: must not be counted
ALL = [sample("chemistry", 1, [verdict("general_json_constraint", "Format", 0.0)], 0.0)]


@pytest.fixture()
def run_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "run" / "model"
    folder.mkdir(parents=True)
    ts = "2026-11-30T10-00-00.000000"
    for task, lines in (("scimif_chem", CHEM), ("scimif_bio", BIO), ("scimif_all", ALL)):
        (folder / f"samples_{task}_{ts}.jsonl").write_text("\n".join(lines) + "\n")
    return tmp_path / "run"


def rows(table: list[list[Any]]) -> dict[str, list[Any]]:
    return {str(r[0]): r[1:] for r in table[1:]}


def test_discipline_table(run_dir: Path) -> None:
    samples = report.read_samples(run_dir)
    assert len(samples) == 5
    header, *_ = report.discipline_table(samples)
    assert header[2:] == ["CSR", "ISR", "DRFR", "unscored rate", "CSR (unscored as fail)",
                          "ISR (unscored as fail)", "DRFR (unscored as fail)",
                          "± CSR", "± ISR", "± DRFR"]  # fmt: skip
    table = {k: v[:8] for k, v in rows(report.discipline_table(samples)).items()}
    errors = {k: v[8:] for k, v in rows(report.discipline_table(samples)).items()}
    # chemistry: CSR (0.5 + 1)/2, ISR 1/2, DRFR 2/3, unscored 0/3; nothing unscored, so the
    # authors' convention gives the same three
    assert table["chemistry"] == pytest.approx([2, 0.75, 0.5, 2 / 3, 0.0, 0.75, 0.5, 2 / 3])
    # bootstrap s.e. of the mean of two per-sample CSRs 0.5 and 1: resampled means 0.5,
    # 0.75, 1 with chances 1/4, 1/2, 1/4, so sd = sqrt(0.03125) = 0.177; ISR 0 and 1: 0.354
    assert errors["chemistry"][:2] == pytest.approx([0.03125**0.5, 0.125**0.5], abs=0.01)
    assert errors["Overall (mean ISR over disciplines)"] == ["", "", ""]
    # biology headline: CSR (0.75 + 1)/2 (S5 has none), ISR 1/2, DRFR (1 + 0.5 + 1)/3,
    # unscored 3/6. Unscored as fail: S3 [1, 0.5], S4 [0, 1], S5 [0] (unknown left out):
    # CSR (0.75 + 0.5 + 0)/3, ISR 0/3, DRFR 2.5/5
    assert table["biology"] == pytest.approx([3, 0.875, 0.5, 2.5 / 3, 0.5, 1.25 / 3, 0.0, 0.5])
    overall = table["Overall (mean ISR over disciplines)"]
    assert overall[2] == pytest.approx(0.5) and overall[6] == pytest.approx(0.25)
    # pooled over the five samples: CSR (0.5 + 1 + 0.75 + 1)/4, ISR 2/4, DRFR 4.5/6,
    # unscored 3/9; unscored as fail: CSR (0.5 + 1 + 0.75 + 0.5 + 0)/5, ISR 1/5, DRFR 4.5/8
    assert table["All samples pooled"] == pytest.approx(
        [5, 0.8125, 0.5, 0.75, 1 / 3, 0.55, 0.2, 0.5625]
    )


def test_source_table(run_dir: Path) -> None:
    table = {(r[0], r[1]): r[2:] for r in report.source_table(report.read_samples(run_dir))[1:]}
    # columns: chemistry, biology, all
    original = table[("original", "unscored excluded")]  # chem S2 uppercase 1; none in bio
    assert original[0] == 1.0 and math.isnan(original[1]) and original[2] == 1.0
    # core_task: chem S1 0; bio S3 0.5, S4 1, S5 unscored
    assert table[("core_task", "unscored excluded")] == pytest.approx([0.0, 0.75, 0.5])
    assert table[("core_task", "unscored as fail")] == pytest.approx([0.0, 0.5, 0.375])
    # added_general: chem S1 1; bio S3 1, S4 unscored, S5 unknown name (left out of both)
    assert table[("added_general", "unscored excluded")] == pytest.approx([1.0, 1.0, 1.0])
    assert table[("added_general", "unscored as fail")] == pytest.approx([1.0, 0.5, 2 / 3])


def test_group_and_domain_tables(run_dir: Path) -> None:
    samples = report.read_samples(run_dir)
    groups = rows(report.group_table(samples))  # columns: chemistry, biology, all
    assert groups["Format"] == pytest.approx([1.0, 1.0, 1.0])
    assert groups["Number"] == pytest.approx([0.0, 1.0, 0.5])
    assert groups["Procedure"][1:] == pytest.approx([0.5, 0.5])
    assert math.isnan(groups["Procedure"][0]) and math.isnan(groups["Selection"][2])
    # unscored as fail: Procedure in biology S3 0.5 + S5 0 -> 0.25; Selection S4 0 -> 0
    failed = rows(report.group_table(samples, unscored_as_fail=True))
    assert failed["Procedure"][1:] == pytest.approx([0.25, 0.25])
    assert failed["Selection"][1:] == pytest.approx([0.0, 0.0])
    assert failed["Number"] == groups["Number"]
    # general / scientific, then both unscored as fail. biology general: S3 1, S4 unscored;
    # scientific: S3 0.5, S4 1, S5 unscored (the unknown name has no domain)
    domains = rows(report.domain_table(samples))
    assert domains["chemistry"] == pytest.approx([1.0, 0.0, 1.0, 0.0])
    assert domains["biology"] == pytest.approx([1.0, 0.75, 0.5, 0.5])


def test_correctness_crossing(run_dir: Path) -> None:
    # (correct, ISR): (1, 0), (0, 1), (1, 0), (None, 1) -> CF 0, CV 2, IF 1, IV 0 of n = 3
    # phi = (0*0 - 2*1) / sqrt((0+2)(1+0)(0+1)(2+0)) = -1; Jaccard 0/3; chi2 = 3, p = 0.0833
    (header, row) = report.correctness_table(report.read_samples(run_dir), "m")
    values = dict(zip(header, row, strict=True))
    assert values["n"] == 3
    assert [values[k] for k in ("CF", "CV", "IF", "IV")] == pytest.approx([0, 2 / 3, 1 / 3, 0])
    assert values["phi"] == pytest.approx(-1.0) and values["Jaccard"] == 0.0
    assert values["chi2 p-value"] == pytest.approx(0.0832645, rel=1e-5)


def test_crossing_matches_scipy_on_a_larger_table() -> None:
    from scipy.stats import chi2_contingency

    pairs = [(1.0, 1.0)] * 30 + [(1.0, 0.0)] * 10 + [(0.0, 1.0)] * 15 + [(0.0, 0.0)] * 45
    c = scimif.crossing([*pairs, (None, 1.0), (1.0, None)])
    # phi = (30*45 - 10*15) / sqrt(40*60*45*55) = 1200 / 2437.21; Jaccard = 30 / 55
    assert c["n"] == 100 and c["CF"] == 0.3 and c["IV"] == 0.45
    assert c["phi"] == pytest.approx(1200 / math.sqrt(40 * 60 * 45 * 55))
    assert c["jaccard"] == pytest.approx(30 / 55)
    expected = chi2_contingency([[30, 10], [15, 45]], correction=False)
    assert c["chi2"] == pytest.approx(expected.statistic)
    assert c["p_value"] == pytest.approx(expected.pvalue)
    assert math.isnan(scimif.crossing([(1.0, 1.0)])["phi"])


def test_write_report_writes_markdown_and_csv(run_dir: Path, tmp_path: Path) -> None:
    written = report.write_report(run_dir, tmp_path / "out")
    names = {p.name for p in written}
    assert {"scimif_report.md", "scimif_groups.csv", "scimif_disciplines.csv"} <= names
    assert {"scimif_sources.csv", "scimif_groups_unscored_as_fail.csv"} <= names
    with (tmp_path / "out" / "scimif_constraints.csv").open() as fh:
        table = {r["constraint"]: r for r in csv.DictReader(fh)}
    assert table["general_judge"]["unscored"] == "1" and table["general_judge"]["scored"] == "0"
    assert float(table["biology_analysis_steps_constraint"]["DRFR"]) == 0.5
    assert (
        "| Overall (mean ISR over disciplines)"
        in (tmp_path / "out" / "scimif_report.md").read_text()
    )


def test_predict_only_samples_must_be_scored_first(tmp_path: Path) -> None:
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "samples_scimif_chem_2026.jsonl").write_text(
        '{"doc": {"discipline": "chemistry", "id": 1}}\n'
    )
    with pytest.raises(ValueError, match="run sci-score on it first"):
        report.read_samples(tmp_path)


NOTE_RED = np.array([0xB0, 0x3A, 0x2E])  # the colour of the bundled-data note on plots


def note_pixels(png: Path) -> int:
    """Pixels of the bundled-data note's colour in the top strip of a plot (its suptitle)."""
    with Image.open(png) as im:
        assert im.format == "PNG" and im.width >= 500 and im.height >= 350
        rgb = np.asarray(im.convert("RGB"), dtype=int)
    top = rgb[: rgb.shape[0] // 8]
    return int((np.abs(top - NOTE_RED).max(axis=2) < 12).sum())


def test_one_run_gets_its_plots_and_real_data_no_bundled_mark(
    run_dir: Path, tmp_path: Path
) -> None:
    written = report.write_report(run_dir, tmp_path / "out")
    pngs = [p for p in written if p.suffix == ".png"]
    assert [p.name for p in pngs] == ["scimif_disciplines.png", "scimif_groups.png"]
    text = (tmp_path / "out" / "scimif_report.md").read_text()
    assert "Bundled sample" not in text and "bundled sample data" not in text
    assert "![scimif_disciplines](scimif_disciplines.png)" in text
    for png in pngs:
        assert note_pixels(png) == 0
        with Image.open(png) as im:
            assert np.asarray(im.convert("L"), dtype=float).std() > 10  # drawn, not blank


def test_bundled_samples_are_marked_on_every_table_and_plot(tmp_path: Path) -> None:
    folder = tmp_path / "run" / "model"
    folder.mkdir(parents=True)
    source = "bundled scimif samples (no data location set)"
    lines = [json.loads(line) for line in CHEM + BIO]
    for line in lines:
        line["doc"]["data_source"] = source
    ts = "2026-11-30T10-00-00.000000"
    (folder / f"samples_scimif_chem_{ts}.jsonl").write_text(
        "\n".join(json.dumps(x) for x in lines) + "\n"
    )
    written = report.write_report(tmp_path / "run", tmp_path / "out")
    text = (tmp_path / "out" / "scimif_report.md").read_text()
    mark = " (bundled sample data: not benchmark results)"
    assert text.startswith(f"# SciMIF report{mark}")
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    tables = [h for h in headings if h != "## plots"]
    assert len(tables) == 7 and all(h.endswith(mark) for h in tables), headings
    assert f"Data: {source}." in text
    for png in (p for p in written if p.suffix == ".png"):
        assert note_pixels(png) > 200, png.name  # the note is drawn, in its colour
