"""A fourth benchmark registered as a plugin (``tests/fourth_benchmark``: unit conversions,
exact match on the number and the unit) runs through sci-eval and shows up in sci-view,
sci-report and sci-leaderboard with its ± figures, though no sci_tasks module names it.

End to end: a real ``sci-eval -m`` sweep of two model settings against a scripted
OpenAI-compatible server on loopback (each model's eight replies written below), the
benchmark registered only by ``SCI_TASKS_BENCHMARKS=tests.fourth_benchmark``. Every value
is checked against the hand-counted scores of the scripted replies, and each ± against a
bootstrap computed here with numpy (and the binomial standard error it approximates).
"""

from __future__ import annotations

import csv
import json
import math
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import sci_tasks
from sci_tasks import benchmarks, view
from sci_tasks.data.locate import DataError

from .helpers import console_script, loopback_env, ok, scripted_model_args
from .misbehaving import completion, scripted_server

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = "tests.fourth_benchmark"
# each model's reply to each question, and (number right, unit right) as a reader counts it
REPLIES: dict[str, dict[str, tuple[str, bool, bool]]] = {
    "units-a": {
        "Convert 2.5 km to m.": ("2500 m", True, True),
        "Convert 350 g to kg.": ("0.35 kg", True, True),
        "Convert 1.2 L to mL.": ("1200 ml", True, False),  # case counts: ml is not mL
        "Convert 90 min to h.": ("1.5 h", True, True),
        "Convert 3 ft to in.": ("36 in", True, True),
        "Convert 2 lb to oz.": ("32 oz", True, True),
        "Convert 10 mi to km (1 mi = 1.609344 km).": ("16.1 km", False, True),
        "Convert 5 US gal to US qt.": ("I think it is 20 qt", True, True),
    },
    "units-b": {
        "Convert 2.5 km to m.": ("2.5 km", False, False),
        "Convert 350 g to kg.": ("3.5e-1 kg", True, True),
        "Convert 1.2 L to mL.": ("1200 mL", True, True),
        "Convert 90 min to h.": ("1.5 hours", True, False),
        "Convert 3 ft to in.": ("36 in", True, True),
        "Convert 2 lb to oz.": ("no idea", False, False),
        "Convert 10 mi to km (1 mi = 1.609344 km).": ("16.09344 km", True, True),
        "Convert 5 US gal to US qt.": ("20 qt", True, True),
    },
}
METRIC = ("u1", "u2", "u3", "u4")  # the first four questions are metric-to-metric


def scores(model: str) -> tuple[list[float], list[float]]:
    """(number, exact) of each question, in file order, as hand-counted above."""
    marks = REPLIES[model].values()
    return [float(n) for _, n, _ in marks], [float(n and u) for _, n, u in marks]


def bootstrap_se(values: list[float], iters: int = 1000, seed: int = 1234) -> float:
    """The standard error of a mean by resampling the questions (numpy, written here)."""
    data = np.array(values)
    draws = np.random.default_rng(seed).integers(0, len(data), size=(iters, len(data)))
    return float(data[draws].mean(axis=1).std(ddof=1))


def test_scoring_by_hand() -> None:
    from tests.fourth_benchmark import metrics

    assert metrics.parse("I think it is 20 qt") == (20.0, "qt")
    assert metrics.parse("3.5e-1 kg") == (0.35, "kg")
    assert metrics.parse("no idea") == (None, "")
    doc = {"id": "u3", "kind": "metric", "value": 1200.0, "unit": "mL"}
    assert metrics.process_results(doc, ["1200 ml"])["number"] == 1.0
    assert metrics.process_results(doc, ["1200 ml"])["exact"] == 0.0
    record = metrics.score(doc, "no idea")
    assert (record["number"], record["exact"], record["prediction"]) == (0.0, 0.0, None)
    (number, unit) = metrics.checks(record)
    assert number.score == 0.0 and number.reason == "no number in the reply"
    assert number.group == "metric" and unit.judge == "rule"


def test_it_registers_only_through_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(benchmarks.PLUGINS_ENV, raising=False)
    assert "units" not in benchmarks.names()
    monkeypatch.setenv(benchmarks.PLUGINS_ENV, PLUGIN)
    assert benchmarks.names()[-1] == "units"
    units = benchmarks.get("units")
    assert units.task_folder() == ROOT / "tests" / "fourth_benchmark" / "tasks"
    assert sci_tasks.task_folders() == [sci_tasks.include_path(), str(units.task_folder())]
    assert benchmarks.of_task("units_imperial") is units


