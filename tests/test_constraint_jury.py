"""A jury for SciMIF's constraints role (issue 29): three real OpenAI-compatible servers on
loopback (stdlib scripted servers) as jurors of the judged constraints."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from .commands import run_ok
from .judged_data import scimif_release
from .misbehaving import Reply, completion, scripted_server
from .test_judge_roles import (
    env,
    hydra_list,
    model_reply,
    results_of,
    samples_of,
    sci_lm_eval_scimif_chem,
)

__all__ = ["env"]  # the fixture, shared with test_judge_roles

# each juror's pass (1) / fail (0) of records 1-4, per judged constraint; "x": an unreadable
# reply (the juror gives no verdict: its vote is missing, the record goes on)
STEPS = {"j1": "1110", "j2": "1100", "j3": "1000"}
NUMBER = {"j1": "1101", "j2": "1001", "j3": "1x10"}


def juror(name: str) -> Any:
    """A juror answering the steps question (3 required, 3 or 0 matched) and the number of
    responses question (2 required, 2 or 1 distinct) by the tables above."""

    def reply(payload: dict[str, Any]) -> Reply:
        prompt = payload["messages"][-1]["content"]
        record = int(re.search(r"target compound number (\d+) ", prompt)[1])  # type: ignore[index]
        schema = payload["response_format"]["json_schema"]["schema"]["properties"]
        if "required_steps" in schema:
            passed = STEPS[name][record - 1] == "1"
            answer = {"required_steps": 3, "matched_steps": 3 if passed else 0}
        else:
            vote = NUMBER[name][record - 1]
            if vote == "x":
                return 200, "application/json", completion("the count is two-ish", name)
            answer = {"required": 2, "distinct": 2 if vote == "1" else 1}
        text = json.dumps({**answer, "reason": f"{name} on record {record}"})
        return 200, "application/json", completion(text, name)

    return reply


def test_a_constraints_jury_of_three_servers_votes_on_each_judged_constraint(
    tmp_path: Path, env: dict[str, str]
) -> None:
    data = scimif_release(tmp_path / "scimif", 4)  # steps + number of responses per record
    with (
        scripted_server(model_reply) as model,
        scripted_server(juror("j1")) as s1,
        scripted_server(juror("j2")) as s2,
        scripted_server(juror("j3")) as s3,
    ):
        jurors = [
            {"model": f"j{i}", "base_url": s.base_url, "cache_dir": str(tmp_path / "jc"),
             "max_attempts": 1}
            for i, s in enumerate((s1, s2, s3), 1)
        ]  # fmt: skip
        done = run_ok(
            "sci-eval", "model=local_api", "model.args.model=model-under-test",
            f"model.args.base_url={model.chat_url}", "tasks=scimif_chem",
            f"data.SCIMIF_DATA_DIR={data}", "hydra.run.dir=run", "use_cache=false",
            f"+judges.constraints.jury={hydra_list(jurors)}",
            "+judges.constraints.combine=majority", cwd=tmp_path, env=env,
        )  # fmt: skip
        # every judged constraint of every record asked of every juror, once
        assert [len(s.requests) for s in (s1, s2, s3)] == [8, 8, 8]
        # stock lm-eval's --metadata (through sci-lm-eval): the same jury, its own cache
        meta = {
            "SCIMIF_DATA_DIR": str(data),
            "judges": {
                "constraints": {
                    "jury": [{**j, "cache_dir": str(tmp_path / "jc-lm")} for j in jurors],
                    "combine": "majority",
                }
            },
        }
        sci_lm_eval_scimif_chem(model.chat_url, meta, tmp_path, env)
        assert [len(s.requests) for s in (s1, s2, s3)] == [16, 16, 16]
    stock = samples_of(tmp_path / "lm-eval", "scimif_chem")
    for a, b in zip(stock, samples_of(tmp_path / "run", "scimif_chem"), strict=True):
        assert a["record"]["constraints"] == b["record"]["constraints"]
    stock_results = results_of(tmp_path / "lm-eval", "scimif_chem")
    assert stock_results["constraints_kappa,none"] == pytest.approx(2 / 9)
    assert "judge:   constraints jury (majority: j1 at" in done.stdout
    logs = [s["record"]["constraints"] for s in samples_of(tmp_path / "run", "scimif_chem")]
    steps = [log[0] for log in logs]
    number = [log[1] for log in logs]
    assert [[j["score"] for j in c["jurors"]] for c in steps] == [
        [1.0, 1.0, 1.0],
        [1.0, 1.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 0.0, 0.0],
    ]
    assert [c["score"] for c in steps] == [1.0, 1.0, 0.0, 0.0]
    assert steps[1]["reason"] == "jury majority: 0.0 1, 1.0 2"
    assert steps[0]["judge"] == "jury of 3 (majority)"
    assert [j["judge"].split(" / ")[0] for j in steps[0]["jurors"]] == ["j1", "j2", "j3"]
    assert steps[0]["jurors"][0]["reason"] == "3/3 required steps: j1 on record 1"
    assert [[j["score"] for j in c["jurors"]] for c in number] == [
        [1.0, 1.0, 1.0],
        [1.0, 0.0, None],
        [0.0, 0.0, 1.0],
        [1.0, 1.0, 0.0],
    ]
    assert [c["score"] for c in number] == [1.0, None, 0.0, 1.0]
    # one vote each after j3's unreadable reply: a tie, unscored with its reason
    assert number[1]["reason"] == "jury tie: 0.0 1, 1.0 1 (1 juror(s) gave no verdict)"
    assert number[1]["jurors"][2]["reason"].startswith("judge j3: ")
    results = results_of(tmp_path / "run", "scimif_chem")
    # samples' constraint scores: [1, 1], [1, -], [0, 0], [0, 1]
    assert results["csr,none"] == pytest.approx((1 + 1 + 0 + 0.5) / 4)
    assert results["isr,none"] == pytest.approx(2 / 4)
    assert results["drfr,none"] == pytest.approx(4 / 7)
    assert results["unscored,none"] == 1  # summed: the tie
    # the 7 items every juror voted on: P_i = 1, 1/3, 1/3, 1 (steps), 1, 1/3, 1/3 (number)
    # -> P-bar = 13/21; 12 pass votes of 21 -> Pe = (4/7)^2 + (3/7)^2 = 25/49 -> kappa 2/9
    assert results["constraints_agreement,none"] == pytest.approx(13 / 21)
    assert results["constraints_kappa,none"] == pytest.approx(2 / 9)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    shown = manifest["results"]["scimif_chem"]
    assert shown["constraints_kappa,none"] == pytest.approx(2 / 9)
    assert shown["constraints_agreement,none"] == pytest.approx(13 / 21)
    assert manifest["usage"]["judge"]["constraints"]["requests"] == 24
    assert "correct_kappa,none" not in results  # no correctness jury: no such metric


def test_the_constraints_jury_from_the_environment() -> None:
    from sci_tasks.run_settings import RunSettings

    url = "http://127.0.0.1:9/v1"
    jury = {"jury": [{"model": "a", "base_url": url}, {"model": "b", "base_url": url}]}
    # the constraints role's jury from the environment, as from metadata (a role whose
    # scoring takes no jury: tests/test_scigen_jury.py)
    environ = {"SCI_TASKS_JUDGE_JURY": json.dumps(jury["jury"]), "SCI_TASKS_JUDGE_COMBINE": "mean"}
    settings = RunSettings.of_task({}, environ)
    found = settings.jury("constraints")
    assert found is not None and [j.model for j in found.jurors] == ["a", "b"]
    assert (found.combine, settings.judge, settings.judge_of("rubric")) == ("mean", None, None)
    assert settings.public()["judges"]["constraints"]["combine"] == "mean"
