"""What the judge cost (manifest ``usage.judge``, one entry per role), against what the judge
servers themselves counted.

The constraint judge is llm-katan (echo backend, tool mode) with its persistent stats file,
which counts chat-completion requests and the tokens each reply's ``usage`` reported. The
correctness judge of the second test is a stdlib server answering as CompassVerifier that
counts its own requests and the tokens it reported. Judge concurrency 8 throughout: samples
are scored at once, and each question must be counted once."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import sci_tasks

from .commands import run_ok
from .helpers import console_script, judged_env
from .judged_data import SCIMIF_PER_RECORD, scimif_release
from .misbehaving import Reply, completion, scripted_server
from .servers import KATAN_KEY, Katan, _wait_ready, free_port

RECORDS = 6
JUDGED_CONSTRAINTS = SCIMIF_PER_RECORD - 1  # per record; the third question is correctness


@dataclass
class StatsKatan(Katan):
    stats_file: Path
    before: dict[str, int] | None = None  # what it counted before the test's requests

    def counted(self) -> dict[str, int]:
        """Requests and tokens llm-katan's stats file holds (no file yet: zeros)."""
        if not self.stats_file.exists():
            return {"requests": 0, "prompt": 0, "completion": 0}
        data = json.loads(self.stats_file.read_text())
        tokens = data.get("tokens", {}).get("openai", {})
        return {
            "requests": data.get("providers", {}).get("openai", 0),
            "prompt": tokens.get("prompt", 0),
            "completion": tokens.get("completion", 0),
        }

    def stats(self) -> dict[str, int]:
        """What it counted since it was ready (its readiness probe, GET /v1/models, is
        counted too)."""
        now, before = self.counted(), self.before or {}
        return {key: value - before.get(key, 0) for key, value in now.items()}


@contextmanager
def katan_with_stats(tmp: Path) -> Iterator[StatsKatan]:
    """llm-katan's echo backend with its request counter on (the dashboard middleware keeps
    the stats file, so it is not disabled here, unlike ``tests.servers.katan``)."""
    port = free_port()
    log = tmp / f"katan-{port}.log"
    stats = tmp / f"katan-{port}-stats.json"
    cmd = [
        console_script("llm-katan"), "--model", "echo-model", "--backend", "echo",
        "--host", "127.0.0.1", "--port", str(port), "--stats-file", str(stats),
    ]  # fmt: skip
    with log.open("w") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT)
    server = StatsKatan(f"http://127.0.0.1:{port}/v1", "echo-model", log, stats)
    try:
        _wait_ready(server, proc, 60)
        server.before = server.counted()
        assert server.before["requests"] == 1  # the probe: GET /v1/models
        yield server
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def model_reply(payload: dict[str, Any]) -> Reply:
    """The model under test: the same plausible answer to every question."""
    text = "Step 1: protect. Step 2: couple. Step 3: deprotect. Yields: 80% and 90%."
    return 200, "application/json", completion(text)


@pytest.fixture()
def env(tmp_path: Path) -> dict[str, str]:
    return judged_env(tmp_path, OPENAI_API_KEY=KATAN_KEY, SCI_TASKS_JUDGE_API_KEY=KATAN_KEY)


def usage_of(manifest: Path) -> dict[str, dict[str, Any]]:
    return json.loads(manifest.read_text())["usage"]["judge"]


def assert_quiet(output: str, kept: str = "") -> None:
    """No line of the noise sci_tasks.quiet filters (issue 31): lm-eval's warning about our
    tasks' kwargs and its do_sample advice, httpx's line per request; ``kept``, another
    line of the same lm-eval logger, is still there."""
    assert "Custom kwargs can be passed" not in output
    assert "Ensure 'do_sample=True'" not in output
    assert "HTTP Request:" not in output
    assert kept in output


def summed(usage: dict[str, dict[str, Any]], key: str) -> int:
    return sum(role[key] for role in usage.values())


