"""SPM-Bench formulas against values computed by hand (spec ``spm_bench.md``)."""

from __future__ import annotations

import math

import pytest

from sci_tasks.benchmarks.spm_bench import metrics as spm
from sci_tasks.metrics.reply import NormaliseReply

GOLD = {"A", "B"}


# The spec's anti-gaming table (paper Table 1), gold {A, B}, lambda = 0.6, Gamma = 6.
# By hand, P' = TP / (TP + 6 FP), R = TP / (TP + FN):
#   {A}:         TP 1 FP 0 FN 1 -> P' = 1,   R = 1/2 -> 2*1*0.5/1.5   = 2/3 -> 0.6*2/3 = 0.40
#                standard F1 = 2*1 / (2 + 0 + 1) = 2/3 = 0.6667
#   {A,B,C}:     TP 2 FP 1 FN 0 -> P' = 2/8, R = 1   -> 2*0.25/1.25   = 0.4 -> 0.6*0.4 = 0.24
#                standard F1 = 4 / (4 + 1) = 0.8
#   {A,B,C,D}:   TP 2 FP 2 FN 0 -> P' = 2/14, R = 1  -> 2*(1/7)/(8/7) = 0.25 -> 0.6*0.25 = 0.15
#                standard F1 = 4 / (4 + 2) = 2/3 = 0.6667
@pytest.mark.parametrize(
    ("pred", "sip_rounded", "f1_rounded", "sip_exact", "f1_exact"),
    [
        ({"A", "B"}, 1.00, 1.00, 1.0, 1.0),
        ({"A"}, 0.40, 0.67, 0.4, 2 / 3),
        ({"A", "B", "C"}, 0.24, 0.80, 0.24, 0.8),
        ({"A", "B", "C", "D"}, 0.15, 0.67, 0.15, 2 / 3),
    ],
)
def test_spec_anti_gaming_table(
    pred: set[str], sip_rounded: float, f1_rounded: float, sip_exact: float, f1_exact: float
) -> None:
    assert round(spm.sip_f1(pred, GOLD), 2) == sip_rounded
    assert round(spm.f1(pred, GOLD), 2) == f1_rounded
    assert spm.sip_f1(pred, GOLD) == pytest.approx(sip_exact, abs=1e-12)
    assert spm.f1(pred, GOLD) == pytest.approx(f1_exact, abs=1e-12)


@pytest.mark.parametrize(
    ("pred", "gold", "counts", "em", "spc", "sip", "f1"),
    [
        # SPC: no wrong pick -> TP/|G|; any wrong pick -> 0
        ({"A", "B"}, {"A", "B"}, (2, 0, 0), 1.0, 1.0, 1.0, 1.0),
        ({"A"}, {"A", "B"}, (1, 0, 1), 0.0, 0.5, 0.4, 2 / 3),
        ({"A", "B", "C"}, {"A", "B"}, (2, 1, 0), 0.0, 0.0, 0.24, 0.8),
        # gold {A,B,C}, pred {A,D}: TP 1 FP 1 FN 2; P' = 1/7, R = 1/3
        # F = 2*(1/7)*(1/3) / (1/7 + 1/3) = (2/21)/(10/21) = 0.2 -> SIP 0.12; F1 = 2/(2+1+2) = 0.4
        ({"A", "D"}, {"A", "B", "C"}, (1, 1, 2), 0.0, 0.0, 0.12, 0.4),
        # gold {A,B,C}, pred {A,B}: TP 2 FN 1; P' = 1, R = 2/3 -> F = 0.8 -> SIP 0.48; SPC 2/3
        ({"A", "B"}, {"A", "B", "C"}, (2, 0, 1), 0.0, 2 / 3, 0.48, 0.8),
        ({"A"}, {"C"}, (0, 1, 1), 0.0, 0.0, 0.0, 0.0),  # TP = 0
        (set(), {"A", "B"}, (0, 0, 2), 0.0, 0.0, 0.0, 0.0),  # unparsed = empty selection
    ],
)
def test_per_question_metrics(
    pred: set[str],
    gold: set[str],
    counts: tuple[int, int, int],
    em: float,
    spc: float,
    sip: float,
    f1: float,
) -> None:
    assert spm.confusion(pred, gold) == counts
    assert spm.exact_match(pred, gold) == em
    assert spm.spc(pred, gold) == pytest.approx(spc)
    assert spm.sip_f1(pred, gold) == pytest.approx(sip)
    assert spm.f1(pred, gold) == pytest.approx(f1)


