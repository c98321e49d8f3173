"""Juries for SciGen-Verify's ``verification`` role and SciGen-Rubric's ``rubric`` role (issue
29): three real OpenAI-compatible servers on loopback (stdlib scripted servers) as jurors,
disagreeing on some items, one of them replying something unreadable once (no verdict: a
tie). Every path: Hydra ``+judges.<role>.jury`` (sci-eval, sci-score), stock lm-eval's
``--metadata`` and the role's environment variables (through sci-lm-eval)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from .commands import run_ok
from .judged_data import scigen_folder
from .misbehaving import Reply, completion, model_and_jurors
from .test_judge_roles import env, hydra_list, results_of, samples_of

__all__ = ["env"]  # the fixture, shared with test_judge_roles

TASK = "scigen_verify_instruction_following"
VERIFIER = "<answer>false</answer><explanation>N points down.</explanation><edit>Point N up.</edit>"
RUBRIC = {
    "criteria": [
        {"criterion": "Ring", "weight": 6, "checking_points": ["Hexagon?"]},
        {"criterion": "Style", "weight": 4, "checking_points": ["Skeletal?"]},
    ]
}

# each juror's verdict on records 1-4 (1 pass, 0 fail, x an unreadable reply: no verdict)
EXPLANATION = {"j1": "1110", "j2": "1100", "j3": "10x0"}
EDIT = {"j1": "1101", "j2": "1001", "j3": "1010"}
# each juror's match matrix of records 1-4 (points P1, P2 -> gold rules 1, 2; None: unreadable)
MATRICES: dict[str, list[dict[str, list[int]] | None]] = {
    "j1": [{"P1": [1], "P2": []}, {"P1": [1], "P2": [2]}, {"P1": [1], "P2": []},
           {"P1": [2], "P2": [1]}],
    "j2": [{"P1": [1], "P2": []}, {"P1": [1], "P2": []}, {"P1": [], "P2": []},
           {"P1": [2], "P2": []}],
    "j3": [{"P1": [1], "P2": []}, {"P1": [1, 2], "P2": [2]}, None, {"P1": [], "P2": []}],
}  # fmt: skip


def model_reply(payload: dict[str, Any]) -> Reply:
    """The model under test: a rubric for a rubric prompt, else a verifier's answer (every
    record is a negative: the judgement is right, explanation and edit go to the jury)."""
    rubric = "grading rubrics" in json.dumps(payload["messages"])
    return 200, "application/json", completion(json.dumps(RUBRIC) if rubric else VERIFIER)


def juror(name: str) -> Any:
    """A juror answering the explanation, edit and match questions by the tables above (the
    record's number is in the reference explanation / edit, or the rubric's instruction)."""

    def reply(payload: dict[str, Any]) -> Reply:
        prompt = json.dumps(payload["messages"])
        keys = payload["response_format"]["json_schema"]["schema"]["properties"]
        if "P1" in keys:
            record = int(re.search(r"Draw figure (\d+)\.", prompt)[1])  # type: ignore[index]
            matrix = MATRICES[name][record - 1]
            text = "it depends" if matrix is None else json.dumps(matrix)
            return 200, "application/json", completion(text, name)
        key, table = ("equivalent", EXPLANATION) if "equivalent" in keys else ("valid", EDIT)
        record = int(re.search(r"reference (?:explanation|edit) (\d+)", prompt)[1])  # type: ignore[index]
        vote = table[name][record - 1]
        if vote == "x":
            return 200, "application/json", completion("hard to say", name)
        text = json.dumps({key: vote == "1", "reason": f"{name} on record {record}"})
        return 200, "application/json", completion(text, name)

    return reply


def jurors_of(servers: list[Any], cache: Path) -> list[dict[str, Any]]:
    """Each juror's settings (j1, j2, j3): one attempt, so an unreadable reply is no verdict."""
    return [
        {"model": f"j{i}", "base_url": s.base_url, "cache_dir": str(cache), "max_attempts": 1}
        for i, s in enumerate(servers, 1)
    ]


