"""``judge.concurrency`` inside real runs: stock ``lm_eval``, ``sci-eval`` and ``sci-score``.

The model is llm-katan's echo backend behind lm-eval's ``local-chat-completions``; the
judge is a real loopback server that counts the requests in flight (``tests/judge_server``).
Every record's scoring asks the judge a known number of distinct questions
(``tests/judged_data``). Counting, never timing: at concurrency 1 at most one request is
ever in flight, at concurrency 8 more than one and never more than 8, and both runs send
the same requests and reach the same verdicts, reasons and cache files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import sci_tasks
from sci_tasks.benchmarks.scimif import loader as scimif_data
from sci_tasks.benchmarks.scimif.metrics import check_inputs
from sci_tasks.metrics.constraints import registry
from sci_tasks.metrics.constraints.registry import Kind
from sci_tasks.metrics.judge import JudgeClient, JudgeConfig
from sci_tasks.metrics.reply import normalise_reply

from .commands import run_ok as run
from .helpers import judged_env
from .judge_server import CountingJudge, counting_judge
from .judged_data import (
    RUBRIC_PER_RECORD,
    SCIMIF_PER_RECORD,
    VERIFY_PER_RECORD,
    scigen_folder,
    scimif_release,
)
from .servers import KATAN_KEY, Katan

RECORDS = 12
LATENCY = 0.05  # long enough that eight workers overlap; nothing here is timed


@pytest.fixture()
def env() -> dict[str, str]:
    return judged_env(OPENAI_API_KEY=KATAN_KEY, SCI_TASKS_JUDGE_API_KEY="judge-key")


def lm_eval(
    model: Katan, task: str, out: Path, metadata: dict[str, Any], env: dict[str, str], *extra: str
) -> None:
    run(
        "lm_eval", "--model", "local-chat-completions",
        "--model_args", f"model={model.model},base_url={model.chat_url},max_images=2,"
        "num_concurrent=4,max_retries=1,tokenized_requests=False",
        "--tasks", task, "--include_path", sci_tasks.include_path(), "--apply_chat_template",
        "--log_samples", "--output_path", str(out), "--metadata", json.dumps(metadata), *extra,
        cwd=out.parent, env=env,
    )  # fmt: skip


def sci_eval_judged_8_at_a_time(
    model: Katan, judge: CountingJudge, data: Path, cache: Path, env: dict[str, str]
) -> None:
    """sci-eval on SciMIF chemistry from ``data`` in ``cache.parent/eval``, its constraint
    judge asked up to 8 requests at a time (tool calls), cached in ``cache``."""
    run(
        "sci-eval", "model=local_api", f"model.args.model={model.model}",
        f"model.args.base_url={model.chat_url}", "tasks=scimif_chem",
        f"data.SCIMIF_DATA_DIR={data}", "hydra.run.dir=eval", "use_cache=false",
        "judge=local_api", f"judge.model={judge.model}", f"judge.base_url={judge.base_url}",
        "judge.structured_output=tool", "judge.concurrency=8", f"judge.cache_dir={cache}",
        cwd=cache.parent, env=env,
    )  # fmt: skip


def at_concurrency_1_and_8(
    tmp_path: Path,
    model: Katan,
    judge: CountingJudge,
    task: str,
    data: dict[str, str],
    env: dict[str, str],
    *extra: str,
) -> dict[int, tuple[int, int]]:
    """Run ``task`` under stock lm_eval at judge concurrency 1 then 8 (outputs in
    ``out<c>``, judge caches in ``cache<c>``): requests and most in flight of each."""
    seen = {}
    for concurrency in (1, 8):
        judge.reset()
        meta = {**data, "judge": judge.settings(concurrency, tmp_path / f"cache{concurrency}")}
        lm_eval(model, task, tmp_path / f"out{concurrency}", meta, env, *extra)
        seen[concurrency] = (judge.stats.requests, judge.stats.max_in_flight)
    return seen


def logged(out: Path, task: str) -> list[dict[str, Any]]:
    (path,) = [p for p in out.rglob(f"samples_{task}_*.jsonl") if "scores" not in p.parts]
    return [json.loads(line) for line in path.read_text().splitlines()]


def cache_files(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in folder.rglob("*.json")}


def test_stock_lm_eval_sends_a_tasks_judge_calls_concurrently_with_the_same_verdicts(
    tmp_path: Path, env: dict[str, str], model: Katan
) -> None:
    data = scimif_release(tmp_path / "scimif", RECORDS)
    responses = tmp_path / "responses"  # lm-eval's response cache: both runs judge the same text
    with counting_judge(LATENCY) as judge:
        seen = at_concurrency_1_and_8(
            tmp_path, model, judge, "scimif_chem", {"SCIMIF_DATA_DIR": str(data)}, env,
            "--use_cache", str(responses),
        )  # fmt: skip
    assert seen[1] == (RECORDS * SCIMIF_PER_RECORD, 1)
    requests, in_flight = seen[8]
    assert requests == RECORDS * SCIMIF_PER_RECORD and 1 < in_flight <= 8

    serial = logged(tmp_path / "out1", "scimif_chem")
    parallel = logged(tmp_path / "out8", "scimif_chem")
    assert [s["resps"] for s in serial] == [s["resps"] for s in parallel]  # the same responses
    # the filters are pure: what was scored is the normalised reply
    scored = [[normalise_reply(r) for r in s["resps"][0]] for s in serial]
    assert [s["filtered_resps"] for s in serial] == scored
    for a, b in zip(serial, parallel, strict=True):
        assert a["record"] == b["record"] and a["correct"] == b["correct"] == 1.0
        judged = [c for c in a["record"]["constraints"] if c["judge"]]
        assert len(judged) == 2 and all(c["score"] == 1.0 for c in judged)
        # the judge's tool-mode answer: grade "A"
        assert a["record"]["correctness"]["grade"] == "A"
    assert cache_files(tmp_path / "cache1") == cache_files(tmp_path / "cache8")
    assert len(cache_files(tmp_path / "cache1")) == RECORDS * SCIMIF_PER_RECORD


@pytest.mark.parametrize(
    ("task", "per_record"),
    [
        ("scigen_verify_instruction_following", VERIFY_PER_RECORD),
        ("scigen_rubric", RUBRIC_PER_RECORD),
    ],
)
def test_scigen_tasks_judge_concurrently(
    tmp_path: Path, env: dict[str, str], model: Katan, task: str, per_record: int
) -> None:
    data = scigen_folder(tmp_path / "scigen", RECORDS, RECORDS)
    with counting_judge(LATENCY) as judge:
        seen = at_concurrency_1_and_8(
            tmp_path, model, judge, task, {"SCIGEN_VERIFY_DATA_DIR": str(data)}, env
        )
    assert seen[1] == (RECORDS * per_record, 1)
    assert seen[8][0] == RECORDS * per_record and 1 < seen[8][1] <= 8
    for sample in logged(tmp_path / "out8", task):
        record = sample["record"]
        if "acc_a" in record:  # judgement right, explanation and edit judged valid
            assert (record["acc_a"], record["acc_e"], record["acc_i"]) == (1.0, 1.0, 1.0)
            assert record["acc_e_judge"].startswith(f"{judge.model} / judge/verify_explanation")
        else:  # the tool-mode judge matches no point to a rule: RR = NHR = 0
            assert (record["rr"], record["nhr"], record["n_points"]) == (0.0, 0.0, 2)
            assert record["judge"].startswith(f"{judge.model} / judge/rubric_match")


def test_predict_only_never_calls_the_judge_and_sci_eval_and_sci_score_judge_concurrently(
    tmp_path: Path, env: dict[str, str], model: Katan
) -> None:
    data = scimif_release(tmp_path / "scimif", RECORDS)
    with counting_judge(LATENCY) as judge:
        # generate now, judge later: the filters run, scoring does not, the judge is not asked
        meta = {"SCIMIF_DATA_DIR": str(data), "judge": judge.settings(8, tmp_path / "c0")}
        lm_eval(model, "scimif_chem", tmp_path / "run", meta, env, "--predict_only")
        assert judge.stats.requests == 0

        for concurrency in (1, 8):
            judge.reset()
            run(
                "sci-score", f"run_dir={tmp_path / 'run'}", "judge=local_api",
                f"judge.model={judge.model}", f"judge.base_url={judge.base_url}",
                "judge.structured_output=tool", f"judge.concurrency={concurrency}",
                f"judge.cache_dir={tmp_path / f'score{concurrency}'}", f"judge.name=c{concurrency}",
                cwd=tmp_path, env=env,
            )  # fmt: skip
            assert judge.stats.requests == RECORDS * SCIMIF_PER_RECORD
            in_flight = judge.stats.max_in_flight
            assert in_flight == 1 if concurrency == 1 else 1 < in_flight <= 8
        assert cache_files(tmp_path / "score1") == cache_files(tmp_path / "score8")

        judge.reset()
        sci_eval_judged_8_at_a_time(model, judge, data, tmp_path / "eval-cache", env)
        assert judge.stats.requests == RECORDS * SCIMIF_PER_RECORD
        assert 1 < judge.stats.max_in_flight <= 8
    for sample in logged(tmp_path / "eval", "scimif_chem"):
        assert sample["record"]["correctness"]["grade"] == "A"
        assert all(c["score"] == 1.0 for c in sample["record"]["constraints"])


def test_rule_kind_checkers_never_ask_the_judge() -> None:
    """Only judge-, extract- and RDKit-kind constraints may consult the judge: every
    rule-kind constraint of the bundled samples, checked with a judge in force on the
    responses that would tempt an extractor most (the reference answer, and nothing), sends
    no request."""
    with counting_judge(0.0) as server:
        client = JudgeClient(JudgeConfig(model=server.model, base_url=server.base_url, cache=False))
        checked = 0
        for discipline in scimif_data.FILES:
            for doc in scimif_data.load(discipline):
                for response in (str(doc.get("answer") or ""), ""):
                    for name, inp in check_inputs(doc, response):
                        constraint = registry.resolve(name)
                        if constraint is not None and constraint.kind is Kind.RULE:
                            registry.evaluate(name, inp, client)
                            checked += 1
        assert checked > 50
        assert server.stats.requests == 0 == client.calls
