"""SciGen-Verify and SciGen-Rubric end to end: stock ``lm_eval`` with ``local-chat-completions``
against a real llm-katan echo server on loopback, then ``sci-score`` re-scoring the saved
outputs with a judge (a second llm-katan) without regenerating, then the report.

The echo reply repeats the user message, with one ``[image:image/png]`` marker per image
part it received, so the logged replies show that each record's images reached the server.
A reply that merely repeats the prompt carries no judgement and no rubric (the prompts'
answer lines are placeholders). To get replies that DO carry verdicts through the same real
path, the second run reads a data folder written here whose instructions end with a
verifier-style answer: the echo repeats it, so the "model" answers exactly what the test
wrote, and every expected value below is counted by hand from those answers.

The image tasks and the text-only rubric task run as two ``lm_eval`` invocations into the
same output folder: lm-eval's API models cannot batch requests with and without images in
one run (``api_models.generate_until`` unpacks every request as the first one)."""

from __future__ import annotations

import csv
import json
import math
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

import sci_tasks
from sci_tasks.benchmarks.scigen_verify.report import load_records, write_report
from sci_tasks.benchmarks.scigen_verify.report import main as report_main
from sci_tasks.data.locate import samples_dir

from .commands import run_ok as run
from .helpers import bundled_lines
from .servers import KATAN_KEY, Katan

MARKER = "[image:image/png]"
CATEGORY_TASKS = (
    "scigen_verify_instruction_following",
    "scigen_verify_multidisciplinary_reasoning",
    "scigen_verify_world_knowledge",
)
VERIFY_METRICS = ("acc_a", "acc_e", "acc_i", "acc_e_unscored", "acc_i_unscored",
                  "unparsed_rate", "bundled_samples")  # fmt: skip
RUBRIC_METRICS = ("rr", "nhr", "sf1", "rubric_unscored", "rubric_unparsed", "weights_off",
                  "rubric_points", "bundled_samples")  # fmt: skip
JUDGE_KEY = "sk-FAKEJUDGEKEY-scigen-0123456789"


@pytest.fixture()
def env() -> dict[str, str]:
    out = {
        **os.environ,
        "OPENAI_API_KEY": KATAN_KEY,
        "SCI_TASKS_JUDGE_API_KEY": JUDGE_KEY,
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
    }
    for key in ("SCI_TASKS_DATA_DIR", "SCIGEN_VERIFY_DATA_DIR"):
        out.pop(key, None)
    for key in [
        k for k in out if k.startswith("SCI_TASKS_JUDGE_") and k != "SCI_TASKS_JUDGE_API_KEY"
    ]:
        out.pop(key)  # no judge while generating
    return out


def lm_eval(model: Katan, out: Path, tasks: str, env: dict[str, str], *extra: str) -> None:
    run(
        "lm_eval", "--model", "local-chat-completions",
        "--model_args", f"model={model.model},base_url={model.chat_url},max_images=2,"
        "num_concurrent=2,max_retries=1",
        "--apply_chat_template", "--tasks", tasks, "--include_path", sci_tasks.include_path(),
        "--log_samples", "--output_path", str(out), *extra,
        cwd=out.parent, env=env,
    )  # fmt: skip


def sci_score(
    run_dir: Path, judge: Katan, name: str, mode: str, cache: Path, env: dict[str, str], runs: int
) -> tuple[dict[str, Any], int]:
    """Re-score every lm-eval run under ``run_dir``: (merged results, judge calls made)."""
    folder = run_dir / "scores" / name
    before = set(folder.rglob("results_*.json"))
    run(
        "sci-score", f"run_dir={run_dir}", "judge=local_api", f"judge.model={judge.model}",
        f"judge.base_url={judge.base_url}", f"judge.name={name}",
        f"judge.structured_output={mode}", f"judge.cache_dir={cache}", "judge.max_attempts=2",
        "judge.backoff_initial=0.05", cwd=run_dir.parent, env=env,
    )  # fmt: skip
    written = [json.loads(p.read_text()) for p in set(folder.rglob("results_*.json")) - before]
    assert len(written) == runs  # one per lm-eval run found under run_dir
    results = {k: v for w in written for k, v in w["results"].items()}
    # each results file counts the judge calls its own run made
    return results, sum(w["rescored"]["judge_calls"] for w in written)


def results_of(out: Path, runs: int) -> dict[str, Any]:
    paths = [p for p in out.rglob("results_*.json") if "scores" not in p.parts]
    assert len(paths) == runs
    return {k: v for p in paths for k, v in json.loads(p.read_text())["results"].items()}