def test_a_bad_record_names_its_file_and_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(benchmarks.PLUGINS_ENV, PLUGIN)
    from tests.fourth_benchmark import loader

    good = (ROOT / "tests/fourth_benchmark/data/units.jsonl").read_text().splitlines()
    (tmp_path / "units.jsonl").write_text(
        "\n".join([good[0], good[1].replace('"value": 0.35', '"value": "0.35"')]) + "\n"
    )
    with pytest.raises(DataError, match=r"units\.jsonl:2: value '0\.35' is not a number"):
        loader.load({"UNITS_DATA_DIR": str(tmp_path)})
    assert len(loader.load()) == 8 and len(loader.load(kind="metric")) == 4


def answer(payload: dict[str, Any]) -> tuple[int, str, bytes]:
    """The scripted server: the reply of the requested model to the question asked."""
    text = json.dumps(payload["messages"])
    for question, (reply, _, _) in REPLIES[payload["model"]].items():
        if json.dumps(question)[1:-1] in text:
            return 200, "application/json", completion(reply, payload["model"])
    return 400, "text/plain", b"unknown question"


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A sci-eval sweep over the two model settings, the plugin named in the environment."""
    tmp = tmp_path_factory.mktemp("units")
    env = loopback_env(tmp, SCI_TASKS_BENCHMARKS=PLUGIN, PYTHONPATH=str(ROOT))
    env.pop("UNITS_DATA_DIR", None)
    with scripted_server(answer) as server:
        ok(subprocess.run(
            [console_script("sci-eval"), "-m",
             *scripted_model_args(server.chat_url, "model.args.max_retries=1", "use_cache=false"),
             "model.args.model=units-a,units-b", "tasks.name=units", "tasks.names=[units]",
             "sweep_name=units"],
            capture_output=True, text=True, cwd=tmp, env=env, timeout=900,
        ))  # fmt: skip
        assert len(server.requests) == 16  # 2 models x 8 questions, each asked once
    return tmp / "sci-eval-sweeps" / "units"


def job_of(sweep: Path, model: str) -> Path:
    (job,) = [p for p in sweep.iterdir() if p.name.startswith(f"{model}__")]
    return job


def test_sweep_results_are_the_hand_counted_scores(sweep: Path) -> None:
    for model in REPLIES:
        (path,) = job_of(sweep, model).rglob("results_*.json")
        results = json.loads(path.read_text())["results"]
        number, exact = scores(model)
        assert results["units"]["number,none"] == pytest.approx(sum(number) / 8)
        assert results["units"]["exact,none"] == pytest.approx(sum(exact) / 8)
        assert results["units_metric"]["exact,none"] == pytest.approx(sum(exact[:4]) / 4)
    # by hand: a gets 7 numbers and 6 exact answers of 8; b 6 and 5
    assert [sum(scores(m)[0]) for m in REPLIES] == [7, 6]
    assert [sum(scores(m)[1]) for m in REPLIES] == [6, 5]


def test_sci_view_renders_its_checks(sweep: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(benchmarks.PLUGINS_ENV, PLUGIN)
    runs = {r.label: r for r in view.find_runs(sweep)}
    assert sorted(runs) == sorted(REPLIES)
    run = runs["units-a"]
    by_id = {r["doc"]["id"]: r for r in run.samples["units_metric"]}
    assert view.checks_of("units_metric", by_id["u3"]) == [
        {"name": "number", "score": 1.0, "verdict": "pass", "group": "metric",
         "reason": "said 1200, answer 1200", "judge": "rule"},
        {"name": "unit", "score": 0.0, "verdict": "fail", "group": "metric",
         "reason": "said ml, answer mL", "judge": "rule"},
    ]  # fmt: skip
    data = view.page_data(sweep, list(runs.values()), [])
    strings = data["strings"]
    shown = {
        (strings[c["name"]], data["verdicts"][c["verdict"]])
        for s in data["samples"]
        for c in s["checks"]
    }
    assert shown == {("number", "pass"), ("number", "fail"), ("unit", "pass"), ("unit", "fail")}
    rows = {name: text for name, text, _ in view.summary_rows(run, "units_metric", 1000)}
    assert rows["exact"].startswith("0.7500 ± ")  # 3 of the 4 metric questions


def test_sci_report_writes_its_table(sweep: Path) -> None:
    job = job_of(sweep, "units-a")
    env = {**os.environ, "SCI_TASKS_BENCHMARKS": PLUGIN, "PYTHONPATH": str(ROOT)}
    out = ok(subprocess.run([console_script("sci-report"), str(job)], capture_output=True,
                            text=True, env=env, timeout=300))  # fmt: skip
    assert str(job / "report" / "units.md") in out.stdout.splitlines()
    with (job / "report" / "units.csv").open(newline="") as fh:
        rows = {r["kind"]: r for r in csv.DictReader(fh)}
    number, exact = scores("units-a")
    assert float(rows["metric"]["number"]) == 1.0 and float(rows["metric"]["exact"]) == 0.75
    assert float(rows["imperial"]["number"]) == 0.75 and float(rows["all"]["exact"]) == 0.75
    assert float(rows["all"]["± exact"]) == pytest.approx(bootstrap_se(exact), abs=1e-12)
    assert float(rows["all"]["± number"]) == pytest.approx(bootstrap_se(number), abs=1e-12)
    assert (
        "| **all** | **8** | **0.875** | **0.750** |" in (job / "report" / "units.md").read_text()
    )


def test_sci_score_rescores_it_to_the_same_scores(sweep: Path, tmp_path: Path) -> None:
    """sci-score re-scores a plugin's plain lm-eval task (its scorer takes no run settings)
    from the logged documents and responses: the hand-counted scores again."""
    job = tmp_path / "job"  # a copy: the module's sweep stays as sci-eval left it
    shutil.copytree(job_of(sweep, "units-a"), job)
    env = {**os.environ, "SCI_TASKS_BENCHMARKS": PLUGIN, "PYTHONPATH": str(ROOT)}
    ok(subprocess.run([console_script("sci-score"), f"run_dir={job}"], capture_output=True,
                      text=True, cwd=job, env=env, timeout=300))  # fmt: skip
    (path,) = (job / "scores" / "none").rglob("results_*.json")
    results = json.loads(path.read_text())["results"]
    number, exact = scores("units-a")
    assert results["units"]["number,none"] == pytest.approx(sum(number) / 8) == 7 / 8
    assert results["units"]["exact,none"] == pytest.approx(sum(exact) / 8) == 6 / 8


def test_sci_leaderboard_shows_its_columns_with_the_error(sweep: Path) -> None:
    env = {**os.environ, "SCI_TASKS_BENCHMARKS": PLUGIN, "PYTHONPATH": str(ROOT)}
    ok(subprocess.run([console_script("sci-leaderboard"), str(sweep)], capture_output=True,
                      text=True, env=env, timeout=300))  # fmt: skip
    out = sweep / "leaderboard"
    with (out / "leaderboard.csv").open(newline="") as fh:
        rows = {r["model"]: r for r in csv.DictReader(fh)}
    markdown = (out / "leaderboard.md").read_text()
    # its own section: "## Units", a table of model, questions, Number and Exact
    section = markdown.split("\n## Units\n", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("| ")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    for model in REPLIES:
        number, exact = scores(model)
        assert float(rows[model]["Units Number"]) == pytest.approx(sum(number) / 8)
        assert float(rows[model]["Units Exact"]) == pytest.approx(sum(exact) / 8)
        (line,) = [x for x in lines if x.startswith(f"| {model} ")]
        cells = dict(zip(head, (c.strip() for c in line.strip("|").split("|")), strict=True))
        assert cells["questions"] == "8"
        for column, values in (("Number", number), ("Exact", exact)):
            match = re.fullmatch(r"(\d\.\d+) ± (\d\.\d+)", cells[column])
            assert match, cells[column]
            assert float(match[1]) == sum(values) / 8
            se = bootstrap_se(values)
            assert float(match[2]) == pytest.approx(se, abs=5e-5)  # printed to 4 places
            p = sum(values) / 8  # the bootstrap's s.e. is near the binomial sqrt(p(1-p)/n)
            assert se == pytest.approx(math.sqrt(p * (1 - p) / 8), rel=0.1)
    with (out / "pairwise.csv").open(newline="") as fh:
        pairs = [r for r in csv.DictReader(fh) if r["column"].startswith("Units")]
    assert {r["column"]: float(r["a - b"]) for r in pairs} == pytest.approx(
        {"Units Number": 0.125, "Units Exact": 0.125}
    )
    assert [r["paired samples"] for r in pairs] == ["8", "8"]  # every question paired


def test_sci_report_names_a_bad_samples_line_and_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from sci_tasks.report import cli

    monkeypatch.setenv(benchmarks.PLUGINS_ENV, PLUGIN)
    path = tmp_path / "samples_units_metric_2026-12-02T00-00-00.jsonl"
    path.write_text(json.dumps({"doc_id": 0, "doc": {"id": "u1"}, "number": 1.0}) + "\n")
    with pytest.raises(SystemExit) as exited:
        cli.main([str(tmp_path)])
    assert exited.value.code == 1
    err = capsys.readouterr().err.strip()
    assert err == (
        f"sci-report: Units: {path}:1: no per-sample 'record' entry, so no scores "
        "(predict-only?): run sci-score on it first"
    )
