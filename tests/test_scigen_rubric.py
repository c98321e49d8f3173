"""SciGen-Rubric: parsing generated rubrics, the match-matrix schema, RR / NHR / SF1 and the
macro average over domains by hand, and the one judge request per rubric against a real
OpenAI-compatible server on loopback (llm-katan)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from sci_tasks.benchmarks.scigen_verify import loader as data
from sci_tasks.benchmarks.scigen_verify import rubric
from sci_tasks.metrics.reply import normalise_reply
from sci_tasks.prompts import render
from sci_tasks.run_settings import RunSettings

from .servers import KATAN_KEY, katan
from .test_scigen_verify_metrics import config

RUBRIC = {
    "criteria": [
        {"criterion": "Ring", "weight": 6,
         "checking_points": ["Is the ring a regular hexagon?", "Are there three double bonds?"]},
        {"criterion": "Bonds", "weight": 4,
         "checking_points": ["Do double and single bonds alternate?"]},
    ]
}  # fmt: skip


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("SCI_TASKS_DATA_DIR", "SCIGEN_VERIFY_DATA_DIR"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("SCI_TASKS_TEST_JUDGE_KEY", KATAN_KEY)


# --- parsing the generated rubric ------------------------------------------------------------


def test_rubric_in_prose_with_reasoning_and_a_code_fence() -> None:
    reply = (
        '<think>Benzene needs six carbons... {"criteria": []}</think>Here is the rubric:\n'
        f"```json\n{json.dumps(RUBRIC, indent=1)}\n```\nHope this helps."
    )
    parsed = rubric.parse_rubric(normalise_reply(reply))  # as the task's filter leaves it
    assert parsed.parsed and [c.name for c in parsed.criteria] == ["Ring", "Bonds"]
    assert parsed.points == [  # flattened in order
        "Is the ring a regular hexagon?",
        "Are there three double bonds?",
        "Do double and single bonds alternate?",
    ]
    assert (parsed.weight_sum, parsed.weights_ok) == (10.0, True)


def test_weights_not_summing_to_ten_are_recorded_not_failed() -> None:
    nine = {"criteria": [{"criterion": "a", "weight": 4, "checking_points": ["p1"]},
                         {"criterion": "b", "weight": 3, "checking_points": ["p2"]},
                         {"criterion": "c", "weight": 2.0, "checking_points": ["p3"]}]}  # fmt: skip
    parsed = rubric.parse_rubric(json.dumps(nine))
    assert (parsed.weight_sum, parsed.weights_ok, len(parsed.points)) == (9.0, False, 3)
    record = rubric.score_rubric(
        {"id": "x", "domain": "physics", "instruction": "i", "gold_rules": ["g"]},
        json.dumps(nine),
        None,
    )
    assert (record["weight_sum"], record["weights_ok"]) == (9.0, False)
    assert record["rr"] is None and record["reason"] == "no judge configured"  # still scored
    missing = rubric.parse_rubric('{"criteria": [{"criterion": "a", "checking_points": ["p"]}]}')
    assert (missing.weight_sum, missing.weights_ok) == (None, False)


def test_what_is_not_a_rubric() -> None:
    # the prompt's own shape line is a template with <placeholders>, not JSON
    echo = render("scigen_rubric.jinja", {"instruction": "Draw benzene."})
    assert not rubric.parse_rubric(echo).parsed
    assert not rubric.parse_rubric("").parsed and not rubric.parse_rubric(None).parsed
    assert rubric.parse_rubric('{"criteria": "none"}').note == "'criteria' is not a list"
    # two rubrics: the last one counts; entries that are not criteria or text are skipped
    two = (
        json.dumps(RUBRIC)
        + " Revised: "
        + json.dumps(
            {
                "criteria": [
                    {"criterion": "r", "weight": 10, "checking_points": ["ok?", 3, "  "]},
                    "x",
                ]
            }
        )
    )
    parsed = rubric.parse_rubric(two)
    assert parsed.points == ["ok?"] and parsed.skipped == 3
    nested = rubric.parse_rubric('{"rubric": {"criteria": [{"checking_points": ["p"]}]}}')
    assert nested.points == ["p"]


# --- formulas ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("matrix", "n_rules", "rr", "nhr", "sf1"),
    [
        # M = 4, N = 5: rules {1, 2, 4} matched, points 1, 2, 4 match
        ([[1], [1, 2], [], [4], []], 4, 3 / 4, 3 / 5, 2 * 0.75 * 0.6 / 1.35),
        # two points on the same rule of five: RR 1/5, NHR 1, SF1 = 0.4 / 1.2
        ([[2], [2]], 5, 1 / 5, 1.0, 1 / 3),
        # nothing matches
        ([[], [], []], 3, 0.0, 0.0, 0.0),
        # every rule, every point
        ([[1, 2], [3]], 3, 1.0, 1.0, 1.0),
        # no points at all (the empty rubric)
        ([], 4, 0.0, 0.0, 0.0),
    ],
)
def test_structural_scores_by_hand(
    matrix: list[list[int]], n_rules: int, rr: float, nhr: float, sf1: float
) -> None:
    s = rubric.structural(matrix, n_rules)
    assert (s.rr, s.nhr, s.sf1) == (pytest.approx(rr), pytest.approx(nhr), pytest.approx(sf1))


def test_structural_rejects_rules_out_of_range() -> None:
    with pytest.raises(ValueError, match=r"rule numbers must be in 1\.\.2"):
        rubric.structural([[3]], 2)


def test_macro_over_domains_by_hand() -> None:
    items = [
        {"domain": "chemistry", "value": 0.5},
        {"domain": "chemistry", "value": 1.0},
        {"domain": "biology", "value": 0.0},
    ]
    assert rubric.macro_over_domains(items) == pytest.approx((0.75 + 0.0) / 2)  # micro: 0.5
    assert math.isnan(rubric.macro_over_domains([*items, {"domain": "physics", "value": None}]))
    assert math.isnan(rubric.macro_over_domains([]))


def test_match_schema_and_matrix() -> None:
    schema = rubric.match_schema(2, 4)
    jsonschema.validate({"P1": [1, 4], "P2": []}, schema)
    bad_replies: list[dict[str, list[Any]]] = [
        {"P1": [5], "P2": []},  # rule 5 of 4
        {"P1": [1]},  # P2 missing
        {"P1": [], "P2": [], "P3": []},  # a point that does not exist
        {"P1": ["1"], "P2": []},  # not an integer
        {"P1": [0], "P2": []},  # rules count from 1
    ]
    for bad in bad_replies:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)
    assert rubric.matrix_from_reply({"P1": [2, 1, 2], "P2": []}, 2) == [[1, 2], []]


def test_the_empty_rubric_scores_zero_without_a_judge() -> None:
    doc = {"id": "e", "domain": "biology", "instruction": "i", "gold_rules": ["a", "b"]}
    for reply in ('{"criteria": []}', "I cannot write a rubric."):
        values = rubric.process_results(doc, [reply])
        assert [values[k]["value"] for k in ("rr", "nhr", "sf1")] == [0.0, 0.0, 0.0]
        assert values["rubric_unscored"] == 0 and values["record"]["judge"] is None
        assert values["rubric_points"] == 0.0  # a number per rubric (lm-eval's mean)
    assert rubric.process_results(doc, ['{"criteria": []}'])["rubric_unparsed"] == 0.0
    assert rubric.process_results(doc, ["no rubric"])["rubric_unparsed"] == 1.0


# --- with a real judge server ----------------------------------------------------------------


def benzene_doc() -> dict[str, Any]:
    return next(d for d in data.load_rubric() if d["id"] == "rub-chem-benzene")


def test_one_judge_request_per_rubric(tmp_path: Path) -> None:
    doc = benzene_doc()
    request = rubric.match_request(doc["instruction"], doc["gold_rules"], rubric.parse_rubric(
        json.dumps(RUBRIC)).points)  # fmt: skip
    assert "1. Six carbon atoms form a regular hexagon." in request.prompt
    assert "P3. Do double and single bonds alternate?" in request.prompt
    assert sorted(request.schema["required"]) == ["P1", "P2", "P3"]

    with katan(tmp_path, model="judge-model") as server:
        # tool mode: a schema-valid matrix (katan fills arrays with []): judged, no matches
        judged = RunSettings(config(server, tmp_path, "tool"))  # the task's settings
        values = rubric.process_results(doc, [json.dumps(RUBRIC)], judged)
        assert server.requests_received() == 1
        assert values["rubric_points"] == 3.0
        record = values["record"]
        assert record["matrix"] == [[], [], []] and record["n_points"] == 3
        assert record["judge"].startswith("judge-model / judge/rubric_match.jinja@")
        assert [values[k]["value"] for k in ("rr", "nhr", "sf1")] == [0.0, 0.0, 0.0]
        assert values["rr"]["domain"] == "chemistry" and values["rubric_unscored"] == 0
        rubric.process_results(doc, [json.dumps(RUBRIC)], judged)  # cached: no new call
        assert server.requests_received() == 1

        # json_schema mode: the echo is no verdict -> retried, then unscored (None, counted)
        judged = RunSettings(config(server, tmp_path, "json_schema"))
        values = rubric.process_results(doc, [json.dumps(RUBRIC)], judged)
        assert server.requests_received() == 1 + 2
        assert values["rr"]["value"] is None and values["rubric_unscored"] == 1
        assert values["record"]["reason"].startswith("judge gave no verdict: unparseable")
        assert math.isnan(rubric.macro_over_domains([values["sf1"]]))


def test_a_judge_reply_turns_into_values_by_hand() -> None:
    """What a real judge would send for RUBRIC against the four benzene gold rules:
    P1 -> rule 1, P2 -> rule 2, P3 -> rules 2 and 3. Rules 1-3 of 4 matched, all 3 points."""
    matrix = rubric.matrix_from_reply({"P1": [1], "P2": [2], "P3": [3, 2]}, 3)
    jsonschema.validate({"P1": [1], "P2": [2], "P3": [3, 2]}, rubric.match_schema(3, 4))
    s = rubric.structural(matrix, 4)
    assert (s.matched_rules, s.matched_points) == (3, 3)
    assert (s.rr, s.nhr) == (0.75, 1.0) and s.sf1 == pytest.approx(1.5 / 1.75)
