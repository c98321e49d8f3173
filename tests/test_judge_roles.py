"""Judge roles as data (issue 29): the role mapping on every path, juries and cascades, each
run against real OpenAI-compatible servers on loopback (stdlib scripted servers)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from llm_katan.providers.base import generate_dummy_args

from .commands import run_ok
from .helpers import judged_env
from .judged_data import scimif_release
from .misbehaving import Reply, completion, model_and_jurors, scripted_server
from .servers import KATAN_KEY

# each juror's grade of records 1-4: unanimous A, a 2-1 majority A, a three-way tie, unanimous B
JUROR_GRADES = {"j1": "AAAB", "j2": "AABB", "j3": "ABCB"}
# the same, record by record: the jurors' grades each juried record keeps, in juror order
GRADES_PER_RECORD = [list(grades) for grades in zip(*JUROR_GRADES.values(), strict=True)]


@pytest.fixture()
def env(tmp_path: Path) -> dict[str, str]:
    return judged_env(tmp_path, SCI_TASKS_JUDGE_API_KEY=KATAN_KEY)


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


def own(run: Path, pattern: str) -> Path:
    """The one file ``pattern`` matches under ``run``, not in its re-scores (``scores/``)."""
    (path,) = [p for p in run.rglob(pattern) if "scores" not in p.relative_to(run).parts]
    return path


def samples_of(run: Path, task: str) -> list[dict[str, Any]]:
    path = own(run, f"samples_{task}_*.jsonl")
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return sorted(rows, key=lambda r: r["doc_id"])


def results_of(run: Path, task: str) -> dict[str, Any]:
    return json.loads(own(run, "results_*.json").read_text())["results"][task]


def test_a_correctness_jury_of_three_servers_keeps_every_grade_and_reports_fleiss_kappa(
    tmp_path: Path, env: dict[str, str]
) -> None:
    data = scimif_release(tmp_path / "scimif", 4)
    with model_and_jurors(model_reply, juror) as (model, servers):
        s1, s2, s3 = servers
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
    assert [[j["grade"] for j in g["jurors"]] for g in graded] == GRADES_PER_RECORD
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


def sci_lm_eval_scimif_chem(
    chat_url: str, meta: dict[str, Any], tmp_path: Path, env: dict[str, str]
) -> None:
    """scimif_chem through stock lm-eval's CLI (sci-lm-eval) with ``meta`` as --metadata;
    results under ``tmp_path / "lm-eval"``."""
    model_args = (
        f"model=model-under-test,base_url={chat_url},num_concurrent=1,"
        "max_retries=1,tokenized_requests=False"
    )
    run_ok(
        "sci-lm-eval", "--model", "local-chat-completions", "--model_args", model_args,
        "--tasks", "scimif_chem", "--apply_chat_template", "--log_samples",
        "--output_path", str(tmp_path / "lm-eval"), "--metadata", json.dumps(meta),
        cwd=tmp_path, env=env,
    )  # fmt: skip


def method_records(root: Path, n: int) -> Path:
    """``n`` records, each with one method constraint (Hess's law)."""
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
        for i in range(1, n + 1)
    ]
    root.mkdir(parents=True)
    (root / "chemistry.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


def test_a_cascade_lets_the_judge_pass_a_method_constraint_the_rule_failed(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Two records, each with one method constraint (Hess's law) the response never names:
    the rule fails both. Under ``rule_then_judge`` the judge decides: "used" for record 1,
    "not used" for record 2. Rules-only figures 0; cascade figures 1/2."""
    data = method_records(tmp_path / "scimif", 2)

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


# --- combine: mean; the --metadata path; sci-score with a jury ------------------------------


def jury_servers(servers: list[Any], cache: Path) -> list[dict[str, Any]]:
    """Each juror's settings (named j1, j2, j3 after ``JUROR_GRADES``)."""
    return [
        {"model": f"j{i}", "base_url": s.base_url, "cache_dir": str(cache)}
        for i, s in enumerate(servers, 1)
    ]


def hydra_list(jurors: list[dict[str, Any]]) -> str:
    return (
        "["
        + ",".join(f"{{{','.join(f'{k}:{json.dumps(v)}' for k, v in j.items())}}}" for j in jurors)
        + "]"
    )


def test_a_mean_jury_from_lm_evals_metadata_keeps_sci_evals_records_and_sci_score_regrades(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """The same jury, once in stock lm-eval's ``--metadata '{"judges": ...}'`` (through
    sci-lm-eval) and once as Hydra's ``+judges.correctness``, combined by ``mean``: the same
    juror records. Then sci-score re-grades the sci-eval run with a majority jury."""
    data = scimif_release(tmp_path / "scimif", 4)
    with model_and_jurors(model_reply, juror) as (model, servers):
        meta = {
            "SCIMIF_DATA_DIR": str(data),
            "judges": {
                "constraints": None,
                "correctness": {
                    "jury": jury_servers(servers, tmp_path / "jc-lm"),
                    "combine": "mean",
                },
            },
        }
        sci_lm_eval_scimif_chem(model.chat_url, meta, tmp_path, env)
        assert [len(s.requests) for s in servers] == [4, 4, 4]
        run_ok(
            "sci-eval", "model=local_api", "model.args.model=model-under-test",
            f"model.args.base_url={model.chat_url}", "tasks=scimif_chem",
            f"data.SCIMIF_DATA_DIR={data}", "hydra.run.dir=run", "use_cache=false",
            f"+judges.correctness.jury={hydra_list(jury_servers(servers, tmp_path / 'jc'))}",
            "+judges.correctness.combine=mean", cwd=tmp_path, env=env,
        )  # fmt: skip
        assert [len(s.requests) for s in servers] == [8, 8, 8]  # own cache: asked again
        # sci-score: the same jurors (their cache) combined by majority: no question asked
        run_ok(
            "sci-score", f"run_dir={tmp_path / 'run'}",
            f"+judges.correctness.jury={hydra_list(jury_servers(servers, tmp_path / 'jc'))}",
            "+judges.correctness.combine=majority", cwd=tmp_path, env=env,
        )  # fmt: skip
        assert [len(s.requests) for s in servers] == [8, 8, 8]
    stock = samples_of(tmp_path / "lm-eval", "scimif_chem")
    ours = samples_of(tmp_path / "run", "scimif_chem")
    for a, b in zip(stock, ours, strict=True):
        assert a["record"]["correctness"] == b["record"]["correctness"]
    graded = [s["record"]["correctness"] for s in ours]
    assert [[j["grade"] for j in g["jurors"]] for g in graded] == GRADES_PER_RECORD
    # mean: the share of jurors grading A; no tie, no grade of its own
    assert [g["score"] for g in graded] == pytest.approx([1.0, 2 / 3, 1 / 3, 0.0])
    assert [g["grade"] for g in graded] == [None] * 4
    assert graded[0]["reason"] == "mean of 3 juror(s)"
    assert graded[0]["judge"] == "jury of 3 (mean)"
    for run in (tmp_path / "lm-eval", tmp_path / "run"):
        results = results_of(run, "scimif_chem")
        assert results["correct,none"] == pytest.approx((1 + 2 / 3 + 1 / 3 + 0) / 4)
        assert results["correct_agreement,none"] == pytest.approx(7 / 12)
        assert results["correct_kappa,none"] == pytest.approx(11 / 41)
    (rescored,) = [p for p in (tmp_path / "run" / "scores").iterdir() if p.is_dir()]
    regraded = [s["record"]["correctness"] for s in samples_of(rescored, "scimif_chem")]
    assert [g["grade"] for g in regraded] == ["A", "A", None, "B"]
    assert regraded[2]["reason"] == "jury tie: A 1, B 1, C 1"
    results = results_of(rescored, "scimif_chem")
    assert results["correct,none"] == pytest.approx(2 / 3)
    assert results["correct_agreement,none"] == pytest.approx(7 / 12)
    assert results["correct_kappa,none"] == pytest.approx(11 / 41)


def test_each_role_reads_its_own_environment_variables_and_a_given_role_wins() -> None:
    from sci_tasks.run_settings import RunSettings

    url = "http://127.0.0.1:9/v1"
    environ = {
        "SCI_TASKS_JUDGE_MODEL": "constraint-judge",
        "SCI_TASKS_JUDGE_BASE_URL": url,
        "SCI_TASKS_CORRECTNESS_JUDGE_JURY": json.dumps(
            [{"model": "a", "base_url": url}, {"model": "b", "base_url": url}]
        ),
        "SCI_TASKS_CORRECTNESS_JUDGE_COMBINE": "mean",
        "SCI_TASKS_CORRECTNESS_JUDGE_API_KEY": "sk-never-read",
    }
    settings = RunSettings.of_task({}, environ)
    assert settings.judge is not None and settings.judge.model == "constraint-judge"
    jury = settings.jury()
    assert jury is not None and jury.combine == "mean"
    assert [j.model for j in jury.jurors] == ["a", "b"]
    assert "sk-never-read" not in json.dumps(settings.public())
    # a role given in the mapping wins over its variables; the other role keeps its own
    given = {
        "judges": {"correctness": {"protocol": "compass_verifier", "model": "cv", "base_url": url}}
    }
    settings = RunSettings.of_task(given, environ)
    assert settings.jury() is None and settings.grader()[1].model == "cv"  # type: ignore[union-attr]
    assert settings.judge is not None and settings.judge.model == "constraint-judge"
    # null: no judge for the role, whatever the environment says; the shorthand as well
    assert RunSettings.of_task({"judges": {"constraints": None}}, environ).judge is None
    assert RunSettings.of_task({"judge": None}, environ).judge is None
    with pytest.raises(ValueError, match="SCI_TASKS_CORRECTNESS_JUDGE_JURY is not JSON"):
        RunSettings.of_task({}, {**environ, "SCI_TASKS_CORRECTNESS_JUDGE_JURY": "[a, b"})


# --- judge_first; sci-score re-applies a run's cascade --------------------------------------


def test_judge_first_overrules_the_rule_and_sci_score_reports_the_rules_only_figures(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Four records, one method constraint each. The model names Hess's law in record 1
    only, so the rule passes 1 and fails 2-4. Under ``judge_first`` the judge reads every
    solution: "not used" for 1, "used" for 2 and 3, garbage for 4 (retried, then the rule
    decides, the judge's failure kept). Rules-only figures 1/4, the cascade's 2/4. sci-score
    re-applies the run's logged cascade with the same judge: the same figures, no call."""
    data = method_records(tmp_path / "scimif", 4)

    def model_reply_naming(payload: dict[str, Any]) -> Reply:
        prompt = payload["messages"][-1]["content"]
        named = "enthalpy number 1 " in prompt
        text = "By Hess's law: sum the steps." if named else "Sum the steps of the cycle."
        return 200, "application/json", completion(text)

    def judge_reply(payload: dict[str, Any]) -> Reply:
        if "response_format" in payload:  # the rule's own extraction (a span: none found)
            schema = payload["response_format"]["json_schema"]["schema"]
            return 200, "application/json", completion(json.dumps(generate_dummy_args(schema)))
        prompt = payload["messages"][-1]["content"]
        number = int(re.search(r"enthalpy number (\d+) ", prompt)[1])  # type: ignore[index]
        text = {1: "not used", 2: "used", 3: "Used."}.get(number, "it depends")
        return 200, "application/json", completion(text, "cascade-judge")

    judge_args = ["judge.model=cascade-judge", "judge.max_attempts=2", "judge.backoff_initial=0.01"]
    with scripted_server(model_reply_naming) as model, scripted_server(judge_reply) as judge:
        run_ok(
            "sci-eval", "model=local_api", "model.args.model=model-under-test",
            f"model.args.base_url={model.chat_url}", "tasks=scimif_chem",
            f"data.SCIMIF_DATA_DIR={data}", "hydra.run.dir=run", "use_cache=false",
            "judge=local_api", *judge_args, f"judge.base_url={judge.base_url}",
            f"judge.cache_dir={tmp_path / 'jc'}", "+cascade.method_constraint=judge_first",
            cwd=tmp_path, env=env,
        )  # fmt: skip
        asked = [r for r in judge.requests if "response_format" not in r]
        assert len(asked) == 3 + 2  # one question per record, record 4's asked twice
        before = len(judge.requests)
        run_ok(
            "sci-score", f"run_dir={tmp_path / 'run'}", "judge=local_api", *judge_args,
            f"judge.base_url={judge.base_url}", f"judge.cache_dir={tmp_path / 'jc'}",
            cwd=tmp_path, env=env,
        )  # fmt: skip
        # the verdicts from the cache; record 4's failure was this process's: asked again
        assert len(judge.requests) - before == 2
    (rescored,) = [p for p in (tmp_path / "run" / "scores").iterdir() if p.is_dir()]
    for run in (tmp_path / "run", rescored):
        logged = [s["record"]["constraints"][0] for s in samples_of(run, "scimif_chem")]
        assert [c["decided_by"] for c in logged] == ["judge", "judge", "judge", "rule"]
        assert [c["rule_score"] for c in logged] == [1.0, 0.0, 0.0, 0.0]
        assert [c["score"] for c in logged] == [0.0, 1.0, 1.0, 0.0]
        assert {c["policy"] for c in logged} == {"judge_first"}
        assert logged[0]["reason"] == "judge replied 'not used'"
        assert logged[2]["reason"] == "judge replied 'used'"  # "Used." read as the word
        assert logged[3]["judge_error"] == (
            "unparseable reply: neither 'used' nor 'not used': 'it depends' (after 2 attempts)"
        )
        assert logged[3]["reason"] == logged[3]["rule_reason"]  # the rule's, as it was
        results = results_of(run, "scimif_chem")
        for metric in ("csr", "isr", "drfr"):
            assert results[f"{metric}_rules,none"] == pytest.approx(1 / 4), (run, metric)
            assert results[f"{metric},none"] == pytest.approx(2 / 4), (run, metric)


def test_benchmarks_declare_their_roles_and_scigens_fall_back_to_the_constraint_judge() -> None:
    from sci_tasks import benchmarks
    from sci_tasks.metrics import judge as judges
    from sci_tasks.run_settings import RunSettings

    assert benchmarks.get("scimif").judge_roles == ("constraints", "correctness")
    assert benchmarks.get("scigen_verify").judge_roles == ("verification", "rubric")
    assert benchmarks.get("spm_bench").judge_roles == ()
    assert judges.known_roles() == ("constraints", "correctness", "verification", "rubric")
    url = "http://127.0.0.1:9/v1"
    judge = {"model": "constraint-judge", "base_url": url}
    # judge= alone: every SciGen question goes to the constraint judge, as before
    settings = RunSettings.of_task({"judge": judge}, {})
    assert settings.judge_of("rubric") == settings.judge_of("verification") == settings.judge
    # a role of its own: in the mapping (null: none) or in its environment variables
    given = {"judge": judge, "judges": {"rubric": {"model": "r", "base_url": url}}}
    environ = {
        "SCI_TASKS_VERIFICATION_JUDGE_MODEL": "v",
        "SCI_TASKS_VERIFICATION_JUDGE_BASE_URL": url,
    }
    settings = RunSettings.of_task(given, environ)
    assert settings.judge_of("rubric").model == "r"  # type: ignore[union-attr]
    assert settings.judge_of("verification").model == "v"  # type: ignore[union-attr]
    assert settings.judge is not None and settings.judge.model == "constraint-judge"
    assert (
        RunSettings.of_task({"judge": judge, "judges": {"rubric": None}}, {}).judge_of("rubric")
        is None
    )
    with pytest.raises(ValueError, match="unknown role"):
        RunSettings.of_task({"judges": {"rubrik": judge}}, {})
