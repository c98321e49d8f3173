"""Judge roles as data (issue 29): the role mapping on every path, juries and cascades, each
run against real OpenAI-compatible servers on loopback (stdlib scripted servers)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from llm_katan.providers.base import generate_dummy_args

from .commands import run_ok
from .judged_data import scimif_release
from .misbehaving import Reply, completion, scripted_server
from .servers import KATAN_KEY

# each juror's grade of records 1-4: unanimous A, a 2-1 majority A, a three-way tie, unanimous B
JUROR_GRADES = {"j1": "AAAB", "j2": "AABB", "j3": "ABCB"}


@pytest.fixture()
def env(tmp_path: Path) -> dict[str, str]:
    out = {
        **os.environ,
        "SCI_TASKS_JUDGE_API_KEY": KATAN_KEY,
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "SCI_TASKS_CACHE": str(tmp_path / "cache"),
    }
    for key in [k for k in out if k.startswith(("SCI_TASKS_JUDGE_", "SCI_TASKS_CORRECTNESS_"))]:
        if not key.endswith("_KEY"):
            out.pop(key)
    return out


def model_reply(payload: dict[str, Any]) -> Reply:
    return 200, "application/json", completion("Step 1: protect. Step 2: couple. Done.")


def juror(name: str) -> Any:
    """A juror grading record i (its number is in the reference answer of the prompt) by
    ``JUROR_GRADES[name][i - 1]``, as a JSON grade."""

    def reply(payload: dict[str, Any]) -> Reply:
        prompt = payload["messages"][-1]["content"]
        number = int(re.search(r"Reference synthesis (\d+):", prompt)[1])  # type: ignore[index]
        grade = JUROR_GRADES[name][number - 1]
        text = json.dumps({"grade": grade, "reason": f"{name} says {grade}"})
        return 200, "application/json", completion(text, name)

    return reply


def samples_of(run: Path, task: str) -> list[dict[str, Any]]:
    (path,) = run.rglob(f"samples_{task}_*.jsonl")
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return sorted(rows, key=lambda r: r["doc_id"])


def results_of(run: Path, task: str) -> dict[str, Any]:
    (path,) = run.rglob("results_*.json")
    return json.loads(path.read_text())["results"][task]


def test_a_correctness_jury_of_three_servers_keeps_every_grade_and_reports_fleiss_kappa(
    tmp_path: Path, env: dict[str, str]
) -> None:
    data = scimif_release(tmp_path / "scimif", 4)
    with (
        scripted_server(model_reply) as model,
        scripted_server(juror("j1")) as s1,
        scripted_server(juror("j2")) as s2,
        scripted_server(juror("j3")) as s3,
    ):
        jurors = ",".join(
            f'{{model:{name},base_url:"{server.base_url}",cache_dir:"{tmp_path / "jc"}"}}'
            for name, server in (("j1", s1), ("j2", s2), ("j3", s3))
        )
        done = run_ok(
            "sci-eval", "model=local_api", "model.args.model=model-under-test",
            f"model.args.base_url={model.chat_url}", "tasks=scimif_chem",
            f"data.SCIMIF_DATA_DIR={data}", "hydra.run.dir=run", "use_cache=false",
            f"+judges.correctness.jury=[{jurors}]", "+judges.correctness.combine=majority",
            cwd=tmp_path, env=env,
        )  # fmt: skip
        assert len(s1.requests) == len(s2.requests) == len(s3.requests) == 4
    samples = samples_of(tmp_path / "run", "scimif_chem")
    graded = [s["record"]["correctness"] for s in samples]
    assert [[j["grade"] for j in g["jurors"]] for g in graded] == [
        ["A", "A", "A"],
        ["A", "A", "B"],
        ["A", "B", "C"],
        ["B", "B", "B"],
    ]
    assert [j["judge"].split(" / ")[0] for j in graded[0]["jurors"]] == ["j1", "j2", "j3"]
    assert [g["grade"] for g in graded] == ["A", "A", None, "B"]
    assert [g["score"] for g in graded] == [1.0, 1.0, None, 0.0]
    assert graded[1]["reason"] == "jury majority: A 2, B 1"
    assert graded[2]["reason"] == "jury tie: A 1, B 1, C 1"  # unscored, with its reason
    results = results_of(tmp_path / "run", "scimif_chem")
    assert results["correct,none"] == pytest.approx(2 / 3)  # the tie is left out
    # Fleiss: P_i = 1, 1/3, 0, 1 -> P = 7/12; p_A, p_B, p_C = 6/12, 5/12, 1/12 -> Pe = 31/72
    assert results["correct_agreement,none"] == pytest.approx(7 / 12)
    assert results["correct_kappa,none"] == pytest.approx((7 / 12 - 31 / 72) / (1 - 31 / 72))
    assert results["correct_kappa,none"] == pytest.approx(11 / 41)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["results"]["scimif_chem"]["correct_kappa,none"] == pytest.approx(11 / 41)
    usage = manifest["usage"]["judge"]
    assert usage["correctness"]["requests"] == 12  # every item asked of every juror
    assert sorted(usage["correctness"]["models"]) == ["j1", "j2", "j3"]
    assert "correct: json_grade (jury, majority: j1 at" in done.stdout


def test_a_cascade_lets_the_judge_pass_a_method_constraint_the_rule_failed(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Two records, each with one method constraint (Hess's law) the response never names:
    the rule fails both. Under ``rule_then_judge`` the judge decides: "used" for record 1,
    "not used" for record 2. Rules-only figures 0; cascade figures 1/2."""
    rows = [
        {
            "id": i,
            "task": "Open_Ended",
            "original_question": f"Compute reaction enthalpy number {i}.",
            "edit_question": f"Compute reaction enthalpy number {i} using Hess's law.",
            "answer": "",
            "instruction_list": [
                {
                    "instruction_name": "chemistry_method_constraint",
                    "source": "core_task",
                    "required_parameters": "Hess's law",
                }
            ],
        }
        for i in (1, 2)
    ]
    data = tmp_path / "scimif"
    data.mkdir()
    (data / "chemistry.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))

    def judge_reply(payload: dict[str, Any]) -> Reply:
        if "response_format" in payload:  # the rule's own extraction (a span: none found)
            schema = payload["response_format"]["json_schema"]["schema"]
            text = json.dumps(generate_dummy_args(schema))
        else:  # the cascade's question
            prompt = payload["messages"][-1]["content"]
            text = "used" if "enthalpy number 1 " in prompt else "not used"
        return 200, "application/json", completion(text, "cascade-judge")

    with scripted_server(model_reply) as model, scripted_server(judge_reply) as judge:
        run_ok(
            "sci-eval", "model=local_api", "model.args.model=model-under-test",
            f"model.args.base_url={model.chat_url}", "tasks=scimif_chem",
            f"data.SCIMIF_DATA_DIR={data}", "hydra.run.dir=run", "use_cache=false",
            "judge=local_api", "judge.model=cascade-judge", f"judge.base_url={judge.base_url}",
            f"judge.cache_dir={tmp_path / 'jc'}", "+cascade.method_constraint=rule_then_judge",
            cwd=tmp_path, env=env,
        )  # fmt: skip
        asked = [r for r in judge.requests if "response_format" not in r]
        assert len(asked) == 2  # one cascade question per record
    first, second = (
        s["record"]["constraints"][0] for s in samples_of(tmp_path / "run", "scimif_chem")
    )
    assert first["decided_by"] == "judge" and first["score"] == 1.0
    assert first["judge"].startswith("cascade-judge / judge/constraint_cascade.jinja@")
    assert first["reason"] == "judge replied 'used'"
    assert (first["rule_score"], first["policy"]) == (0.0, "rule_then_judge")
    assert first["rule_reason"] == (
        "1 of 1 required method (from the parameters) not found: Hess's law "
        "(extractor cascade-judge returned text not in the response: 'test_span')"
    )
    assert (second["decided_by"], second["score"]) == ("judge", 0.0)
    results = results_of(tmp_path / "run", "scimif_chem")
    for metric in ("csr", "isr", "drfr"):
        assert results[f"{metric}_rules,none"] == 0.0  # the rule failed both
        assert results[f"{metric},none"] == 0.5  # the judge passed one of two
