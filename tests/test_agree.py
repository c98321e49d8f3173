"""``sci-agree`` on a real run: ``sci-eval`` on the bundled SciMIF text samples against a
scripted loopback server (replies varied by prompt, so checks pass and fail), its blind
export, sheets filled from the run's own verdicts with known changes, a ``sci-score``
re-scoring, and ``sci-view`` on the disagreements. Expected kappas are computed by hand
below, as numbers."""

from __future__ import annotations

import csv
import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa, fleiss_kappa

from sci_tasks import view
from sci_tasks.agree import cli, kappa

from .commands import run_ok
from .helpers import console_script, loopback_env, scripted_model_args
from .misbehaving import completion, scripted_server
from .view_helpers import page_data

REPLIES = (
    "final answer: 4",
    "FINAL ANSWER: 4",
    '```json\n{"a": 1}\n```',
    "The answer is \\boxed{4.00} m",
)
BLIND = {"score", "verdict", "reason", "judge", "scores", "verdicts", "record"}


def reply(payload: dict[str, Any]) -> tuple[int, str, bytes]:
    digest = hashlib.sha1(json.dumps(payload["messages"]).encode()).hexdigest()
    return 200, "application/json", completion(REPLIES[int(digest, 16) % len(REPLIES)])


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real sci-eval run folder (no judge: judged constraints are unscored)."""
    tmp = tmp_path_factory.mktemp("agree")
    with scripted_server(reply) as server:
        run_ok(
            "sci-eval", *scripted_model_args(server.chat_url, "use_cache=false"),
            "tasks=scimif_text", "hydra.run.dir=run", cwd=tmp, env=loopback_env(tmp),
        )  # fmt: skip
    return tmp / "run"


def run_scores(run: Path) -> dict[str, float | None]:
    """item_id -> the run's score, read straight from its samples files."""
    out = {}
    for path in run.rglob("samples_*.jsonl"):
        task = path.stem.removeprefix("samples_").rsplit("_", 1)[0]
        for line in path.read_text(encoding="utf-8").splitlines():
            sample = json.loads(line)
            for i, verdict in enumerate(sample["record"]["constraints"]):
                out[f"{task}/{sample['doc_id']}/{i}/{verdict['constraint']}"] = verdict["score"]
    return out


def export_all(run: Path, sheet: Path, *more: str) -> list[dict[str, Any]]:
    cli.main(["export", str(run), "--out", str(sheet), "--n", "1000", *more])
    return [json.loads(line) for line in sheet.read_text(encoding="utf-8").splitlines()]


