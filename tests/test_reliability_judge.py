"""No judge reply can crash a run: real loopback servers that misbehave (scripted bodies,
silent sockets, refused ports, llm-katan), a real cache folder that cannot be written."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from sci_tasks.benchmarks.scimif.metrics import grade_correctness
from sci_tasks.metrics.constraints import registry
from sci_tasks.metrics.constraints.registry import CheckInput
from sci_tasks.metrics.judge import JudgeClient, JudgeConfig, JudgeRequest

from .helpers import judge_settings
from .misbehaving import Reply, completion, refused_url, scripted_server, silent_server
from .servers import KATAN_KEY, Katan, katan
from .test_judge import REQUEST, SCHEMA

HTML = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
VERDICT = json.dumps({"verdict": True, "reason": "wet"})


def judge(base_url: str, tmp_path: Path, **overrides: Any) -> JudgeConfig:
    fast = {"backoff_initial": 0.01, "backoff_max": 0.05} | overrides
    return JudgeConfig(**judge_settings("scripted-judge", base_url, tmp_path, **fast))


def tool_judge(server: Katan, cache: Path) -> JudgeConfig:
    """llm-katan in tool mode: every reply a schema-valid verdict."""
    return JudgeConfig(
        server.model, server.base_url, api_key_env="SCI_TASKS_TEST_JUDGE_KEY",
        structured_output="tool", cache_dir=str(cache),
    )  # fmt: skip


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCI_TASKS_TEST_JUDGE_KEY", KATAN_KEY)


# --- 1. HTTP 200 bodies that are not chat completions -------------------------------------

JSON = "application/json"
MALFORMED: list[tuple[Reply, str]] = [
    ((200, "text/html", HTML),
     f"malformed reply: body is not JSON (text/html): {HTML.decode()[:60]!r}"),
    ((200, JSON, b""), "malformed reply: empty body"),
    ((200, JSON, b"[1, 2]"), "malformed reply: body is a JSON list, not a chat completion"),
    ((200, "application/json", b'{"choices": [{"index": 0, "message": null}]}'),
     "malformed reply: choice 0 has no message"),
    ((200, "application/json", b'{"object": "error", "message": "overloaded"}'),
     "malformed reply: the completion has no choices"),
]  # fmt: skip


@pytest.mark.parametrize(("reply", "reason"), MALFORMED)
def test_a_body_that_is_not_a_chat_completion_is_retried_then_unscored(
    tmp_path: Path, reply: Reply, reason: str
) -> None:
    with scripted_server(lambda _: reply) as server:
        client = JudgeClient(judge(server.base_url, tmp_path))
        answer = client.ask(REQUEST)
        assert (answer.data, answer.error) == (None, f"{reason} (after 3 attempts)")
        assert len(server.requests) == 3 == client.calls
        # never cached: a proxy's error page says nothing about the verdict
        JudgeClient(judge(server.base_url, tmp_path)).ask(REQUEST)
        assert len(server.requests) == 6
        # a judged constraint and answer correctness both end unscored with that reason
        inp = CheckInput("Step 1: stain. Step 2: image.", "2 steps", "Describe the protocol.")
        verdict = registry.evaluate("life_analysis_steps_constraint", inp, client)
        assert verdict.score is None
        assert verdict.reason == f"judge scripted-judge: {reason} (after 3 attempts)"
        doc = {"edit_question": "What is 2 + 2?", "answer": "4"}
        graded = grade_correctness(doc, "4", client)
        assert (graded["score"], graded["reason"]) == (None, f"{reason} (after 3 attempts)")


def test_a_malformed_body_then_a_good_one_is_a_verdict(tmp_path: Path) -> None:
    bodies = iter([(200, "text/html", HTML), (200, "application/json", completion(VERDICT))])
    with scripted_server(lambda _: next(bodies)) as server:
        answer = JudgeClient(judge(server.base_url, tmp_path)).ask(REQUEST)
        assert (answer.data, answer.attempts) == ({"verdict": True, "reason": "wet"}, 2)


# --- 2. a cache folder that cannot be written ---------------------------------------------


def test_an_unwritable_cache_is_skipped_with_one_warning_and_the_answers_kept(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a regular file: nothing can be created below it, not even by root")
    with katan(tmp_path) as server:
        cfg = tool_judge(server, blocker / "judge")
        client = JudgeClient(cfg)
        with caplog.at_level(logging.WARNING, logger="sci_tasks.metrics.judge.client"):
            # 12 verdicts, 8 in flight: the first failures meet at once, still one warning
            replies = client.ask_many([JudgeRequest(f"q{i}", SCHEMA, "p@1") for i in range(12)])
        assert [r.data for r in replies] == [{"verdict": True, "reason": "test_reason"}] * 12
        warnings = [r.getMessage() for r in caplog.records]
        assert len(warnings) == 1
        assert warnings[0].startswith(f"judge cache {blocker / 'judge'} cannot be written (")
        assert not blocker.is_dir() and server.requests_received() == 12


# --- 3. lone surrogates -------------------------------------------------------------------


def test_a_lone_surrogate_is_made_safe_once_and_the_judge_still_answers(tmp_path: Path) -> None:
    with katan(tmp_path) as server:
        cfg = tool_judge(server, tmp_path / "cache")
        client = JudgeClient(cfg)
        broken = JudgeRequest("Is the reply 'ok \ud800' correct?", SCHEMA, "p@1")
        assert broken.prompt == "Is the reply 'ok \ufffd' correct?"
        same = JudgeRequest("Is the reply 'ok \ufffd' correct?", SCHEMA, "p@1")
        assert client.cache_key(broken) == client.cache_key(same)
        assert client.ask(broken).data == {"verdict": True, "reason": "test_reason"}
        assert JudgeClient(cfg).ask(same).cached  # one key: the same cached reply
        assert server.requests_received() == 1
        # ordinary text is untouched, so existing cache keys stay valid
        assert JudgeRequest("été 😀", SCHEMA, "p@1").prompt == "été 😀"


def test_a_reply_holding_a_lone_surrogate_is_parsed(tmp_path: Path) -> None:
    body = completion(json.dumps({"verdict": False, "reason": "bad \ud800 char"}))
    assert b"\\ud800" in body
    with scripted_server(lambda _: (200, "application/json", body)) as server:
        answer = JudgeClient(judge(server.base_url, tmp_path)).ask(REQUEST)
        assert answer.data == {"verdict": False, "reason": "bad \ufffd char"}
        # and the raw reply went to the disk cache: a re-score reads it back
        assert JudgeClient(judge(server.base_url, tmp_path)).ask(REQUEST).cached


# --- 10. circuit breaker ------------------------------------------------------------------


def test_a_refusing_judge_trips_the_breaker_and_the_rest_is_unscored_at_once(
    tmp_path: Path,
) -> None:
    client = JudgeClient(judge(refused_url(), tmp_path, unavailable_after=3, max_attempts=4))
    requests = [JudgeRequest(f"q{i}", SCHEMA, "p@1") for i in range(20)]
    replies = client.ask_many(requests)
    reason = (
        "judge unavailable: 3 connection failures or timeouts in a row "
        "(last: connection error: Connection error.)"
    )
    assert [r.error for r in replies] == [reason] * 20
    assert client.calls < 3 + client.config.concurrency  # the in-flight ones at most
    assert client.unavailable == reason
    assert all(r.data is None for r in replies)


def test_a_silent_judge_trips_the_breaker_after_the_threshold_of_timeouts(
    tmp_path: Path,
) -> None:
    with silent_server() as server:
        cfg = judge(server.base_url, tmp_path, timeout=0.3, unavailable_after=2, concurrency=1)
        client = JudgeClient(cfg)
        replies = client.ask_many([JudgeRequest(f"q{i}", SCHEMA, "p@1") for i in range(10)])
        reason = (
            "judge unavailable: 2 connection failures or timeouts in a row "
            "(last: timeout after 0.3s)"
        )
        assert [r.error for r in replies] == [reason] * 10
        assert client.calls == 2  # 2 x 0.3 s, not 10 verdicts x 3 attempts x 0.3 s
        assert [r.attempts for r in replies] == [2] + [0] * 9


def test_server_errors_do_not_trip_the_breaker(tmp_path: Path) -> None:
    """A server that answers (HTTP 500, or a malformed body) is up: each verdict keeps its
    own retries and true reason."""
    with katan(tmp_path, "--error-rate", "1.0") as server:
        client = JudgeClient(judge(server.base_url, tmp_path, unavailable_after=2, cache=False))
        replies = client.ask_many([JudgeRequest(f"q{i}", SCHEMA, "p@1") for i in range(2)])
        assert [r.error for r in replies] == ["server error (HTTP 500) (after 3 attempts)"] * 2
        assert client.unavailable is None and server.requests_received() == 6


def test_the_threshold_is_a_judge_setting_with_a_default() -> None:
    assert JudgeConfig("m", "u").unavailable_after == 10
    cfg = JudgeConfig.from_mapping({"model": "m", "base_url": "u", "unavailable_after": "0"})
    assert cfg.unavailable_after == 0  # never
    with pytest.raises(ValueError, match="unavailable_after"):
        JudgeConfig("m", "u", unavailable_after=-1)


def test_a_key_pasted_as_the_variable_name_is_refused_without_echoing_it() -> None:
    with pytest.raises(ValueError) as info:
        JudgeConfig("m", "u", api_key_env="sk-proj-SECRET0123456789")
    assert "api_key_env must NAME an environment variable" in str(info.value)
    assert "SECRET" not in str(info.value)
