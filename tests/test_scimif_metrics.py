"""CSR / ISR / DRFR on small fixtures whose values were computed by hand."""

from __future__ import annotations

import math

import pytest
from lm_eval.api.metrics import nanmean

from sci_tasks.benchmarks.scimif import metrics as scimif
from sci_tasks.metrics import aggregate
from sci_tasks.metrics.constraints import registry
from sci_tasks.metrics.constraints.registry import CheckInput
from sci_tasks.metrics.reply import NormaliseReply
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
    # csr / isr / correct: lm-eval's nanmean leaves out the samples without a value (NaN)
    assert nanmean([2 / 3, 1.0, 0.75, math.nan]) == pytest.approx(0.8055555555555556)
    assert math.isnan(nanmean([math.nan, math.nan]))
    assert scimif.unscored_rate(
        [{"unscored": 1, "total": 3}, {"unscored": 0, "total": 1}]
    ) == pytest.approx(0.25)
    assert aggregate.total([1, 0, 2]) == 3.0
    assert aggregate.distinct_count([["b", "a"], [], ["a"]]) == 2.0
    assert aggregate.distinct_count([[], []]) == 0.0
    assert aggregate.count([{"constraints": []}, {"constraints": []}]) == 2.0


def scored_after_filter(doc: dict[str, object], reply: str) -> dict[str, object]:
    """process_results on the reply as the task's filter chain hands it over."""
    (text,) = NormaliseReply().apply([reply], [doc])
    return scimif.process_results(doc, [text])


TWO_DECIMALS = {
    "edit_question": "Give the mass to two decimal places.",
    "instruction_list": [
        {"instruction_name": "general_decimal_annotation", "source": "added_general",
         "required_parameters": "two decimal places"},
    ],
}  # fmt: skip


def test_reasoning_is_not_scored() -> None:
    # closed blocks and text before an unopened </think> are reasoning; what follows counts
    out = scored_after_filter(TWO_DECIMALS, "<think>about 4.2 or 4.255</think>\nMass: 4.25 g")
    assert [v["score"] for v in out["record"]["constraints"]] == [1.0]
    out = scored_after_filter(TWO_DECIMALS, "draft 4.2 g</think> Mass: 4.25 g")
    assert out["csr"] == 1.0
    out = scored_after_filter(TWO_DECIMALS, "<think>4.25 surely</think> Mass: 4.2 g")
    assert out["csr"] == 0.0


def test_an_answer_inside_an_unclosed_think_is_no_answer() -> None:
    """The bug this fixes: SciMIF scored the text after an unclosed ``<think>`` (a reply
    cut off while thinking) as the response, so a draft answer there passed."""
    out = scored_after_filter(TWO_DECIMALS, "<think>The mass is 4.25 g, two decimals.")
    (verdict,) = out["record"]["constraints"]
    assert verdict["score"] == 0.0, verdict["reason"]  # nothing was answered
    # the text before the unclosed <think> is the answer
    assert scored_after_filter(TWO_DECIMALS, "Mass: 4.25 g\n<think>check 4.2")["csr"] == 1.0


def test_process_results_reports_every_constraint_with_a_reason() -> None:
    doc = {
        "edit_question": "Answer in all uppercase letters.",
        "instruction_list": [
            {"instruction_name": "general_all_uppercase", "source": "original",
             "required_parameters": None},
            {"instruction_name": "made_up_constraint", "source": "added_general",
             "required_parameters": "x"},
            {"instruction_name": "life_analysis_steps_constraint", "source": "core_task",
             "required_parameters": None},
        ],
        "bundled_sample": True,
    }  # fmt: skip
    out = scimif.process_results(doc, ["THE CELL DIVIDES."])
    verdicts = out["record"]["constraints"]
    assert [v["score"] for v in verdicts] == [1.0, None, None]
    assert "unknown constraint 'made_up_constraint'" in verdicts[1]["reason"]
    assert verdicts[2]["constraint"] == "biology_analysis_steps_constraint"
    assert "judge" in verdicts[2]["reason"]
    assert out["csr"] == 1.0 and out["isr"] == 1.0
    assert out["drfr"] == {"satisfied": 1.0, "scored": 1}  # only what DRFR needs
    assert out["unscored"] == 2
    assert out["unscored_rate"] == {"unscored": 2, "total": 3}
    assert out["unknown_constraints"] == ["made_up_constraint"]
    assert out["bundled_samples"] == 1.0
    assert math.isnan(out["correct"])  # not graded: left out by nanmean
    correctness = out["record"]["correctness"]
    assert correctness["score"] is None and correctness["reason"] == "no reference answer"
    # each logged verdict carries the source of its instruction_list item
    assert [v["source"] for v in verdicts] == ["original", "added_general", "core_task"]
    # authors' convention: the unscored analysis-steps constraint counts 0, the unknown
    # name is left out: scores [1, 0] -> CSR 1/2, ISR 0, DRFR 1 of 2
    assert out["csr_unscored_as_fail"] == 0.5 and out["isr_unscored_as_fail"] == 0.0
    assert out["drfr_unscored_as_fail"] == {"satisfied": 1.0, "scored": 2}
    assert out["drfr_original"] == {"satisfied": 1.0, "scored": 1}
    assert out["drfr_core_task"] == {"satisfied": 0.0, "scored": 0}
    assert out["drfr_core_task_unscored_as_fail"] == {"satisfied": 0.0, "scored": 1}
    assert out["drfr_added_general_unscored_as_fail"] == {"satisfied": 0.0, "scored": 0}


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


# --- the authors' convention (unscored counts 0) and per-source DRFR -----------------------