def samples(out: Path, task: str) -> list[dict[str, Any]]:
    (path,) = [p for p in out.rglob(f"samples_{task}_*.jsonl") if "scores" not in p.parts]
    return [json.loads(line) for line in path.read_text().splitlines()]


# --- run 1: the bundled samples --------------------------------------------------------------


def test_bundled_samples_images_arrive_and_an_echo_earns_nothing(
    tmp_path: Path, env: dict[str, str], model: Katan, judge: Katan
) -> None:
    out = tmp_path / "run"
    asked = (model.requests_received(), judge.requests_received())  # servers of the module
    lm_eval(model, out, "scigen_verify", env)
    assert model.requests_received() - asked[0] == len(bundled_lines("scigen_verify"))

    results = results_of(out, 1)
    for task in CATEGORY_TASKS:
        for metric in VERIFY_METRICS:
            assert f"{metric},none" in results[task], (task, metric)

    editing = 0
    for task in CATEGORY_TASKS:
        for row in samples(out, task):
            doc, reply = row["doc"], row["resps"][0][0]
            # one marker per image: the source image(s) of an editing record, then the
            # candidate(s); max_images=2 lets both through
            n_images = len(doc["source_images"]) + len(doc["images"])
            assert reply.count(MARKER) == n_images >= 1, reply[:300]
            assert doc["instruction"] in reply
            editing += n_images == 2
            record = row["record"]
            assert row["acc_a"] == record["acc_a"] == 0.0  # a number: lm-eval's stderr
            # the echo repeats the prompt: its placeholder answer is no judgement
            assert record["judgement"] is None and record["tagged"]
            assert (record["acc_a"], record["acc_e"]) == (0.0, 0.0)
            assert record["acc_i"] == (None if doc["label"] else 0.0)
    assert editing == 2
    for task in CATEGORY_TASKS:
        values = results[task]
        assert (values["acc_a,none"], values["acc_e,none"], values["acc_i,none"]) == (0, 0, 0)
        assert values["acc_e_unscored,none"] == 0 and values["acc_i_unscored,none"] == 0
        assert values["unparsed_rate,none"] == 1.0 and values["bundled_samples,none"] == 1.0
    group = results["scigen_verify"]
    assert group["acc_a,none"] == 0.0 and group["bundled_samples,none"] == 1.0

    # re-scoring with a judge: rules decide everything, so the judge is never asked
    rescored, calls = sci_score(out, judge, "katan-tool", "tool", tmp_path / "cache", env, 1)
    assert judge.requests_received() - asked[1] == 0 == calls
    assert rescored["scigen_verify"]["acc_a,none"] == 0.0
    assert rescored["scigen_verify"]["bundled_samples,none"] == 1.0

    records, files = load_records(out / "scores" / "katan-tool")
    assert len(records) == len(bundled_lines("scigen_verify")) and len(files) == 3
    originals, files = load_records(out)  # the run itself: its re-scores are not mixed in
    assert len(originals) == len(records) and all("scores" not in p.parts for p in files)
    report_main([str(out / "scores" / "katan-tool"), str(tmp_path / "report")])
    md, table = tmp_path / "report" / "scigen_verify.md", tmp_path / "report" / "scigen_verify.csv"
    text = md.read_text()
    assert "**Bundled sample records: these numbers are not benchmark results.**" in text
    assert "| all | 16 | 9 | 0.000 | 0.000 | 0.000 | 0 | 0 | 16 |" in text
    rows = list(csv.reader(table.open()))
    assert rows[0][:4] == ["group", "name", "samples", "negatives"]
    assert [r[1] for r in rows[1:]] == [
        "instruction_following", "multidisciplinary_reasoning", "world_knowledge",
        "mathematics", "physics", "chemistry", "biology", "geography", "all",
    ]  # fmt: skip


# --- run 2: replies that carry verdicts -------------------------------------------------------


