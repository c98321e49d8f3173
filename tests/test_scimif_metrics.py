"""CSR / ISR / DRFR on small fixtures whose values were computed by hand."""

from __future__ import annotations

import math

import pytest

from sci_tasks.metrics import scimif
from sci_tasks.metrics.constraints import registry
from sci_tasks.metrics.constraints.registry import CheckInput
from sci_tasks.metrics.verdict import Verdict

# Three samples, scores per scored constraint (None = unscored):
#   S1 [1, 1, 0]        sample CSR 2/3,  ISR 0, satisfied 2   of 3
#   S2 [1]              sample CSR 1,    ISR 1, satisfied 1   of 1
#   S3 [0.5, 1, None]   sample CSR 3/4,  ISR 0, satisfied 1.5 of 2 (one unscored)
SAMPLES = [[1.0, 1.0, 0.0], [1.0], [0.5, 1.0, None]]


def test_csr_is_the_mean_of_per_sample_ratios() -> None:
    # (2/3 + 1 + 3/4) / 3 = 2.416666.../3
    assert scimif.csr(SAMPLES) == pytest.approx(0.8055555555555556)


def test_isr_counts_samples_with_every_scored_constraint_met() -> None:
    assert scimif.isr(SAMPLES) == pytest.approx(1 / 3)


def test_drfr_is_a_ratio_of_sums_not_a_mean_of_ratios() -> None:
    # (2 + 1 + 1.5) / (3 + 1 + 2) = 4.5 / 6
    assert scimif.drfr(SAMPLES) == pytest.approx(0.75)
    assert scimif.drfr(SAMPLES) != pytest.approx(scimif.csr(SAMPLES))


def test_a_sample_with_nothing_scored_is_left_out_not_counted_as_failure() -> None:
    with_empty = [*SAMPLES, [None, None]]
    assert scimif.csr(with_empty) == pytest.approx(0.8055555555555556)
    assert scimif.isr(with_empty) == pytest.approx(1 / 3)
    assert scimif.drfr(with_empty) == pytest.approx(0.75)


def test_nothing_scored_at_all_is_nan_not_zero() -> None:
    assert math.isnan(scimif.csr([[None]]))
    assert math.isnan(scimif.drfr([[None]]))


def test_fractional_judge_scores_count_in_drfr_but_break_isr() -> None:
    # [0.5, 0.5] and [1, 1]: DRFR 3/4, CSR (0.5 + 1)/2, ISR 1/2
    samples = [[0.5, 0.5], [1.0, 1.0]]
    assert scimif.drfr(samples) == pytest.approx(0.75)
    assert scimif.csr(samples) == pytest.approx(0.75)
    assert scimif.isr(samples) == pytest.approx(0.5)


def test_lm_eval_aggregations_match_the_formulas() -> None:
    parts = [
        {"satisfied": 2.0, "scored": 3},
        {"satisfied": 1.0, "scored": 1},
        {"satisfied": 1.5, "scored": 2},
    ]
    assert scimif.ratio_of_sums(parts) == pytest.approx(0.75)
    assert scimif.mean_of_scored([2 / 3, 1.0, 0.75, None]) == pytest.approx(0.8055555555555556)
    assert scimif.unscored_rate(
        [{"unscored": 1, "total": 3}, {"unscored": 0, "total": 1}]
    ) == pytest.approx(0.25)
    assert scimif.total([1, 0, 2]) == 3.0


def test_final_output_drops_reasoning_blocks() -> None:
    assert scimif.final_output("<think>lots of 1.234</think>\nANSWER: 4") == "ANSWER: 4"
    assert scimif.final_output("reasoning without opening</think> Final") == "Final"
    assert scimif.final_output("plain") == "plain"


def test_process_results_reports_every_constraint_with_a_reason() -> None:
    doc = {
        "edit_question": "Answer in all uppercase letters.",
        "instruction_list": [
            {"instruction_name": "general_all_uppercase", "required_parameters": None},
            {"instruction_name": "made_up_constraint", "required_parameters": "x"},
            {"instruction_name": "life_analysis_steps_constraint", "required_parameters": None},
        ],
        "bundled_sample": True,
    }
    out = scimif.process_results(doc, ["THE CELL DIVIDES."])
    verdicts = out["drfr"]["constraints"]
    assert [v["score"] for v in verdicts] == [1.0, None, None]
    assert "unknown constraint 'made_up_constraint'" in verdicts[1]["reason"]
    assert verdicts[2]["constraint"] == "biology_analysis_steps_constraint"
    assert "judge" in verdicts[2]["reason"]
    assert out["csr"] == 1.0 and out["isr"] == 1.0
    assert out["drfr"]["satisfied"] == 1.0 and out["drfr"]["scored"] == 1
    assert out["unscored"] == 2
    assert out["unscored_rate"] == {"unscored": 2, "total": 3}
    assert out["unknown_constraints"] == ["made_up_constraint"]
    assert scimif.names_listed([["b", "a"], [], ["a"]]) == "a, b"
    assert scimif.names_listed([[], []]) == "none"
    assert out["bundled_samples"] == 1.0
    assert out["correct"]["score"] is None and out["correct"]["reason"] == "no reference answer"


def test_a_crashing_checker_becomes_unscored_and_names_the_exception() -> None:
    name = "general_csv_constraint"
    original = registry.registered()[name]

    def explode(inp: CheckInput) -> Verdict:
        raise ZeroDivisionError("boom")

    registry._CHECKERS[name] = explode
    try:
        result = registry.evaluate(name, CheckInput("a,b\n1,2", None, "CSV please"))
    finally:
        registry._CHECKERS[name] = original
    assert result.score is None
    assert result.reason == "checker general_csv_constraint raised ZeroDivisionError: boom"