def test_sip_f1_parameters() -> None:
    # lambda 0.5, Gamma 2, gold {A,B}, pred {A,B,C}: P' = 2/(2+2) = 0.5, R = 1 -> F = 2/3 -> 1/3
    assert spm.sip_f1({"A", "B", "C"}, GOLD, lam=0.5, gamma=2) == pytest.approx(1 / 3)
    # lambda 1, Gamma 1 is the standard F1 for imperfect answers
    assert spm.sip_f1({"A", "B", "C"}, GOLD, lam=1, gamma=1) == pytest.approx(0.8)
    # a perfect answer is 1 whatever the parameters
    assert spm.sip_f1(GOLD, GOLD, lam=0.1, gamma=50) == 1.0
    with pytest.raises(ValueError, match="at least one label"):
        spm.sip_f1({"A"}, set())


def test_delta() -> None:
    # the four strategies above: SPC 1, 0.5, 0, 0 (mean 0.375); SIP-F1 1, 0.4, 0.24, 0.15
    # (mean 1.79 / 4 = 0.4475) -> Delta = 0.0725
    assert spm.delta([1, 0.5, 0, 0], [1, 0.4, 0.24, 0.15]) == pytest.approx(0.0725)
    assert spm.delta([0.2], [0.7]) == pytest.approx(0.5)  # absolute value
    assert math.isnan(spm.delta([], []))
    with pytest.raises(ValueError):
        spm.delta([1.0], [])


def test_ece_worked_example() -> None:
    """Five questions with a confidence (one without is left out), 10 bins of width 0.1:

    bin [0.9, 1.0]: 0.95 right, 0.90 wrong   mean conf 0.925, accuracy 0.5 -> |0.5 - 0.925| = 0.425
    bin [0.6, 0.7): 0.62 right, 0.65 right   mean conf 0.635, accuracy 1.0 -> 0.365
    bin [0.3, 0.4): 0.30 wrong               conf 0.30,      accuracy 0.0 -> 0.300
    ECE = 2/5 * 0.425 + 2/5 * 0.365 + 1/5 * 0.3 = 0.17 + 0.146 + 0.06 = 0.376
    """
    conf = [0.95, 0.9, 0.62, 0.65, 0.3, None]
    em = [1, 0, 1, 1, 0, 1]
    assert spm.ece(conf, em) == pytest.approx(0.376)


def test_ece_edges() -> None:
    assert spm.ece([1.0, 1.0], [1, 1]) == 0.0  # 1.0 falls in the last bin
    assert spm.ece([0.0, 0.0], [0, 0]) == 0.0
    assert spm.ece([0.0], [1]) == 1.0
    # 0.1 and 0.19 share bin [0.1, 0.2): mean conf 0.145, accuracy 0.5 -> 0.355
    assert spm.ece([0.1, 0.19], [1, 0]) == pytest.approx(0.355)
    # in separate bins the same answers give (|1 - 0.1| + |0 - 0.2|) / 2 = 0.55
    assert spm.ece([0.1, 0.2], [1, 0]) == pytest.approx(0.55)
    assert math.isnan(spm.ece([None, None], [1, 0]))
    with pytest.raises(ValueError, match="outside"):
        spm.ece([1.5], [1])


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("Answer: A, C", 5),  # Answer : A , C
        ("The d-spacing is 0.2 nm.", 10),  # The d - spacing is 0 . 2 nm .
        ("", 0),
        (None, 0),
        ("  \n ", 0),
    ],
)
def test_token_count(text: str | None, tokens: int) -> None:
    assert spm.count_tokens(text) == tokens


DOC = {
    "id": "q1",
    "labels": ["A", "B", "C", "D"],
    "answer": ["A", "B"],
    "technique": "STM",
    "field": "Topology",
    "bundled_sample": False,
}