def logged(source: str, score: float | None, known: bool = True) -> dict[str, object]:
    """One logged verdict; ``known=False`` is a name no checker knows."""
    return {"constraint": "c" if known else None, "source": source, "score": score}


# Four samples (source, score; None = unscored, "?" = unknown name):
#   A  orig 1, core 0, gen 1           headline [1, 0, 1]     authors [1, 0, 1]
#   B  core 1, gen None, core 0.5      headline [1, 0.5]      authors [1, 0, 0.5]
#   C  gen 1, gen ? None, orig 1       headline [1, 1]        authors [1, 1] (unknown left out)
#   D  core None, gen None             headline []            authors [0, 0]
LOGS = [
    [logged("original", 1.0), logged("core_task", 0.0), logged("added_general", 1.0)],
    [logged("core_task", 1.0), logged("added_general", None), logged("core_task", 0.5)],
    [logged("added_general", 1.0), logged("added_general", None, known=False),
     logged("original", 1.0)],
    [logged("core_task", None), logged("added_general", None)],
]  # fmt: skip


def test_headline_metrics_leave_unscored_out() -> None:
    scores = [scimif.scores_of(log) for log in LOGS]
    # CSR (2/3 + 3/4 + 1) / 3 (D has no value); ISR 1/3; DRFR (2 + 1.5 + 2) / (3 + 2 + 2)
    assert scimif.csr(scores) == pytest.approx((2 / 3 + 0.75 + 1) / 3)
    assert scimif.isr(scores) == pytest.approx(1 / 3)
    assert scimif.drfr(scores) == pytest.approx(5.5 / 7)


def test_unscored_as_fail_is_the_authors_convention() -> None:
    # CSR (2/3 + 1/2 + 1 + 0) / 4; ISR (0 + 0 + 1 + 0) / 4; DRFR (2 + 1.5 + 2 + 0) / 10
    assert scimif.csr_unscored_as_fail(LOGS) == pytest.approx((2 / 3 + 0.5 + 1) / 4)
    assert scimif.isr_unscored_as_fail(LOGS) == pytest.approx(0.25)
    assert scimif.drfr_unscored_as_fail(LOGS) == pytest.approx(0.55)
    assert scimif.sample_csr_unscored_as_fail(LOGS[3]) == 0.0
    assert scimif.sample_isr_unscored_as_fail(LOGS[3]) == 0.0
    assert math.isnan(scimif.csr_unscored_as_fail([]))


def test_drfr_per_source_in_both_conventions() -> None:
    # original: A 1, C 1 -> 2/2 both ways
    assert scimif.drfr_of_source(LOGS, "original") == 1.0
    assert scimif.drfr_unscored_as_fail(LOGS, "original") == 1.0
    # core_task: A 0, B 1, B 0.5, D None -> 1.5/3 headline, 1.5/4 authors
    assert scimif.drfr_of_source(LOGS, "core_task") == pytest.approx(0.5)
    assert scimif.drfr_unscored_as_fail(LOGS, "core_task") == pytest.approx(0.375)
    # added_general: A 1, B None, C 1, C unknown, D None -> 2/2 headline, 2/4 authors
    assert scimif.drfr_of_source(LOGS, "added_general") == 1.0
    assert scimif.drfr_unscored_as_fail(LOGS, "added_general") == pytest.approx(0.5)
    # no constraint of a source is NaN, not a failure
    assert math.isnan(scimif.drfr_of_source(LOGS[:1], "unknown_source"))


def test_the_task_yaml_aggregates_the_new_metrics_and_sci_score_reads_them() -> None:
    from sci_tasks.score import task_scoring

    scoring = task_scoring("scimif_chem")
    assert scoring is not None
    names = {"csr_unscored_as_fail", "isr_unscored_as_fail", "drfr_unscored_as_fail"}
    names |= {f"drfr_{s}{c}" for s in scimif.SOURCES for c in ("", "_unscored_as_fail")}
    assert names <= set(scoring.aggregations)
    item = {"required_parameters": None}
    docs = [
        {  # uppercase passes; number_response and analysis steps need a judge: unscored
            "edit_question": "Answer in all uppercase letters.",
            "instruction_list": [
                {**item, "instruction_name": "general_all_uppercase", "source": "original"},
                {**item, "instruction_name": "general_number_response",
                 "source": "added_general"},
                {**item, "instruction_name": "life_analysis_steps_constraint",
                 "source": "core_task"},
            ],
        },
        {  # nothing scored
            "edit_question": "Give three kinds of answers.",
            "instruction_list": [
                {**item, "instruction_name": "general_number_response",
                 "source": "added_general"},
            ],
        },
    ]  # fmt: skip
    per_sample = [scoring.process_results(doc, ["THE CELL DIVIDES."]) for doc in docs]

    def aggregate(metric: str) -> float:
        return scoring.aggregations[metric]([values[metric] for values in per_sample])

    # headline: only sample 1, one scored constraint, satisfied
    assert (aggregate("csr"), aggregate("isr"), aggregate("drfr")) == (1.0, 1.0, 1.0)
    # authors: sample 1 [1, 0, 0] -> CSR 1/3, sample 2 [0] -> 0; DRFR 1 of 4
    assert aggregate("csr_unscored_as_fail") == pytest.approx(1 / 6)
    assert aggregate("isr_unscored_as_fail") == 0.0
    assert aggregate("drfr_unscored_as_fail") == pytest.approx(0.25)
    assert aggregate("drfr_original") == 1.0
    assert math.isnan(aggregate("drfr_core_task")) and math.isnan(aggregate("drfr_added_general"))
    assert aggregate("drfr_core_task_unscored_as_fail") == 0.0
    assert aggregate("drfr_added_general_unscored_as_fail") == 0.0
