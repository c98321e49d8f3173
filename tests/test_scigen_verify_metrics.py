"""SciGen-Verify cascade: hand-computed Acc_a / Acc_e / Acc_i, the rules that decide without a
judge, unscored values without a judge, and the judges through the one judge client against
a real OpenAI-compatible server on loopback (llm-katan; in ``tool`` mode it answers with
schema-shaped arguments: booleans true, strings "test_<name>")."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import Any

import pytest
from lm_eval.api.metrics import mean

from sci_tasks.benchmarks.scigen_verify import loader as data
from sci_tasks.benchmarks.scigen_verify import metrics as verify
from sci_tasks.benchmarks.scigen_verify.parse import parse_verification
from sci_tasks.benchmarks.scigen_verify.report import breakdown, summarise
from sci_tasks.metrics import aggregate
from sci_tasks.metrics.judge import JudgeClient, JudgeConfig
from sci_tasks.metrics.judge.client import DiskCache
from sci_tasks.metrics.reply import NormaliseReply, normalise_reply
from sci_tasks.run_settings import RunSettings

from .helpers import judge_settings
from .servers import KATAN_KEY, Katan, katan

MARKER = "[image:image/png]"

# Replies to the six bundled instruction-following records, and what each must score.
# (id, reply, acc_a, acc_e with a judge that says yes, acc_i with a judge that says yes)
REPLIES: list[tuple[str, str, float, float, float | None]] = [
    ("if-phy-fbd-pos", "<answer>true</answer><explanation>Both arrows right.</explanation>",
     1, 1, None),
    ("if-phy-fbd-neg", "<answer>false</answer><explanation>N points down.</explanation>"
     "<edit>Point N up.</edit>", 1, 1, 1),
    ("if-bio-cell-pos", "No, it does not satisfy the instruction.", 0, 0, None),
    ("if-bio-cell-neg", "<answer>false</answer><explanation>No mitochondria.</explanation>",
     1, 1, 0),  # right, but no edit: Acc_i 0 by rule
    ("if-math-edit-pos", "<answer>true or false</answer>", 0, 0, None),  # no judgement
    ("if-math-edit-neg", "<think>same as source</think><answer>false</answer><explanation>"
     "The labels are unchanged.</explanation><edit>Swap the axis labels.</edit>", 1, 1, 1),
]  # fmt: skip
EXPLANATION_CALLS = 4  # right judgement with an explanation: fbd-pos, fbd-neg, cell-neg, edit-neg
EDIT_CALLS = 2  # right judgement on a negative with an edit: fbd-neg, edit-neg


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("SCI_TASKS_DATA_DIR", "SCIGEN_VERIFY_DATA_DIR"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("SCI_TASKS_TEST_JUDGE_KEY", KATAN_KEY)


def docs() -> dict[str, dict[str, Any]]:
    return {d["id"]: d for d in data.load(category="instruction_following")}


def config(server: Katan, tmp_path: Path, mode: str) -> JudgeConfig:
    settings = judge_settings(server.model, server.base_url, tmp_path, max_attempts=2)
    return JudgeConfig.from_mapping(settings | {"structured_output": mode})


def run_task(
    records: dict[str, dict[str, Any]], judge: JudgeConfig | None = None
) -> tuple[dict[str, float], list[dict[str, Any]]]:
    """The task's filter, process_results on every reply, then the task YAML's aggregations."""
    docs = [records[i] for i, *_ in REPLIES]
    texts = NormaliseReply().apply([reply for _, reply, *_ in REPLIES], docs)
    settings = RunSettings(judge)  # what the task hands its scorer (sci_tasks.task.SciTask)
    per_sample = [
        verify.process_results(d, [t], settings) for d, t in zip(docs, texts, strict=True)
    ]
    values = {
        "acc_a": mean([s["acc_a"] for s in per_sample]),
        "acc_e": verify.cascade_mean([s["acc_e"] for s in per_sample]),
        "acc_i": verify.acc_i_of_scores([s["acc_i"] for s in per_sample]),
        "acc_e_unscored": aggregate.total([s["acc_e_unscored"] for s in per_sample]),
        "acc_i_unscored": aggregate.total([s["acc_i_unscored"] for s in per_sample]),
        "unparsed_rate": mean([s["unparsed_rate"] for s in per_sample]),
    }
    assert all(isinstance(s["acc_a"], float) for s in per_sample)  # a number: lm-eval's stderr
    return values, [s["record"] for s in per_sample]


# --- pure formulas --------------------------------------------------------------------------


def test_formulas_by_hand() -> None:
    # right, right, wrong, none -> 2 / 4
    assert verify.acc_a([(True, True), (False, False), (False, True), (True, None)]) == 0.5
    assert verify.acc_e([1.0, 0.0, 0.0, 1.0, 0.0]) == pytest.approx(0.4)
    assert math.isnan(verify.acc_e([1.0, None]))  # unscored: NaN, never the mean of the rest
    assert math.isnan(verify.acc_e([]))
    # only negatives count for Acc_i: 1 of 3
    assert verify.acc_i([(True, 1.0), (False, 1.0), (False, 0.0), (False, 0.0)]) == pytest.approx(
        1 / 3
    )
    assert math.isnan(verify.acc_i([(True, 1.0)]))  # no negatives
    assert math.isnan(verify.acc_i([(False, None), (False, 1.0)]))
    assert verify.judgement_score(False, None) == 0.0


def test_rules_decide_without_a_judge_and_the_rest_is_unscored() -> None:
    records = docs()
    values, rows = run_task(records)
    assert values["acc_a"] == pytest.approx(4 / 6)
    assert math.isnan(values["acc_e"]) and math.isnan(values["acc_i"])  # never 0
    assert values["acc_e_unscored"] == EXPLANATION_CALLS
    assert values["acc_i_unscored"] == EDIT_CALLS
    assert values["unparsed_rate"] == pytest.approx(1 / 6)
    by_id = {r["id"]: r for r in rows}
    assert by_id["if-bio-cell-pos"]["acc_e"] == 0.0
    assert by_id["if-bio-cell-pos"]["acc_e_reason"] == "judgement False wrong"
    assert by_id["if-math-edit-pos"]["acc_e_reason"] == "no judgement"
    assert by_id["if-bio-cell-neg"]["acc_i"] == 0.0
    assert by_id["if-bio-cell-neg"]["acc_i_reason"] == "no edit given (a missing edit is invalid)"
    assert by_id["if-phy-fbd-neg"]["acc_e"] is None
    assert by_id["if-phy-fbd-neg"]["acc_e_reason"] == "no judge configured"
    assert by_id["if-phy-fbd-pos"]["acc_i"] is None  # positives: never scored
    assert by_id["if-phy-fbd-pos"]["acc_i_reason"] == "positive sample: edit not scored"
    for row in rows:  # per-sample records carry category and discipline
        assert row["category"] == "instruction_following" and row["discipline"]
    no_explanation = verify.score_sample(records["if-phy-fbd-pos"], "<answer>true</answer>")
    assert (no_explanation["acc_e"], no_explanation["acc_e_reason"]) == (
        0.0,
        "no explanation given",
    )


def test_judge_requests_carry_text_and_for_the_edit_the_images() -> None:
    doc = docs()["if-math-edit-neg"]
    parsed = parse_verification(normalise_reply(REPLIES[-1][1]))
    e = verify.explanation_request(doc, parsed)
    assert e.images == () and e.schema == verify.EXPLANATION_SCHEMA
    assert doc["instruction"] in e.prompt and doc["explanation"] in e.prompt
    assert "The labels are unchanged." in e.prompt and "does NOT satisfy" in e.prompt
    assert e.prompt_version.startswith("judge/verify_explanation.jinja@")
    i = verify.edit_request(doc, parsed)
    assert list(i.images) == [*doc["source_images"], *doc["images"]] and len(i.images) == 2
    assert doc["edit"] in i.prompt and "Swap the axis labels." in i.prompt
    assert "The first image is the source given to the image editor" in i.prompt
    assert i.prompt_version.startswith("judge/verify_edit.jinja@")


# --- with a real judge server ------------------------------------------------------------------


def test_tool_judge_gives_judged_values_cached_and_with_provenance(tmp_path: Path) -> None:
    records = docs()
    with katan(tmp_path, model="judge-model") as server:
        cfg = config(server, tmp_path, "tool")
        values, rows = run_task(records, cfg)
        assert server.requests_received() == EXPLANATION_CALLS + EDIT_CALLS
        assert values["acc_a"] == pytest.approx(4 / 6)
        assert values["acc_e"] == pytest.approx(4 / 6)
        assert values["acc_i"] == pytest.approx(2 / 3)  # fbd-neg 1, cell-neg 0, edit-neg 1
        assert values["acc_e_unscored"] == 0 and values["acc_i_unscored"] == 0
        for (sample_id, _, a, e, i), row in zip(REPLIES, rows, strict=True):
            assert (row["id"], row["acc_a"], row["acc_e"], row["acc_i"]) == (sample_id, a, e, i)
        by_id = {r["id"]: r for r in rows}
        judged = by_id["if-math-edit-neg"]
        assert judged["acc_e_judge"].startswith("judge-model / judge/verify_explanation.jinja@")
        assert judged["acc_i_judge"].startswith("judge-model / judge/verify_edit.jinja@")
        assert judged["acc_e_reason"] == "equivalent: test_reason"
        assert judged["acc_i_reason"] == "valid edit: test_reason"
        assert by_id["if-bio-cell-pos"]["acc_e_judge"] is None  # decided by rule

        # re-scoring the same replies with a fresh client: all from the disk cache, no calls
        again, _ = run_task(records, dataclasses.replace(cfg, name="again"))
        assert server.requests_received() == EXPLANATION_CALLS + EDIT_CALLS
        assert again == values

    # the report's per-discipline breakdown over these records
    rows_by = {r.name: r for r in breakdown(rows, "discipline")}
    assert (rows_by["physics"].acc_a, rows_by["physics"].acc_e, rows_by["physics"].acc_i) == (
        1.0,
        1.0,
        1.0,
    )
    assert (rows_by["biology"].acc_a, rows_by["biology"].acc_e, rows_by["biology"].acc_i) == (
        0.5,
        0.5,
        0.0,
    )
    assert (rows_by["mathematics"].samples, rows_by["mathematics"].negatives) == (2, 1)
    assert (rows_by["mathematics"].acc_a, rows_by["mathematics"].acc_i) == (0.5, 1.0)
    overall = summarise("overall", "all", rows)
    assert (overall.samples, overall.negatives, overall.unparsed) == (6, 3, 1)
    assert overall.acc_i == pytest.approx(2 / 3)


def test_unparseable_judge_replies_are_unscored_and_the_images_reached_the_judge(
    tmp_path: Path,
) -> None:
    """In json_schema mode the echo server replies with the prompt, which is not a verdict:
    retried, then unscored. Its raw replies (cached) show the images it received."""
    records = docs()
    with katan(tmp_path, model="echo-judge") as server:
        cfg = config(server, tmp_path, "json_schema")
        values, rows = run_task(records, cfg)
        assert server.requests_received() == (EXPLANATION_CALLS + EDIT_CALLS) * cfg.max_attempts
    assert values["acc_a"] == pytest.approx(4 / 6)
    assert math.isnan(values["acc_e"]) and math.isnan(values["acc_i"])
    assert (values["acc_e_unscored"], values["acc_i_unscored"]) == (EXPLANATION_CALLS, EDIT_CALLS)
    reason = {r["id"]: r for r in rows}["if-phy-fbd-neg"]["acc_i_reason"]
    assert reason.startswith("judge gave no verdict: unparseable reply")

    client = JudgeClient(cfg)
    cache = DiskCache(Path(cfg.cache_dir or ""))
    for sample_id, n_images in (("if-phy-fbd-neg", 1), ("if-math-edit-neg", 2)):
        doc = records[sample_id]
        parsed = parse_verification(
            normalise_reply(dict((i, r) for i, r, *_ in REPLIES)[sample_id])
        )
        for attempt in (1, 2):
            edit_reply = cache.get(
                f"{client.cache_key(verify.edit_request(doc, parsed))}-{attempt}"
            )
            assert edit_reply is not None and edit_reply.count(MARKER) == n_images
            assert doc["edit"] in edit_reply  # the reference edit was in the prompt
        explanation_reply = cache.get(
            f"{client.cache_key(verify.explanation_request(doc, parsed))}-1"
        )
        assert explanation_reply is not None and MARKER not in explanation_reply  # text only
    json.dumps(rows)  # records are plain JSON for the samples log


def test_an_answer_inside_an_unclosed_think_is_no_judgement() -> None:
    """A reply cut off while thinking, through the task's filter: the right verdict written
    inside the reasoning is no judgement (Acc_a 0, unparsed), and no judge is asked."""
    doc = docs()["if-phy-fbd-neg"]
    reply = "<think>N points down, so <answer>false</answer><explanation>N points down."
    (text,) = NormaliseReply().apply([reply], [doc])
    out = verify.process_results(doc, [text])
    assert (out["acc_a"], out["acc_e"], out["unparsed_rate"]) == (0.0, 0.0, 1.0)
    assert out["acc_i"] == {"score": 0.0, "negative": True}
    assert out["record"]["acc_e_reason"] == "no judgement"