def test_sci_eval_manifest_holds_the_calls_and_tokens_the_judge_server_counted(
    tmp_path: Path, env: dict[str, str]
) -> None:
    data = scimif_release(tmp_path / "scimif", RECORDS)
    with scripted_server(model_reply) as model, katan_with_stats(tmp_path) as judge:

        def sci_eval(run_dir: str) -> str:
            return run_ok(
                "sci-eval", "model=local_api", "model.args.model=model-under-test",
                f"model.args.base_url={model.chat_url}", "tasks=scimif_chem",
                f"data.SCIMIF_DATA_DIR={data}", f"hydra.run.dir={run_dir}", "use_cache=false",
                "judge=local_api", f"judge.model={judge.model}", f"judge.base_url={judge.base_url}",
                "judge.structured_output=tool", "judge.concurrency=8",
                f"judge.cache_dir={tmp_path / 'judge-cache'}",
                cwd=tmp_path, env=env,
            )  # fmt: skip

        done = sci_eval("first")
        printed = done.stdout
        assert_quiet(done.stdout + done.stderr, "Building contexts for scimif_chem")
        counted = judge.stats()
        usage = usage_of(tmp_path / "first" / "manifest.json")
        # per role: the constraint questions and the correctness questions, once each
        assert usage["constraints"]["requests"] == JUDGED_CONSTRAINTS * RECORDS
        assert usage["correctness"]["requests"] == RECORDS
        for role in usage.values():
            assert role["calls"] == role["requests"]  # nothing cached, retried or failed
            assert (role["cached"], role["retried"], role["failed"]) == (0, 0, 0)
            assert role["models"] == ["echo-model"] and role["wall_seconds"] > 0
            assert role["calls_without_usage"] == 0
        # ... and together exactly what the server counted: requests and tokens
        assert summed(usage, "calls") == counted["requests"] == SCIMIF_PER_RECORD * RECORDS
        assert summed(usage, "prompt_tokens") == counted["prompt"] > 0
        assert summed(usage, "completion_tokens") == counted["completion"] > 0
        # the printed summary says the same
        c = usage["constraints"]
        line = (
            f"judge constraints (echo-model): {c['requests']} question(s), 0 from cache, "
            f"0 failed; {c['calls']} call(s), 0 retried; {c['prompt_tokens']} prompt + "
            f"{c['completion_tokens']} completion tokens; "
        )
        assert line in printed, printed[-2000:]
        assert re.search(r"^judge correctness \(echo-model\): 6 question\(s\)", printed, re.M)

        # the same run again (as a resume would): every answer from the judge cache
        sci_eval("again")
        again = usage_of(tmp_path / "again" / "manifest.json")
        assert judge.stats() == counted  # not one request more
        assert again["constraints"]["cached"] == again["constraints"]["requests"] == 2 * RECORDS
        assert again["correctness"]["cached"] == again["correctness"]["requests"] == RECORDS
        assert summed(again, "calls") == summed(again, "prompt_tokens") == 0


# --- sci-score: two roles, two servers ------------------------------------------------------


@dataclass
class Counted:
    requests: int = 0
    prompt: int = 0
    completion: int = 0


def verifier(counted: Counted) -> Callable[[dict[str, Any]], Reply]:
    """CompassVerifier's replies (record 1's unreadable), with a ``usage`` of its own that the
    server adds up: prompt words and reply words."""

    def reply(payload: dict[str, Any]) -> Reply:
        prompt = payload["messages"][-1]["content"]
        number = int(re.search(r"Reference synthesis (\d+):", prompt)[1])  # type: ignore[index]
        text = "I cannot tell." if number == 1 else "Final Judgment: \\boxed{A} - CORRECT"
        body = json.loads(completion(text, payload["model"]))
        body["usage"] = {
            "prompt_tokens": len(prompt.split()),
            "completion_tokens": len(text.split()),
            "total_tokens": len(prompt.split()) + len(text.split()),
        }
        counted.requests += 1
        counted.prompt += body["usage"]["prompt_tokens"]
        counted.completion += body["usage"]["completion_tokens"]
        return 200, "application/json", json.dumps(body).encode()

    return reply