def sci_lm_eval(
    chat_url: str, task: str, meta: dict[str, Any], out: Path, env: dict[str, str]
) -> None:
    """``task`` through stock lm-eval's CLI (sci-lm-eval), ``meta`` as --metadata."""
    model_args = (
        f"model=model-under-test,base_url={chat_url},num_concurrent=1,max_images=2,"
        "max_retries=1,tokenized_requests=False"
    )
    run_ok(
        "sci-lm-eval", "--model", "local-chat-completions", "--model_args", model_args,
        "--tasks", task, "--apply_chat_template", "--log_samples",
        "--output_path", str(out), "--metadata", json.dumps(meta),
        cwd=out.parent, env=env,
    )  # fmt: skip


@pytest.fixture()
def scigen_env(env: dict[str, str]) -> dict[str, str]:
    """The loopback environment without any SciGen role's judge of the caller's."""
    return {k: v for k, v in env.items() if not k.startswith(("SCI_TASKS_VERIFICATION_",
                                                               "SCI_TASKS_RUBRIC_"))}  # fmt: skip


def test_a_verification_jury_of_three_servers_keeps_every_verdict_and_reports_fleiss_kappa(
    tmp_path: Path, scigen_env: dict[str, str]
) -> None:
    data = scigen_folder(tmp_path / "scigen", 4, 0)
    with model_and_jurors(model_reply, juror) as (model, servers):
        done = run_ok(
            "sci-eval", "model=local_api", "model.args.model=model-under-test",
            f"model.args.base_url={model.chat_url}", f"tasks.names=[{TASK}]",
            f"data.SCIGEN_VERIFY_DATA_DIR={data}", "hydra.run.dir=run", "use_cache=false",
            f"+judges.verification.jury={hydra_list(jurors_of(servers, tmp_path / 'jc'))}",
            "+judges.verification.combine=majority", cwd=tmp_path, env=scigen_env,
        )  # fmt: skip
        # the explanation and the edit question of every record, asked of every juror once
        assert [len(s.requests) for s in servers] == [8, 8, 8]
        # stock lm-eval's --metadata: the same jury (its own cache: asked again)
        meta = {
            "SCIGEN_VERIFY_DATA_DIR": str(data),
            "judges": {
                "verification": {
                    "jury": jurors_of(servers, tmp_path / "jc-lm"),
                    "combine": "majority",
                }
            },
        }
        sci_lm_eval(model.chat_url, TASK, meta, tmp_path / "lm-eval", scigen_env)
        assert [len(s.requests) for s in servers] == [16, 16, 16]
    assert "jury:    verification (majority: j1 at" in done.stdout
    records = [s["record"] for s in samples_of(tmp_path / "run", TASK)]
    stock = [s["record"] for s in samples_of(tmp_path / "lm-eval", TASK)]
    for a, b in zip(stock, records, strict=True):
        for key in ("acc_e", "acc_e_reason", "acc_e_jurors", "acc_i", "acc_i_reason"):
            assert a[key] == b[key], key
    explained = [[j["score"] for j in r["acc_e_jurors"]] for r in records]
    assert explained == [[1.0, 1.0, 1.0], [1.0, 1.0, 0.0], [1.0, 0.0, None], [0.0, 0.0, 0.0]]
    assert [r["acc_e"] for r in records] == [1.0, 1.0, None, 0.0]
    assert records[1]["acc_e_reason"] == "jury majority: 0.0 1, 1.0 2"
    # one vote each after j3's unreadable reply: a tie, unscored with its reason
    assert records[2]["acc_e_reason"] == "jury tie: 0.0 1, 1.0 1 (1 juror(s) gave no verdict)"
    assert records[2]["acc_e_jurors"][2]["reason"].startswith("judge gave no verdict: ")
    assert records[0]["acc_e_jurors"][0]["reason"] == "equivalent: j1 on record 1"
    assert [j["judge"].split(" / ")[0] for j in records[0]["acc_e_jurors"]] == ["j1", "j2", "j3"]
    assert records[0]["acc_e_judge"] == records[0]["acc_i_judge"] == "jury of 3 (majority)"
    edited = [[j["score"] for j in r["acc_i_jurors"]] for r in records]
    assert edited == [[1.0, 1.0, 1.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 0.0]]
    assert [r["acc_i"] for r in records] == [1.0, 0.0, 0.0, 1.0]
    assert records[1]["acc_i_reason"] == "jury majority: 0.0 2, 1.0 1"
    assert records[0]["acc_i_jurors"][1]["reason"] == "valid edit: j2 on record 1"
    for run in (tmp_path / "run", tmp_path / "lm-eval"):
        results = results_of(run, TASK)
        assert results["acc_a,none"] == 1.0
        assert results["acc_e,none"] is None  # the tie: Acc_e NaN (null in JSON), never 0
        assert results["acc_e_unscored,none"] == 1
        assert results["acc_i,none"] == pytest.approx(2 / 4)
        # the 7 items every juror answered: P_i = 1, 1/3, 1 (explanations 1, 2, 4) and
        # 1, 1/3, 1/3, 1/3 (edits) -> P-bar = 13/21; 12 pass votes of 21 -> Pe = 25/49
        assert results["verification_agreement,none"] == pytest.approx(13 / 21)
        assert results["verification_kappa,none"] == pytest.approx((13 / 21 - 25 / 49) / (24 / 49))
        assert results["verification_kappa,none"] == pytest.approx(2 / 9)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    shown = manifest["results"][TASK]
    assert shown["verification_kappa,none"] == pytest.approx(2 / 9)
    assert shown["verification_agreement,none"] == pytest.approx(13 / 21)
    usage = manifest["usage"]["judge"]["verification"]
    assert usage["requests"] == 24 and sorted(usage["models"]) == ["j1", "j2", "j3"]
    assert usage["failed"] == 1  # j3's unreadable reply
    assert manifest["config"]["judges"]["verification"]["combine"] == "majority"