def test_process_results_carries_scores_and_the_record() -> None:
    reply = "I see it.\nAnswer: A, B, C\nConfidence: 0.7"
    out = spm.process_results(DOC, [reply])
    assert (out["em"], out["spc"], out["f1"]) == (0.0, 0.0, pytest.approx(0.8))
    assert out["sip_f1"] == pytest.approx(0.24)
    assert out["ece"] == {"confidence": 0.7, "em": 0.0}
    # I see it . Answer : A , B , C Confidence : 0 . 7
    assert out["output_tokens"] == 16.0
    assert (out["unparsed_rate"], out["no_confidence_rate"], out["bundled_samples"]) == (
        0.0,
        0.0,
        0.0,
    )
    assert out["delta"] == {"spc": 0.0, "sip_f1": pytest.approx(0.24)}  # what Delta needs
    record = out["record"]
    keys = ("id", "technique", "field", "gold", "prediction", "confidence")
    assert {k: record[k] for k in keys} == {
        "id": "q1", "technique": "STM", "field": "Topology", "gold": ["A", "B"],
        "prediction": ["A", "B", "C"], "confidence": 0.7,
    }  # fmt: skip
    assert record["parsed"] and record["parse_note"] == "answer line: A, B, C"


def test_process_results_uses_the_tasks_sip_parameters_and_counts_unparsed() -> None:
    from sci_tasks.run_settings import RunSettings

    settings = RunSettings(options={"sip_lambda": 0.5, "sip_gamma": 2.0})  # the task's
    out = spm.process_results(DOC, ["Answer: A, B, C"], settings)
    assert out["sip_f1"] == pytest.approx(1 / 3)
    assert (out["record"]["sip_lambda"], out["record"]["sip_gamma"]) == (0.5, 2.0)
    default = spm.process_results(DOC, ["Answer: A, B, C"])["record"]  # no settings: 0.6 / 6
    assert (default["sip_lambda"], default["sip_gamma"]) == (0.6, 6.0)
    out = spm.process_results(DOC, [None])
    assert out["unparsed_rate"] == 1.0 and out["no_confidence_rate"] == 1.0
    assert (
        out["record"]["prediction"] == [] and out["sip_f1"] == 0.0 and out["output_tokens"] == 0.0
    )


def test_aggregations_over_records() -> None:
    replies = [
        "Answer: A, B\nConfidence: 0.9",  # EM 1, SPC 1, SIP 1
        "Answer: A\nConfidence: 0.6",  # EM 0, SPC 0.5, SIP 0.4
        "Answer: A, B, C\nConfidence: 0.95",  # EM 0, SPC 0, SIP 0.24
        "no idea",  # unparsed: 0 everywhere, no confidence
    ]
    outs = [spm.process_results(DOC, [r]) for r in replies]
    # SPC mean (1 + 0.5) / 4 = 0.375; SIP mean (1 + 0.4 + 0.24) / 4 = 0.41 -> Delta 0.035
    assert spm.delta_of_records(o["delta"] for o in outs) == pytest.approx(0.035)
    # bins: [0.9, 1.0] holds 0.9 (right) and 0.95 (wrong): conf 0.925, acc 0.5 -> 0.425 * 2/3
    #       [0.6, 0.7) holds 0.6 (wrong): 0.6 * 1/3  -> ECE = 0.28333 + 0.2 = 0.48333
    assert spm.ece_of_records(o["ece"] for o in outs) == pytest.approx(0.425 * 2 / 3 + 0.2)


def test_an_answer_inside_an_unclosed_think_scores_nothing() -> None:
    """A reply cut off while thinking, through the task's filter: its draft answer (the
    gold one) is no answer, so every per-question score is 0 and it counts as unparsed."""
    reply = "<think>Terraces and moire: A and B.\nAnswer: A, B\nConfidence: 0.9"
    (text,) = NormaliseReply().apply([reply], [DOC])
    out = spm.process_results(DOC, [text])
    assert (out["em"], out["spc"], out["sip_f1"], out["f1"]) == (0.0, 0.0, 0.0, 0.0)
    assert out["unparsed_rate"] == 1.0 and out["no_confidence_rate"] == 1.0
    assert out["record"]["prediction"] == [] and out["output_tokens"] == 0.0
    # closed reasoning is not counted as output either
    (text,) = NormaliseReply().apply(["<think>long reasoning here</think>Answer: A, B"], [DOC])
    assert spm.process_results(DOC, [text])["output_tokens"] == 5.0  # Answer : A , B