def test_sci_score_manifest_counts_each_role_as_its_server_did(
    tmp_path: Path, env: dict[str, str]
) -> None:
    data = scimif_release(tmp_path / "scimif", RECORDS)
    cv = Counted()
    with (
        scripted_server(model_reply) as model,
        katan_with_stats(tmp_path) as judge,
        scripted_server(verifier(cv)) as correctness,
    ):
        meta = {"SCIMIF_DATA_DIR": str(data)}
        generated = run_ok(
            "lm_eval", "--model", "local-chat-completions",
            "--model_args", f"model=m,base_url={model.chat_url},num_concurrent=1,max_retries=1,"
            "tokenized_requests=False,max_images=2",
            "--tasks", "scimif_chem", "--include_path", sci_tasks.include_path(),
            "--apply_chat_template", "--log_samples", "--output_path", str(tmp_path / "run"),
            "--metadata", json.dumps(meta), "--predict_only", cwd=tmp_path, env=env,
        )  # fmt: skip
        assert judge.stats()["requests"] == 0 and cv.requests == 0  # generate now, judge later
        assert_quiet(generated.stdout + generated.stderr, "Building contexts for scimif_chem")
        scored = run_ok(
            "sci-score", f"run_dir={tmp_path / 'run'}", "judge=local_api",
            f"judge.model={judge.model}", f"judge.base_url={judge.base_url}",
            "judge.structured_output=tool", "judge.concurrency=8",
            f"judge.cache_dir={tmp_path / 'c1'}",
            "correctness_judge=compass_verifier", "correctness_judge.model=cv",
            f"correctness_judge.base_url={correctness.base_url}",
            "correctness_judge.max_attempts=3", "correctness_judge.backoff_initial=0.01",
            f"correctness_judge.cache_dir={tmp_path / 'c2'}",
            cwd=tmp_path, env=env,
        )  # fmt: skip
    printed = scored.stdout
    assert_quiet(scored.stdout + scored.stderr)
    (manifest,) = (tmp_path / "run" / "scores").glob("*/manifest.json")
    assert manifest.parent.name == "echo-model+cv"
    recorded = json.loads(manifest.read_text())
    assert recorded["kind"] == "sci-score" and recorded["correctness_judge"]["protocol"] == (
        "compass_verifier"
    )
    # the judges that re-scored, as readers of the nearest manifest (sci-view) find them
    assert recorded["config"]["judge"]["model"] == "echo-model"
    assert recorded["config"]["correctness_judge"]["judge"]["model"] == "cv"
    usage = recorded["usage"]["judge"]
    constraints, graded = usage["constraints"], usage["correctness"]
    counted = judge.stats()
    assert constraints["calls"] == counted["requests"] == JUDGED_CONSTRAINTS * RECORDS
    assert constraints["prompt_tokens"] == counted["prompt"] > 0
    assert constraints["completion_tokens"] == counted["completion"] > 0
    assert constraints["models"] == ["echo-model"]
    # the verifier: 6 questions, record 1's unreadable reply asked 3 times (2 retries), failed
    assert (graded["requests"], graded["failed"], graded["cached"]) == (RECORDS, 1, 0)
    assert graded["calls"] == cv.requests == RECORDS + 2 and graded["retried"] == 2
    assert (graded["prompt_tokens"], graded["completion_tokens"]) == (cv.prompt, cv.completion)
    assert graded["models"] == ["cv"]
    assert f"judge correctness (cv): {RECORDS} question(s), 0 from cache, 1 failed; " in printed


# --- the ledger itself, in process ----------------------------------------------------------


def test_a_question_asked_again_is_one_request_and_a_reply_without_usage_adds_no_tokens(
    tmp_path: Path,
) -> None:
    from sci_tasks.metrics.judge import JudgeClient, JudgeConfig, JudgeRequest, usage
    from sci_tasks.metrics.judge.client import reported_tokens

    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    bodies = {"with": completion('{"ok": true}'), "without": completion('{"ok": false}')}
    no_usage = json.loads(bodies["without"])
    del no_usage["usage"]
    bodies["without"] = json.dumps(no_usage).encode()

    def reply(payload: dict[str, Any]) -> Reply:
        return 200, "application/json", bodies[payload["messages"][-1]["content"]]

    assert reported_tokens(bodies["with"]) == (1, 1) and reported_tokens(bodies["without"]) is None
    with scripted_server(reply) as server:
        settings = {"model": "m", "base_url": server.base_url, "cache_dir": str(tmp_path)}
        client = JudgeClient(JudgeConfig.from_mapping(settings))
        ledger = usage.start()
        for prompt in ("with", "with", "without", "without"):  # each asked twice
            assert client.ask(JudgeRequest(prompt, schema, "v1")).ok
        got = ledger.summary()["constraints"]
        assert len(server.requests) == 2 == got["calls"] == got["requests"]
        assert (got["prompt_tokens"], got["completion_tokens"], got["calls_without_usage"]) == (
            1,
            1,
            1,
        )
        # a new run (ledger) that asks again: answered from the cache, no call
        again = usage.start()
        assert client.ask(JudgeRequest("with", schema, "v1")).ok
        second = again.summary()["constraints"]
        assert (second["requests"], second["cached"], second["calls"]) == (1, 1, 0)
        assert ledger.summary()["correctness"]["requests"] == 0  # every role has an entry


