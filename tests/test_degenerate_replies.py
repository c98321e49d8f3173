"""Replies of a model stuck in a loop: each parser returns "nothing read" (no exception: one
sample's reply never ends a run). How long they take is measured by
benchmarks/reply_parsers_scaling.py, not here."""

from __future__ import annotations

import pytest

from sci_tasks.benchmarks.scigen_verify.parse import parse_verification
from sci_tasks.benchmarks.scigen_verify.rubric import parse_rubric
from sci_tasks.benchmarks.spm_bench.parse import parse_response
from sci_tasks.metrics.reply import json_objects, normalise_reply

NESTED = '{"a": ' * 5000  # deeper than Python's recursion limit: json raised RecursionError
LOOPS = [NESTED, "\n" * 50_000, "{" * 50_000, '{"' * 20_000, "<think> " * 10_000]


@pytest.mark.parametrize("reply", LOOPS, ids=["nested", "newlines", "braces", "open-keys", "think"])
def test_a_looping_reply_is_read_as_no_answer(reply: str) -> None:
    assert list(json_objects(reply)) == []
    answer = parse_response(reply, ["A", "B", "C", "D"])
    assert not answer.parsed and answer.labels == () and answer.confidence is None
    assert parse_verification(reply).judgement is None
    assert not parse_rubric(reply).parsed


def test_an_object_after_a_too_deep_one_is_still_found() -> None:
    assert list(json_objects(NESTED + '\n{"answer": "B"}')) == [(len(NESTED) + 1, {"answer": "B"})]


def test_think_tags_in_a_loop_leave_nothing_to_score() -> None:
    assert normalise_reply("<think> " * 10_000) == ""  # cut off while thinking
    assert normalise_reply("<think>x</think> " * 10_000 + "B") == "B"