def test_a_rubric_jury_from_the_environment_votes_on_each_cell_and_sci_score_takes_the_mean(
    tmp_path: Path, scigen_env: dict[str, str]
) -> None:
    data = scigen_folder(tmp_path / "scigen", 0, 4)
    with model_and_jurors(model_reply, juror) as (model, servers):
        jurors = jurors_of(servers, tmp_path / "jc")
        # the role's environment variables (stock lm-eval, through sci-lm-eval)
        env = {
            **scigen_env,
            "SCI_TASKS_RUBRIC_JUDGE_JURY": json.dumps(jurors),
            "SCI_TASKS_RUBRIC_JUDGE_COMBINE": "majority",
        }
        meta = {"SCIGEN_VERIFY_DATA_DIR": str(data)}
        sci_lm_eval(model.chat_url, "scigen_rubric", meta, tmp_path / "lm-eval", env)
        assert [len(s.requests) for s in servers] == [4, 4, 4]  # one match request per rubric
        # sci-score: the same jurors (their cache), combined by mean; only j3's unreadable
        # reply is asked again (a failure is never served from the cache as final)
        run_ok(
            "sci-score", f"run_dir={tmp_path / 'lm-eval'}",
            f"+judges.rubric.jury={hydra_list(jurors)}", "+judges.rubric.combine=mean",
            cwd=tmp_path, env=scigen_env,
        )  # fmt: skip
        assert [len(s.requests) for s in servers] == [4, 4, 5]
    records = [s["record"] for s in samples_of(tmp_path / "lm-eval", "scigen_rubric")]
    assert [r["id"] for r in records] == ["r1", "r2", "r3", "r4"]
    assert [[j["matrix"] for j in r["jurors"]] for r in records] == [
        [[[1], []], [[1], []], [[1], []]],
        [[[1], [2]], [[1], []], [[1, 2], [2]]],
        [[[1], []], [[], []], None],
        [[[2], [1]], [[2], []], [[], []]],
    ]
    # the majority of each (point, gold rule) cell
    assert [r["matrix"] for r in records] == [[[1], []], [[1], [2]], None, [[2], []]]
    assert [r["rr"] for r in records] == [0.5, 1.0, None, 0.5]
    assert [r["sf1"] for r in records] == [0.5, 1.0, None, 0.5]
    assert records[0]["judge"] == "jury of 3 (majority)"
    assert records[1]["reason"] == (
        "jury majority per (point, rule): 2/2 gold rules, 2/2 points matched"
    )
    # P1 and rule 1 after j3's unreadable reply: one vote each, the rubric unscored
    assert records[2]["reason"] == "P1-R1 jury tie: 0.0 1, 1.0 1 (1 juror(s) gave no verdict)"
    assert records[2]["jurors"][2]["reason"].startswith("judge gave no verdict: ")
    assert records[1]["jurors"][2]["judge"].startswith("j3 / judge/rubric_match")
    results = results_of(tmp_path / "lm-eval", "scigen_rubric")
    assert results["rr,none"] is None and results["rubric_unscored,none"] == 1  # NaN: null
    # the 12 cells every juror decided (rubrics 1, 2, 4): P_i = 1 x 4; 1, 1/3, 1, 1/3;
    # 1, 1/3, 1/3, 1 -> P-bar = 7/9; 12 match votes of 36 -> Pe = 1/9 + 4/9 = 5/9 -> 1/2
    assert results["rubric_agreement,none"] == pytest.approx(7 / 9)
    assert results["rubric_kappa,none"] == pytest.approx(1 / 2)
    # sci-score's mean: each rubric's mean of the jurors' values (j3 gives none on rubric 3)
    (rescored,) = [p for p in (tmp_path / "lm-eval" / "scores").iterdir() if p.is_dir()]
    means = [s["record"] for s in samples_of(rescored, "scigen_rubric")]
    assert [r["rr"] for r in means] == pytest.approx([0.5, 5 / 6, 0.25, 0.5])
    assert [r["matrix"] for r in means] == [None] * 4
    assert means[2]["reason"] == "RR, NHR, SF1: mean of 2 juror(s) (1 juror(s) gave no verdict)"
    assert means[0]["judge"] == "jury of 3 (mean)"
    results = results_of(rescored, "scigen_rubric")
    # macro over domains: chemistry (rubrics 1, 3) 3/8, biology (2, 4) 2/3
    for metric in ("rr", "nhr", "sf1"):
        assert results[f"{metric},none"] == pytest.approx((3 / 8 + 2 / 3) / 2), metric
    assert results["rubric_unscored,none"] == 0
    assert results["rubric_agreement,none"] == pytest.approx(7 / 9)  # the same votes
    assert results["rubric_kappa,none"] == pytest.approx(1 / 2)