def write_folder(root: Path) -> Path:
    """Six instruction-following records whose instructions end with the verifier answer the
    echo will repeat, and two rubric records (one ending with a JSON rubric)."""
    bundled = samples_dir("scigen_verify") / "images"
    for rel in ("physics/fbd_correct.png", "physics/fbd_normal_down.png",
                "chemistry/benzene_kekule.png", "mathematics/parabola_correct.png",
                "mathematics/parabola_axes_swapped.png"):  # fmt: skip
        (root / "img").mkdir(parents=True, exist_ok=True)
        shutil.copy(bundled / rel, root / "img" / Path(rel).name)

    def rec(
        id_: str, discipline: str, label: bool, said: str, image: str, **kw: Any
    ) -> dict[str, Any]:
        return {
            "id": id_, "category": "instruction_following", "discipline": discipline,
            "instruction": f"Draw the requested {discipline} figure. {said}",
            "images": [f"img/{image}"], "label": label,
            "explanation": f"reference explanation of {id_}",
            **({} if label else {"edit": f"reference edit of {id_}"}), **kw,
        }  # fmt: skip

    rows = [
        rec("b1", "physics", True,
            "<answer>true</answer><explanation>Both forces are right.</explanation>",
            "fbd_correct.png"),
        rec("b2", "physics", False,
            "<answer>false</answer><explanation>N points down.</explanation>"
            "<edit>Point N up.</edit>", "fbd_normal_down.png"),
        rec("b3", "chemistry", False,
            "<answer>false</answer><explanation>Two double bonds.</explanation>"
            "<edit>Add the third double bond.</edit>", "benzene_kekule.png"),
        rec("b4", "chemistry", False, "<answer>true</answer>", "benzene_kekule.png"),
        rec("b5", "mathematics", True, "", "parabola_correct.png"),
        rec("b6", "mathematics", False,
            "<answer>false</answer><explanation>The labels are unchanged.</explanation>"
            "<edit>Swap the axis labels.</edit>", "parabola_axes_swapped.png",
            source_images=["img/parabola_axes_swapped.png"]),
    ]  # fmt: skip
    (root / "verify.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    injected = {"criteria": [
        {"criterion": "Ring", "weight": 6, "checking_points": ["Hexagon?", "Three double bonds?"]},
        {"criterion": "Style", "weight": 3, "checking_points": ["Skeletal formula?"]},
    ]}  # fmt: skip
    rubrics = [
        {"id": "g1", "domain": "chemistry", "instruction": "Draw benzene. " + json.dumps(injected),
         "gold_rules": ["Six carbons in a hexagon.", "Three alternating double bonds."]},
        {"id": "g2", "domain": "biology", "instruction": "Draw an animal cell.",
         "gold_rules": ["A membrane.", "A nucleus."]},
    ]  # fmt: skip
    (root / "rubric").mkdir()
    (root / "rubric" / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rubrics))
    return root


# By hand, from the answers above (a judge in tool mode says "equivalent" / "valid" to all):
#   b1 T->T  a1 e(judge)1        b2 F->F a1 e(judge)1 i(judge)1   b3 F->F a1 e1 i1 (judge)
#   b4 F->T  a0 e0 i0 (rule)     b5 T->none a0 e0 (rule)          b6 F->F a1 e1 i1 (judge, 2 images)
ACC_A = 4 / 6
ACC_E = 4 / 6
ACC_I = 3 / 4  # negatives b2, b3, b4, b6
EXPLANATION_CALLS = 4  # b1, b2, b3, b6
EDIT_CALLS = 3  # b2, b3, b6
RUBRIC_CALLS = 1  # g1 (3 points); g2's reply holds no rubric: 0 by rule


