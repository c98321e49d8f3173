"""The judge client against a real OpenAI-compatible server on loopback (llm-katan, echo
backend, with its fault injection). Requests are counted at the server, from its log."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sci_tasks.metrics.constraints import registry
from sci_tasks.metrics.constraints.judged import STEPS_SCHEMA
from sci_tasks.metrics.constraints.registry import CheckInput
from sci_tasks.metrics.judge import JudgeClient, JudgeConfig, JudgeRequest, parse_strict
from sci_tasks.metrics.judge.client import ReplyError

from .helpers import judge_settings
from .servers import KATAN_KEY, Katan, katan

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"verdict": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["verdict", "reason"],
    "additionalProperties": False,
}
REQUEST = JudgeRequest(
    'Is water wet? Reply as {"verdict": true, "reason": "..."}', SCHEMA, "test-prompt@1"
)


def config(server: Katan, tmp_path: Path, **overrides: Any) -> JudgeConfig:
    return JudgeConfig(**judge_settings(server.model, server.base_url, tmp_path, **overrides))


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCI_TASKS_TEST_JUDGE_KEY", KATAN_KEY)


# --- strict parsing -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "error"),
    [
        ('{"verdict": true, "reason": "ok"}', None),
        ('```json\n{"verdict": false, "reason": "no"}\n```', None),
        ("", "empty reply"),
        # an echo of the prompt holds a JSON object: a lenient parser would pick it out
        ('[echo] User: Reply as {"verdict": true, "reason": "..."}', "not JSON"),
        ('Sure! {"verdict": true, "reason": "x"}', "not JSON"),
        ('[{"verdict": true, "reason": "x"}]', "JSON list, not an object"),
        ('{"verdict": "yes", "reason": "x"}', "schema violation: 'yes' is not of type 'boolean'"),
        ('{"verdict": true}', "schema violation: 'reason' is a required property"),
        ('{"response": "[echo] ..."}', "schema violation"),
    ],
)
def test_replies_are_parsed_strictly(content: str, error: str | None) -> None:
    if error is None:
        assert set(parse_strict(content, SCHEMA)) == {"verdict", "reason"}
    else:
        with pytest.raises(ReplyError, match=error.replace("(", r"\(").replace(")", r"\)")):
            parse_strict(content, SCHEMA)


def test_config_is_data_and_never_holds_a_key() -> None:
    env = {
        "SCI_TASKS_JUDGE_MODEL": "qwen-judge",
        "SCI_TASKS_JUDGE_BASE_URL": "http://127.0.0.1:9/v1",
        "SCI_TASKS_JUDGE_CONCURRENCY": "16",
        "SCI_TASKS_JUDGE_TIMEOUT": "2.5",
        "SCI_TASKS_JUDGE_CACHE": "false",
    }
    cfg = JudgeConfig.from_env(env)
    assert cfg is not None
    assert (cfg.model, cfg.concurrency, cfg.timeout, cfg.cache) == ("qwen-judge", 16, 2.5, False)
    assert JudgeConfig.from_env({}) is None
    with pytest.raises(ValueError, match="api_key_env"):
        JudgeConfig.from_mapping({"model": "m", "base_url": "u", "api_key": "sk-secret"})
    with pytest.raises(ValueError, match="unknown judge setting"):
        JudgeConfig.from_mapping({"model": "m", "base_url": "u", "temprature": 0})


def test_backoff_honours_retry_after_and_grows_exponentially() -> None:
    client = JudgeClient(
        JudgeConfig("m", "http://127.0.0.1:9/v1", backoff_initial=1, backoff_max=8)
    )
    assert client.backoff(1, retry_after=3.0) == 3.0
    assert client.backoff(1, retry_after=60.0) == 8.0  # capped
    assert all(0 <= client.backoff(4, None) <= 8.0 for _ in range(50))
    assert max(client.backoff(3, None) for _ in range(200)) > 1.0  # window 4 s at attempt 3


# --- against the server ------------------------------------------------------------------


def test_valid_verdicts_are_cached_on_disk_and_rescoring_makes_no_calls(tmp_path: Path) -> None:
    with katan(tmp_path) as server:
        cfg = config(server, tmp_path, structured_output="tool")
        first = JudgeClient(cfg).ask(REQUEST)
        assert first.data == {"verdict": True, "reason": "test_reason"}
        assert (first.attempts, first.cached) == (1, False)
        assert server.requests_received() == 1
        again = JudgeClient(cfg).ask(REQUEST)  # a new process would see the same disk cache
        assert again.data == first.data and again.cached
        assert server.requests_received() == 1
        other = JudgeClient(config(server, tmp_path, structured_output="tool", max_tokens=99))
        other.ask(REQUEST)  # decoding settings are part of the key
        assert server.requests_received() == 2


def test_an_echoed_prompt_is_unparseable_retried_then_unscored(tmp_path: Path) -> None:
    with katan(tmp_path) as server:
        client = JudgeClient(config(server, tmp_path))
        reply = client.ask(REQUEST)
        assert reply.data is None
        assert reply.error is not None
        assert reply.error.startswith("unparseable reply: not JSON")
        assert reply.error.endswith("(after 3 attempts)")
        assert server.requests_received() == 3 == client.calls
        # a failure is never served from the cache as final: a new run asks again (the
        # judge may have been fixed meanwhile), and the new reply replaces the stored one
        replay = JudgeClient(config(server, tmp_path)).ask(REQUEST)
        assert replay.error == reply.error and not replay.cached
        assert server.requests_received() == 6


def test_json_mode_without_the_schema_fields_is_a_schema_violation(tmp_path: Path) -> None:
    with katan(tmp_path) as server:
        reply = JudgeClient(config(server, tmp_path, structured_output="json_object")).ask(REQUEST)
        assert reply.error is not None and "schema violation" in reply.error


@pytest.mark.parametrize(
    ("flags", "reason"),
    [
        (("--error-rate", "1.0"), "server error (HTTP 500) (after 3 attempts)"),
        (("--rate-limit-after", "1"), "rate limited (HTTP 429) (after 3 attempts)"),
        (("--timeout-after", "1"), "timeout (HTTP 504) (after 3 attempts)"),
    ],
)
def test_server_faults_are_retried_then_unscored_with_the_true_reason(
    tmp_path: Path, flags: tuple[str, ...], reason: str
) -> None:
    with katan(tmp_path, *flags) as server:
        warm = 1 if flags[0] != "--error-rate" else 0
        client = JudgeClient(config(server, tmp_path, cache=False))
        if warm:  # the first request passes (then the server starts refusing)
            client.ask(JudgeRequest("warm-up", SCHEMA, "test-prompt@1"))
        sent_before = client.calls
        reply = client.ask(REQUEST)
        assert reply.error == reason
        assert client.calls - sent_before == 3  # bounded by attempts, not by a clock
        assert server.requests_received() == warm * 3 + 3  # every retry really reached it


def test_a_slow_server_times_out_per_call_and_the_run_stays_bounded(tmp_path: Path) -> None:
    with katan(tmp_path, "--latency-ms", "3000") as server:
        client = JudgeClient(config(server, tmp_path, timeout=0.5, max_attempts=2, cache=False))
        reply = client.ask(REQUEST)
        assert reply.error == "timeout after 0.5s (after 2 attempts)"
        assert client.calls == 2  # each attempt ended at its own timeout; no third was sent


def test_concurrency_is_bounded(tmp_path: Path) -> None:
    """The server refuses (503) above 4 requests in flight; a client bounded at 4 never
    meets that refusal, though 12 requests run."""
    with katan(
        tmp_path, "--max-inflight", "4", "--max-concurrent", "16", "--latency-ms", "150"
    ) as server:
        client = JudgeClient(
            config(server, tmp_path, structured_output="tool", concurrency=4, cache=False)
        )
        requests = [JudgeRequest(f"question {i}", SCHEMA, "test-prompt@1") for i in range(12)]
        replies = client.ask_many(requests)
        assert [r.error for r in replies] == [None] * 12
        assert server.requests_received() == 12


def test_judged_constraint_records_the_judge_and_prompt_version(tmp_path: Path) -> None:
    with katan(tmp_path) as server:
        inp = CheckInput(
            "Step 1: stain. Step 2: image.", "2 steps: stain; image", "Describe the protocol."
        )
        tool = JudgeClient(config(server, tmp_path, structured_output="tool"))
        result = registry.evaluate("life_analysis_steps_constraint", inp, tool)
        assert result.score == 1.0  # the server's schema-shaped answer: 1 of 1 steps
        assert result.reason == "1/1 required steps: test_reason"
        assert result.judge is not None
        assert result.judge.startswith("echo-model / judge/scimif_steps.jinja@")
        echo = JudgeClient(config(server, tmp_path, max_attempts=2))
        failed = registry.evaluate("life_analysis_steps_constraint", inp, echo)
        assert failed.score is None
        assert failed.reason.startswith("judge echo-model: unparseable reply: not JSON")
        # a rule decides first where it can: an empty response never reaches the judge
        before = server.requests_received()
        empty = registry.evaluate("general_number_response", CheckInput(" ", None, "q"), tool)
        assert (empty.score, empty.reason) == (0.0, "empty response")
        assert server.requests_received() == before


def test_the_steps_schema_rejects_more_matches_than_required() -> None:
    from sci_tasks.metrics.constraints.judged import steps_verdict

    inp = CheckInput("r", None, "q")
    assert (
        steps_verdict({"required_steps": 4, "matched_steps": 3, "reason": "r"}, inp).score == 0.75
    )
    assert (
        steps_verdict({"required_steps": 2, "matched_steps": 3, "reason": "r"}, inp).score is None
    )
    assert STEPS_SCHEMA["properties"]["required_steps"]["minimum"] == 1


def test_extraction_accepts_only_spans_copied_from_the_response(tmp_path: Path) -> None:
    from sci_tasks.metrics.constraints.extraction import extract_span

    with katan(tmp_path) as server:
        tool = JudgeClient(config(server, tmp_path, structured_output="tool"))
        # the server's schema-shaped answer is {"found": true, "span": "test_span"}
        absent = CheckInput("The product is ethanol.", None, "q", judge=tool)
        assert extract_span(absent, "SMILES string") == (
            None,
            "extractor echo-model returned text not in the response: 'test_span'",
        )
        present = CheckInput("Product: test_span (see above).", None, "q", judge=tool)
        span, note = extract_span(present, "SMILES string")
        assert span == "test_span" and note.startswith(
            "extracted by echo-model / judge/extract.jinja@"
        )
    assert extract_span(CheckInput("x", None, "q"), "molecule") == (None, "no extractor configured")


def test_correctness_is_graded_by_the_judge_only_a_counts(tmp_path: Path) -> None:
    from sci_tasks.benchmarks.scimif.metrics import grade_correctness
    from sci_tasks.prompts import version

    doc = {"edit_question": "What is 2 + 2?", "answer": "4"}
    assert grade_correctness({"answer": None}, "4", None)["reason"] == "no reference answer"
    assert grade_correctness(doc, "4", None) == {
        "score": None,
        "grade": None,
        "reason": "no LLM judge is configured",
        "judge": None,
        "protocol": "json_grade",
        "prompt_version": version("judge/scimif_correctness.jinja"),
    }
    with katan(tmp_path) as server:
        # the server's schema-shaped answer takes the first enum value: grade "A"
        tool = JudgeClient(config(server, tmp_path, structured_output="tool"))
        graded = grade_correctness(doc, "The sum is 4.", tool)
        assert (graded["score"], graded["grade"]) == (1.0, "A")
        assert graded["judge"].startswith("echo-model / judge/scimif_correctness.jinja@")
        echo = JudgeClient(config(server, tmp_path, max_attempts=1))
        failed = grade_correctness(doc, "The sum is 4.", echo)
        assert failed["score"] is None and failed["reason"].startswith("unparseable reply")


# --- which judge scores a document: resolved once per task, held by the task ----------------


def test_two_tasks_loaded_with_different_judges_each_keep_their_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The judge is the task's (``SciTask.settings``), never the document's: a task loaded
    later with another judge, or an environment judge, changes nothing for a task loaded
    before, and the documents (their ``doc_hash``) are the same whatever the judge."""
    import json

    import sci_tasks
    from sci_tasks.metrics import judge as judges
    from sci_tasks.run_settings import doc_hash

    monkeypatch.setenv("SCI_TASKS_JUDGE_MODEL", "env-judge")
    monkeypatch.setenv("SCI_TASKS_JUDGE_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("SECRET_FOR_JUDGE_A", "sk-FAKE-a-0123456789")
    settings_a = {"model": "judge-a", "base_url": "http://127.0.0.1:9/v1",
                  "api_key_env": "SECRET_FOR_JUDGE_A", "concurrency": 3}  # fmt: skip

    def task_of(name: str, metadata: dict[str, Any]) -> Any:
        manager = sci_tasks.task_manager(metadata=metadata, include_defaults=False)
        return manager.load(name)["tasks"][name]

    chem = task_of("scimif_chem", {"judge": settings_a})
    bio = task_of("scimif_bio", {})  # no --metadata judge: the environment's
    rubric = task_of("scigen_rubric", {"judge": None})  # judge=none: no judge at all
    chem_env = task_of("scimif_chem", {})  # loaded after chem, with the environment's judge

    a = judges.client_for(chem.settings.judge)
    assert a is not None and (a.config.model, a.config.concurrency) == ("judge-a", 3)
    env_judge = judges.client_for(bio.settings.judge)
    assert env_judge is not None and env_judge.config.model == "env-judge"
    assert rubric.settings.judge is None
    assert judges.client_for(chem.settings.judge) is a  # one client per settings (a pool)
    assert chem_env.settings.judge == bio.settings.judge and chem.settings.judge.model == "judge-a"
    docs, env_docs = list(chem.test_docs()), list(chem_env.test_docs())
    assert [doc_hash(d) for d in docs] == [doc_hash(d) for d in env_docs]
    # the settings results record (the task config): the variable's NAME, never the key
    dumped = json.dumps(chem.dump_config(), default=str)
    assert json.loads(dumped)["metadata"]["judge"]["api_key_env"] == "SECRET_FOR_JUDGE_A"
    assert "sk-FAKE" not in dumped and "sk-FAKE" not in json.dumps(docs, default=str)


def test_resolve_reads_metadata_before_the_environment() -> None:
    from sci_tasks.metrics import judge as judges

    env = {"SCI_TASKS_JUDGE_MODEL": "env-judge", "SCI_TASKS_JUDGE_BASE_URL": "http://h/v1"}
    given = {"judge": {"model": "meta-judge", "base_url": "http://m/v1"}}
    assert judges.resolve(given, env) == JudgeConfig("meta-judge", "http://m/v1")
    assert judges.resolve({"judge": None}, env) is None  # said explicitly: no judge
    assert judges.resolve({}, env) == JudgeConfig("env-judge", "http://h/v1")
    assert judges.resolve({}, {}) is None
    with pytest.raises(ValueError, match='"judge" must be an object'):
        judges.resolve({"judge": "gpt-4.1"}, env)
    from sci_tasks.run_settings import RunSettings

    settings = RunSettings.of_task(given, env)
    assert settings.judge == JudgeConfig("meta-judge", "http://m/v1")
    assert settings.grader() == ("json_grade", settings.judge)  # no correctness judge: same
    assert RunSettings.of_task({"judge": None}, env).judge is None