def write_sheet(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def scored(run: Path, value: float, count: int) -> list[str]:
    """``count`` item ids the run scored ``value`` (sorted: the same ones every time)."""
    ids = sorted(k for k, v in run_scores(run).items() if v == value)
    assert len(ids) >= count, f"the run scored only {len(ids)} item(s) {value}"
    return ids[:count]


def overall(printed: str) -> list[str]:
    (row,) = [line for line in printed.splitlines() if line.startswith("| all ")]
    return [cell.strip() for cell in row.strip("|").split("|")]


def test_a_sheet_with_k_disagreements_gives_the_hand_computed_kappa(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """6 items the run passed, 6 it failed, labelled as the run did except k = 3: two
    passes labelled 0, one failure labelled 1; two more labelled undecidable; the rest of
    the sheet left unlabelled.

    By hand: agreement p_o = 9/12 = 0.75. The run says 1 on 6/12 = 0.5; the sheet on
    (6 - 2 + 1)/12 = 5/12. p_e = 0.5 * 5/12 + 0.5 * 7/12 = 0.5.
    kappa = (0.75 - 0.5) / (1 - 0.5) = 0.5."""
    lines = export_all(run, tmp_path / "blank.jsonl")
    ones, zeros = scored(run, 1.0, 6), scored(run, 0.0, 8)
    labels = {k: 1 for k in ones} | {k: 0 for k in zeros[:6]}
    labels |= {ones[0]: 0, ones[1]: 0, zeros[0]: 1}  # the k = 3 disagreements
    labels |= {zeros[6]: "undecidable", zeros[7]: "undecidable"}
    sheet = write_sheet(
        tmp_path / "sheet.jsonl", [{**line, "label": labels.get(line["item_id"])} for line in lines]
    )
    out = tmp_path / "agreement"
    cli.main([str(run), str(sheet), "--out", str(out)])
    printed = capsys.readouterr().out
    assert overall(printed) == ["all", "12", "0.750", "0.500", overall(printed)[4]]
    assert "14 item(s) have a value in every source; 2 of them unscored or undecidable" in printed
    assert f"{len(lines) - 14} line(s) not labelled yet" in printed
    assert "rows " + str(run) + ", columns " + str(sheet) in printed
    with (out / "agreement.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["constraint", "n", "agreement", "kappa", "kappa_low", "kappa_high"]
    (total,) = [r for r in rows if r[0] == "all"]
    assert total[1] == "12" and float(total[2]) == 0.75 and float(total[3]) == pytest.approx(0.5)
    assert float(total[4]) <= 0.5 <= float(total[5])
    # the libraries on the same 12 pairs
    run_side = [1] * 6 + [0] * 6
    sheet_side = [0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0]
    assert cohen_kappa_score(run_side, sheet_side) == pytest.approx(0.5)
    disagreements = [json.loads(x) for x in (out / "disagreements.jsonl").read_text().splitlines()]
    assert len(disagreements) == 5 and sum(d["in_kappa"] for d in disagreements) == 3
    changed = {d["item_id"]: d["values"][str(sheet)] for d in disagreements if d["in_kappa"]}
    assert changed == {ones[0]: 0, ones[1]: 0, zeros[0]: 1}


def test_export_is_blind_stratified_and_reproducible(run: Path, tmp_path: Path) -> None:
    scores = run_scores(run)
    first = export_all(run, tmp_path / "a.jsonl")
    assert len(first) == len(scores) and {line["item_id"] for line in first} == set(scores)
    for line in first:
        assert not BLIND & set(line), line  # no score, verdict, reason or judge
        assert set(line) <= {"item_id", "task", "doc_id", "constraint", "question", "reply",
                             "requirement", "images", "label"}  # fmt: skip
        assert line["label"] is None and line["question"].strip() and "text" in line["requirement"]
    lowercase = next(line for line in first if line["constraint"] == "general_all_lowercase")
    assert lowercase["requirement"]["text"].endswith("is all lowercase")
    cli.main(["export", str(run), "--out", str(tmp_path / "b.jsonl"), "--n", "20"])
    cli.main(["export", str(run), "--out", str(tmp_path / "c.jsonl"), "--n", "20"])
    cli.main(["export", str(run), "--out", str(tmp_path / "d.jsonl"), "--n", "20", "--seed", "2"])
    b, c, d = ((tmp_path / f"{x}.jsonl").read_text() for x in "bcd")
    assert b == c and b != d and len(b.splitlines()) == 20
    constraints = {line["constraint"] for line in first}
    taken = [json.loads(line)["constraint"] for line in b.splitlines()]
    counts = {name: taken.count(name) for name in constraints}
    # 20 of about 28 constraints: no constraint twice while another has none
    assert max(counts.values()) == 1 if len(constraints) >= 20 else min(counts.values()) >= 1
    only = export_all(run, tmp_path / "e.jsonl", "--constraints", "general_all_lowercase")
    assert {line["constraint"] for line in only} == {"general_all_lowercase"}


def test_fleiss_kappa_of_three_sources_equals_statsmodels_and_the_hand_value(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Items 1-6 the run passed, 7-12 it failed. Sheet A labels 1 and 2 as 0; sheet B
    labels 1 as 0 and 7 as 1. Ones per item (of 3): 1, 2, 3, 3, 3, 3, 1, 0, 0, 0, 0, 0.

    By hand: P_i = (n1(n1-1) + n0(n0-1)) / 6 is 1/3 for items 1, 2, 7 and 1 for the rest:
    P = (3 * 1/3 + 9) / 12 = 5/6. p1 = 16/36, p0 = 20/36, P_e = (256 + 400) / 1296 = 41/81.
    kappa = (5/6 - 41/81) / (1 - 41/81) = 0.6625."""
    lines = export_all(run, tmp_path / "blank.jsonl")
    ones, zeros = scored(run, 1.0, 6), scored(run, 0.0, 6)
    base = {k: 1 for k in ones} | {k: 0 for k in zeros}
    a = write_sheet(tmp_path / "a.jsonl", [
        {**x, "label": (base | {ones[0]: 0, ones[1]: 0}).get(x["item_id"])} for x in lines
    ])  # fmt: skip
    b = write_sheet(tmp_path / "b.jsonl", [
        {**x, "label": (base | {ones[0]: 0, zeros[0]: 1}).get(x["item_id"])} for x in lines
    ])  # fmt: skip
    out = tmp_path / "three"
    cli.main([str(run), str(a), str(b), "--out", str(out)])
    printed = capsys.readouterr().out
    assert "Fleiss' kappa" in printed
    (total,) = [r for r in csv.reader((out / "agreement.csv").open()) if r[0] == "all"]
    assert float(total[3]) == pytest.approx(0.6625)
    assert float(total[2]) == pytest.approx(9 / 12)  # items 3-6 and 8-12: all agree
    matrix = np.array(
        [[1, 0, 0], [1, 0, 1], *[[1, 1, 1]] * 4, [0, 0, 1], *[[0, 0, 0]] * 5], dtype=float
    )
    assert fleiss_kappa(aggregate_raters(matrix)[0]) == pytest.approx(0.6625)
    assert kappa.kappa(matrix) == pytest.approx(0.6625)


def test_a_rescoring_agrees_with_its_run(run: Path, tmp_path: Path) -> None:
    """A sci-score output folder is a source: the same checks without a judge agree
    fully, item by item; the console script runs as installed."""
    run_ok("sci-score", f"run_dir={run}", cwd=tmp_path, env=loopback_env(tmp_path))
    (scores,) = (run / "scores").iterdir()
    out = subprocess.run(
        [console_script("sci-agree"), str(run), str(scores), "--out", str(tmp_path / "r")],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    n = sum(v is not None for v in run_scores(run).values())
    assert overall(out.stdout)[:4] == ["all", str(n), "1.000", "1.000"]
    assert (tmp_path / "r" / "disagreements.jsonl").read_text() == ""


def test_kappa_with_one_category_is_said_undefined(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = export_all(run, tmp_path / "blank.jsonl")
    zeros = set(scored(run, 0.0, 3))
    sheet = write_sheet(tmp_path / "s.jsonl", [
        {**x, "label": 0 if x["item_id"] in zeros else None} for x in lines
    ])  # fmt: skip
    cli.main([str(run), str(sheet), "--out", str(tmp_path / "u")])
    assert overall(capsys.readouterr().out)[:4] == ["all", "3", "1.000", kappa_undefined()]
    (total,) = [r for r in csv.reader((tmp_path / "u" / "agreement.csv").open()) if r[0] == "all"]
    assert total == ["all", "3", "1.0", "", "", ""]
    assert kappa.agreement([(1.0, 1.0)] * 5).kappa is None


def kappa_undefined() -> str:
    return "undefined (one category only)"


@pytest.mark.parametrize(
    "bad, said",
    [
        ('{"item_id": "x", "label": 1}\n{"item_id": "y", "label": 1', ":2: invalid JSON"),
        ('{"item_id": "x", "label": 1}\n{"item_id": "y", "label": 2}',
         ':2: label must be 1, 0 or "undecidable", got 2'),
        ('{"item_id": "x", "label": "yes"}', ":1: label must be 1, 0 or \"undecidable\""),
        ('{"item_id": "x", "label": 1}\n{"item_id": "x", "label": 0}', ":2: duplicate id 'x'"),
        ('{"label": 1}', ":1: no item_id"),
    ],
)  # fmt: skip
def test_bad_sheet_lines_are_one_line_errors_naming_file_and_line(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], bad: str, said: str
) -> None:
    sheet = tmp_path / "sheet.jsonl"
    sheet.write_text(bad + "\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_info:
        cli.main([str(run), str(sheet)])
    assert exit_info.value.code == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"sci-agree: {sheet}{said}") and "\n" not in err


def test_a_folder_without_samples_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "empty").mkdir()
    for argv in (["export", str(tmp_path / "empty"), "--out", "x.jsonl"],
                 [str(tmp_path / "empty"), str(tmp_path / "empty")]):  # fmt: skip
        with pytest.raises(SystemExit) as exit_info:
            cli.main(argv)
        assert exit_info.value.code == 1
        err = capsys.readouterr().err.strip()
        assert err.startswith(f"sci-agree: {tmp_path / 'empty'}: no samples_*.jsonl here"), err


def test_the_bootstrap_is_seeded_and_its_tables_give_scikit_learns_kappa() -> None:
    rng = np.random.default_rng(7)
    a = rng.integers(0, 2, 60).astype(float)
    b = np.where(rng.random(60) < 0.8, a, 1 - a)
    table = np.array([[np.sum((a == i) & (b == j)) for j in (0, 1)] for i in (0, 1)])
    assert cohens_kappa(table, return_results=False) == pytest.approx(cohen_kappa_score(a, b))
    rows = np.stack([a, b], axis=1)
    first, again = kappa.agreement(rows, seed=3), kappa.agreement(rows, seed=3)
    other = kappa.agreement(rows, seed=4)
    assert (first.low, first.high) == (again.low, again.high) != (other.low, other.high)
    assert first.low is not None and first.high is not None
    assert first.low < cohen_kappa_score(a, b) < first.high


def test_sci_view_shows_just_the_disagreements(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = export_all(run, tmp_path / "blank.jsonl")
    ones, zeros = scored(run, 1.0, 2), scored(run, 0.0, 3)
    labels = {ones[0]: 0, ones[1]: 1, zeros[0]: 1, zeros[1]: 0, zeros[2]: "undecidable"}
    sheet = write_sheet(
        tmp_path / "s.jsonl", [{**x, "label": labels.get(x["item_id"])} for x in lines]
    )
    cli.main([str(run), str(sheet), "--out", str(tmp_path / "d")])
    capsys.readouterr()
    view.main([str(tmp_path / "d" / "disagreements.jsonl")])
    page = tmp_path / "d" / "disagreements.html"
    assert capsys.readouterr().out.strip() == str(page)
    data = page_data(page)
    assert [r["label"] for r in data["runs"]] == [str(run), str(sheet)]
    checks = {}  # (source, check name, item) -> verdict
    for sample in data["samples"]:
        for check in sample["checks"]:
            item = data["strings"][check["reason"]].split("item ")[1].split(";")[0]
            name = data["strings"][check["name"]]
            checks[(sample["run"], name, item)] = data["verdicts"][check["verdict"]]
    disputed = {ones[0], zeros[0], zeros[2]}  # the other two agree: not on the page
    assert {item for _, _, item in checks} == disputed
    assert checks[(0, ones[0].split("/")[-1], ones[0])] == "pass"
    assert checks[(1, ones[0].split("/")[-1], ones[0])] == "fail"
    assert checks[(1, zeros[2].split("/")[-1], zeros[2])] == "unscored"
    assert len(data["docs"]) == len({tuple(i.split("/")[:2]) for i in disputed})


def test_sci_view_on_no_disagreement_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "disagreements.jsonl"
    empty.write_text("")
    with pytest.raises(SystemExit) as exit_info:
        view.main([str(empty)])
    assert exit_info.value.code == 1
    said = f"sci-view: {empty}: no item on which the sources differ, nothing to show"
    assert capsys.readouterr().err.strip() == said
