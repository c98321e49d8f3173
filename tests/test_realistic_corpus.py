"""The corpus of replies written as strong chat models answer (``benchmarks/realistic/``):
its shape as the issue asks for it, and the agreement the checkers reach on it, so that a
change of a reading rule that loses verdicts on real replies fails here.

The floors are the figures measured when the corpus was made (issue 28), a little under:
the development parts, on which the rules were fixed, and the held-out sets, each read once
at the end of a round (their figures are the honest ones; benchmarks/realistic/README.md).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

from sci_tasks.metrics.constraints.catalogue import CONSTRAINTS
from sci_tasks.metrics.constraints.registry import canonical_name

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "benchmarks" / "realistic"


def _script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "realistic_verdicts", ROOT / "benchmarks" / "realistic_verdicts.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (CORPUS / name).read_text("utf-8").splitlines() if line]


def test_the_corpus_has_the_shape_the_issue_asks_for() -> None:
    questions = {q["qid"]: q for q in _rows("scimif/questions.jsonl")}
    replies = {r["reply_id"]: r for r in _rows("scimif/replies.jsonl")}
    labels = _rows("scimif/labels.jsonl")
    assert len(replies) >= 150
    assert {q["discipline"] for q in questions.values()} == {
        "chemistry", "geography", "biology", "material", "physics",
    }  # fmt: skip
    assert {r["qid"] for r in replies.values()} <= set(questions)
    for label in labels:  # every label names its reply and the record's constraint
        doc = questions[replies[label["reply_id"]]["qid"]]
        assert doc["instruction_list"][label["index"]]["instruction_name"] == label["constraint"]
        assert label["label"] in (0.0, 1.0, "unscored")
        assert len(label["votes"]) >= 2
    per_constraint = Counter(canonical_name(label["constraint"]) for label in labels)
    # the spec's 42 (the catalogue's extra released name, in_paper "no", has 2)
    assert min(per_constraint[n] for n, c in CONSTRAINTS.items() if c.in_catalogue) >= 5
    # every round keeps about a third or more held out (round four's part read at its end)
    held_out = [q for q in questions.values() if q["split"].startswith("heldout")]
    assert len(held_out) / len(questions) >= 1 / 3
    newest = [q for q in questions.values() if q["split"] == "heldout6"]
    assert len(newest) >= 15 and {q["discipline"] for q in newest} == {
        "chemistry", "geography", "biology", "material", "physics",
    }  # fmt: skip


@pytest.fixture(scope="module")
def items() -> list:
    return _script().scimif_items()


def _agreement(items: list, split: str) -> tuple[float, float]:
    part = [i for i in items if i.split == split and not i.judged]
    agree = sum(i.outcome == "agree" for i in part) / len(part)
    false_pass = sum(i.outcome == "false_pass" for i in part) / len(part)
    return agree, false_pass


def test_rule_decided_verdicts_agree_with_the_labels_as_measured(items: list) -> None:
    dev_agree, dev_false_pass = _agreement(items, "dev")
    assert dev_agree >= 0.96 and dev_false_pass <= 0.02, (dev_agree, dev_false_pass)
    # rounds three to six's development parts, worked on (dev6: 84.7% when first read)
    for part, floor in (("dev3", 0.90), ("dev4", 0.96), ("dev5", 0.96), ("dev6", 0.88)):
        agree, false_pass = _agreement(items, part)
        assert agree >= floor and false_pass <= 0.02, (part, agree, false_pass)
    # the spent held-out sets (each read once at the end of its round, then worked on)
    for part, floor in (
        ("heldout1", 0.88),
        ("heldout2", 0.88),
        ("heldout3", 0.92),
        ("heldout4", 0.88),  # 88.2% when read at the end of round four
        ("heldout5", 0.96),  # 80.9% when read at the end of round five
        ("heldout6", 0.96),  # 92.2% when read at the end of round six
    ):
        agree, false_pass = _agreement(items, part)
        assert agree >= floor and false_pass <= 0.03, (part, agree, false_pass)


def test_judge_decided_constraints_are_unscored_without_a_judge(items: list) -> None:
    judged = [i for i in items if i.judged]
    assert judged and all(i.score is None for i in judged)
    assert all("no LLM judge is configured" in i.reason for i in judged)


def test_spm_and_scigen_replies_read_as_meant_on_the_parts_worked_on() -> None:
    script = _script()
    for split, floor in (("dev", 0.98), ("dev4", 1.0), ("dev5", 1.0), ("dev6", 1.0)):
        n, labels_ok, _, wrong = script.spm_corpus(split)
        assert labels_ok / n >= floor, (split, wrong)
    n, labels_ok, both_ok, wrong = script.spm_corpus(None)  # the issue's bar: 97% of all
    assert labels_ok / n >= 0.97 and both_ok / n >= 0.97, wrong
    n, ok, wrong = script.scigen_corpus(None)
    assert ok == n, wrong