def test_verdicts_rescored_by_judges_without_regenerating(
    tmp_path: Path, env: dict[str, str], model: Katan, judge: Katan
) -> None:
    folder = write_folder(tmp_path / "data")
    out = tmp_path / "run"
    metadata = json.dumps({"SCIGEN_VERIFY_DATA_DIR": str(folder)})
    asked = (model.requests_received(), judge.requests_received())  # servers of the module
    lm_eval(model, out, "scigen_verify_instruction_following", env, "--metadata", metadata)
    lm_eval(model, out, "scigen_rubric", env, "--metadata", metadata)
    assert model.requests_received() - asked[0] == 6 + 2

    # generated without a judge: Acc_a is final, Acc_e / Acc_i unscored (NaN, counted)
    first = results_of(out, 2)
    task = first["scigen_verify_instruction_following"]
    assert task["acc_a,none"] == pytest.approx(ACC_A)
    assert math.isnan(task["acc_e,none"]) and math.isnan(task["acc_i,none"])
    assert (task["acc_e_unscored,none"], task["acc_i_unscored,none"]) == (
        EXPLANATION_CALLS, EDIT_CALLS,
    )  # fmt: skip
    assert task["bundled_samples,none"] == 0.0 and task["unparsed_rate,none"] == 1 / 6
    rub = first["scigen_rubric"]
    for metric in RUBRIC_METRICS:
        assert f"{metric},none" in rub, metric
    assert math.isnan(rub["sf1,none"]) and rub["rubric_unscored,none"] == 1
    assert (rub["rubric_unparsed,none"], rub["weights_off,none"]) == (0.5, 0.5)
    assert rub["rubric_points,none"] == 1.5  # (3 + 0) / 2
    rows = {r["doc"]["id"]: r for r in samples(out, "scigen_verify_instruction_following")}
    assert rows["b6"]["resps"][0][0].count(MARKER) == 2  # source + candidate
    assert rows["b2"]["record"]["edit"] == "Point N up."
    for row in samples(out, "scigen_rubric"):
        assert MARKER not in row["resps"][0][0]  # text-only task
    assert rows["b1"]["record"]["edit"] is None  # the prompt's placeholder edit, ignored

    # sci-score with a tool-mode judge: judged values, one call per judge question
    cache = tmp_path / "judge-cache"
    scored, made = sci_score(out, judge, "katan-tool", "tool", cache, env, 2)
    calls = EXPLANATION_CALLS + EDIT_CALLS + RUBRIC_CALLS
    assert judge.requests_received() - asked[1] == calls == made
    task = scored["scigen_verify_instruction_following"]
    assert task["acc_a,none"] == pytest.approx(ACC_A)
    assert task["acc_e,none"] == pytest.approx(ACC_E)
    assert task["acc_i,none"] == pytest.approx(ACC_I)
    assert (task["acc_e_unscored,none"], task["acc_i_unscored,none"]) == (0, 0)
    rub = scored["scigen_rubric"]
    assert (rub["rr,none"], rub["nhr,none"], rub["sf1,none"]) == (0.0, 0.0, 0.0)
    assert rub["rubric_unscored,none"] == 0
    rescored_rows = [
        json.loads(line)
        for path in (out / "scores" / "katan-tool").rglob("samples_scigen_verify_*.jsonl")
        for line in path.read_text().splitlines()
    ]
    judged = {r["record"]["id"]: r["record"] for r in rescored_rows}
    assert judged["b6"]["acc_i_judge"].startswith("judge-model / judge/verify_edit.jinja@")
    assert judged["b1"]["acc_e_judge"].startswith("judge-model / judge/verify_explanation.jinja@")
    assert judged["b4"]["acc_e_judge"] is None  # decided by rule

    # the same judge again: all from the cache, zero new calls, same numbers
    again, made = sci_score(out, judge, "katan-tool", "tool", cache, env, 2)
    assert judge.requests_received() - asked[1] == calls and made == 0
    assert json.dumps(again, sort_keys=True) == json.dumps(scored, sort_keys=True)

    # a judge whose replies never parse: unscored, counted, NaN (never 0; null in sci-score's
    # strict JSON)
    echo, made = sci_score(out, judge, "katan-echo", "json_schema", cache, env, 2)
    assert judge.requests_received() - asked[1] == calls + 2 * calls == calls + made  # 2 attempts
    task = echo["scigen_verify_instruction_following"]
    assert task["acc_e,none"] is None and task["acc_i,none"] is None
    assert (task["acc_e_unscored,none"], task["acc_i_unscored,none"]) == (
        EXPLANATION_CALLS, EDIT_CALLS,
    )  # fmt: skip
    assert echo["scigen_rubric"]["rubric_unscored,none"] == 1

    # the echo judge's raw replies (cached) show what it was sent: the edit judge got the
    # images (b6: source + candidate), the explanation judge none
    replies = [json.loads(p.read_text())["content"] for p in cache.rglob("*.json")]
    edit_markers = sorted(r.count(MARKER) for r in replies if "You grade an editing" in r)
    assert edit_markers == [1, 1, 1, 1, 2, 2]
    assert all(MARKER not in r for r in replies if "You grade the explanation" in r)

    # the report, per discipline, from the re-scored samples
    md, table = write_report(out / "scores" / "katan-tool", tmp_path / "report")
    by_name = {r[1]: r for r in csv.reader(table.open()) if r}
    # name: samples, negatives, acc_a, acc_e, acc_i
    assert by_name["physics"][2:7] == ["2", "1", "1.0", "1.0", "1.0"]
    assert by_name["chemistry"][2:7] == ["2", "2", "0.5", "0.5", "0.5"]
    assert by_name["mathematics"][2:7] == ["2", "1", "0.5", "0.5", "1.0"]
    assert by_name["all"][2:4] == ["6", "4"] and float(by_name["all"][6]) == ACC_I
    # rubric per domain: rubrics, RR, NHR, SF1, unscored, unparsed, weights != 10, mean points
    assert "| chemistry | 1 | 0.000 | 0.000 | 0.000 | 0 | 0 | 1 | 3.000 |" in md.read_text()
    assert (
        "| macro over domains | 2 | 0.000 | 0.000 | 0.000 | 0 | 1 | 1 | 1.500 |" in md.read_text()
    )
    assert "judge-model / judge/verify_edit.jinja@" in md.read_text()
    # no key in any file written
    for path in tmp_path.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".jsonl", ".md", ".csv", ".yaml", ".log"):
            assert JUDGE_KEY not in path.read_text(errors="replace"), path