# --- a judge replying garbage, then fixed ---------------------------------------------------


def test_a_judge_fixed_after_garbage_replies_is_asked_again_and_cached_replies_are_counted(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Run 1: the judge (same model name throughout) answers the constraint questions but
    replies garbage to every correctness question (2 attempts each). Run 2, the judge fixed,
    same prompts and cache: the constraint verdicts come from the cache, the correctness
    questions are asked again (a cached failure is no verdict). Run 3: everything cached."""
    from llm_katan.providers.base import generate_dummy_args

    records = 3
    data = scimif_release(tmp_path / "scimif", records)
    broken = [True]

    def judge_reply(payload: dict[str, Any]) -> Reply:
        schema = payload["response_format"]["json_schema"]["schema"]
        if broken[0] and "grade" in schema["properties"]:
            return 200, "application/json", completion("Sure! The grade is, well, hard to say")
        return 200, "application/json", completion(json.dumps(generate_dummy_args(schema)))

    with scripted_server(model_reply) as model, scripted_server(judge_reply) as judge:

        def sci_eval(run_dir: str) -> tuple[str, dict[str, dict[str, Any]], dict[str, Any]]:
            done = run_ok(
                "sci-eval", "model=local_api", "model.args.model=model-under-test",
                f"model.args.base_url={model.chat_url}", "tasks=scimif_chem",
                f"data.SCIMIF_DATA_DIR={data}", f"hydra.run.dir={run_dir}", "use_cache=false",
                "judge=local_api", "judge.model=flaky", f"judge.base_url={judge.base_url}",
                "judge.concurrency=4", "judge.max_attempts=2", "judge.backoff_initial=0.01",
                f"judge.cache_dir={tmp_path / 'judge-cache'}",
                cwd=tmp_path, env=env,
            )  # fmt: skip
            (samples,) = (tmp_path / run_dir).rglob("samples_scimif_chem_*.jsonl")
            first = json.loads(samples.read_text().splitlines()[0])
            return done.stdout, usage_of(tmp_path / run_dir / "manifest.json"), first

        printed, first, sample = sci_eval("first")
        asked = len(judge.requests)
        assert asked == JUDGED_CONSTRAINTS * records + 2 * records  # garbage: 2 attempts each
        assert (first["correctness"]["requests"], first["correctness"]["failed"]) == (3, 3)
        assert sample["record"]["correctness"]["reason"].startswith("unparseable reply: not JSON")
        assert (
            "judge correctness (flaky): 3 question(s), 0 from cache, 3 failed; 6 call(s), "
            "3 retried" in printed
        )

        broken[0] = False
        printed, second, sample = sci_eval("second")
        assert len(judge.requests) == asked + records  # only the correctness questions again
        assert sample["record"]["correctness"]["grade"] == "A"
        assert (second["constraints"]["cached"], second["constraints"]["calls"]) == (6, 0)
        assert (second["correctness"]["cached"], second["correctness"]["failed"]) == (0, 0)
        assert (
            "judge constraints (flaky): 6 question(s), 6 from cache, 0 failed; 0 call(s)" in printed
        )
        assert (
            "judge correctness (flaky): 3 question(s), 0 from cache, 0 failed; 3 call(s), "
            "0 retried" in printed
        )

        printed, third, _ = sci_eval("third")
        assert third["correctness"]["cached"] == records
        assert len(judge.requests) == asked + records  # nothing asked
        assert (
            "judge correctness (flaky): 3 question(s), 3 from cache, 0 failed; 0 call(s)" in printed
        )