def test_a_jury_for_a_role_whose_scoring_takes_none_is_a_one_line_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sci_tasks.metrics import judge as judges
    from sci_tasks.run_settings import RunSettings

    known = judges.known_roles()
    monkeypatch.setattr(judges, "known_roles", lambda: (*known, "figures"))  # a plugin's role
    url = "http://127.0.0.1:9/v1"
    jury = {"jury": [{"model": "a", "base_url": url}, {"model": "b", "base_url": url}]}
    with pytest.raises(ValueError) as raised:
        RunSettings.of_task({"judges": {"figures": jury}}, environ={})
    assert str(raised.value) == "judges.figures: a jury is not supported for the figures role yet"
    # SciGen's roles: from metadata, or the role's environment variables
    settings = RunSettings.of_task({"judges": {"rubric": jury}}, environ={})
    assert settings.jury("rubric") is not None and settings.judge_of("rubric") is None
    environ = {"SCI_TASKS_VERIFICATION_JUDGE_JURY": json.dumps(jury["jury"]),
               "SCI_TASKS_VERIFICATION_JUDGE_COMBINE": "mean"}  # fmt: skip
    found = RunSettings.of_task({}, environ).jury("verification")
    assert found is not None and (found.combine, [j.model for j in found.jurors]) == (
        "mean",
        ["a", "b"],
    )
    with pytest.raises(ValueError, match="SCI_TASKS_RUBRIC_JUDGE_JURY is not JSON"):
        RunSettings.of_task({}, {"SCI_TASKS_RUBRIC_JUDGE_JURY": "[{"})
