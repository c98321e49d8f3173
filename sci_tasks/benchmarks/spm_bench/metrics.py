"""SPM-Bench scoring: per-question EM / SPC / SIP-F1 / F1 and the run-level Delta and ECE.

Per question, with gold set G, prediction P, TP = |P & G|, FP = |P - G|, FN = |G - P|
(spec ``spm_bench.md``):

* EM      = 1 if P == G else 0
* SPC     = 0 if FP > 0 else TP / |G|                    (standard partial credit)
* SIP-F1  = 1 if P == G, 0 if TP == 0, else lambda * 2 P' R / (P' + R)
            with P' = TP / (TP + Gamma * FP), R = TP / (TP + FN); lambda = 0.6, Gamma = 6
* F1      = 2 TP / (2 TP + FP + FN)                      (standard, for comparison)

Per run: Delta = |mean SPC - mean SIP-F1|; ECE of the stated confidence against EM over
10 equal-width bins; mean output tokens; the share of unparsed answers and of replies
without a usable confidence. An unparsed reply is an empty selection: it scores 0 on every
per-question metric and still counts in every mean.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from sci_tasks.benchmarks.spm_bench.loader import (
    DEFAULT_SIP_GAMMA,
    DEFAULT_SIP_LAMBDA,
    sip_parameters,
)
from sci_tasks.benchmarks.spm_bench.parse import parse_response
from sci_tasks.run_settings import NO_SETTINGS, RunSettings

SIP_LAMBDA = 0.6
SIP_GAMMA = 6.0
ECE_BINS = 10
_TOKEN = re.compile(r"\w+|[^\w\s]")


def confusion(pred: Collection[str], gold: Collection[str]) -> tuple[int, int, int]:
    """(TP, FP, FN) of a selection against the gold set."""
    p, g = set(pred), set(gold)
    if not g:
        raise ValueError("a gold set has at least one label")
    return len(p & g), len(p - g), len(g - p)


def exact_match(pred: Collection[str], gold: Collection[str]) -> float:
    return float(set(pred) == set(gold))


def spc(pred: Collection[str], gold: Collection[str]) -> float:
    """Standard partial credit: any wrong selection zeroes the question."""
    tp, fp, _ = confusion(pred, gold)
    return 0.0 if fp else tp / len(set(gold))


def sip_f1(
    pred: Collection[str], gold: Collection[str], lam: float = SIP_LAMBDA, gamma: float = SIP_GAMMA
) -> float:
    """Strict Imperfection Penalty F1: an imperfect answer is capped at ``lam`` and each
    false positive weighs ``gamma`` times in the precision."""
    tp, fp, fn = confusion(pred, gold)
    if set(pred) == set(gold):
        return 1.0
    if tp == 0:
        return 0.0
    precision = tp / (tp + gamma * fp)
    recall = tp / (tp + fn)
    return lam * 2 * precision * recall / (precision + recall)


def f1(pred: Collection[str], gold: Collection[str]) -> float:
    tp, fp, fn = confusion(pred, gold)
    return 2 * tp / (2 * tp + fp + fn)


def delta(spc_values: Iterable[float], sip_values: Iterable[float]) -> float:
    """|mean SPC - mean SIP-F1| over the same questions (the "reasoning personality" gap)."""
    a, b = list(spc_values), list(sip_values)
    if len(a) != len(b):
        raise ValueError("SPC and SIP-F1 need one value per question each")
    return abs(_mean(a) - _mean(b)) if a else math.nan


def ece(
    confidences: Iterable[float | None], correct: Iterable[float], bins: int = ECE_BINS
) -> float:
    """Expected calibration error: sum over equal-width bins of (n_b / N) * |acc_b - conf_b|.

    Bin b covers [b/bins, (b+1)/bins); the last bin also holds 1.0. Questions without a
    confidence (None) are left out; with none left the result is NaN.
    """
    counts = [0] * bins
    conf_sum = [0.0] * bins
    acc_sum = [0.0] * bins
    for conf, ok in zip(confidences, correct, strict=True):
        if conf is None:
            continue
        if not 0.0 <= conf <= 1.0:
            raise ValueError(f"confidence {conf} outside [0, 1]")
        b = min(int(conf * bins), bins - 1)
        counts[b] += 1
        conf_sum[b] += conf
        acc_sum[b] += ok
    total = sum(counts)
    if not total:
        return math.nan
    return sum(abs(acc_sum[b] - conf_sum[b]) / total for b in range(bins) if counts[b])


def count_tokens(text: str | None) -> int:
    """Model-independent token count: runs of word characters and single punctuation marks.

    No tokenizer of the evaluated model is available behind an API, so verbosity is
    measured the same way for every model (about 1.3 subword tokens per counted token).
    """
    return len(_TOKEN.findall(text or ""))


# --- lm-eval hooks -------------------------------------------------------------------------


def score(
    doc: Mapping[str, Any], response: str | None, settings: RunSettings = NO_SETTINGS
) -> dict[str, Any]:
    """One question's record: what was read from the reply and its scores. ``response`` is
    the normalised reply (``metrics.reply.NormaliseReply``: reasoning already removed);
    ``settings``: the task's (its SIP-F1 parameters, default 0.6 / 6; its image budget is
    recorded).

    Logged with ``--log_samples`` (as the ``record`` entry) so a report can be built from
    the samples files alone.
    """
    parsed = parse_response(response, doc["labels"], doc.get("options") or ())
    gold = list(doc["answer"])
    pred = list(parsed.labels)
    options = settings.options
    lam, gamma = sip_parameters(
        options.get("sip_lambda", DEFAULT_SIP_LAMBDA), options.get("sip_gamma", DEFAULT_SIP_GAMMA)
    )
    return {
        "id": doc["id"],
        "technique": doc["technique"],
        "field": doc["field"],
        "gold": gold,
        "prediction": pred,
        "parsed": parsed.parsed,
        "parse_note": parsed.note,
        "confidence": parsed.confidence,
        "confidence_note": parsed.confidence_note,
        "em": exact_match(pred, gold),
        "spc": spc(pred, gold),
        "sip_f1": sip_f1(pred, gold, lam, gamma),
        "f1": f1(pred, gold),
        "sip_lambda": lam,
        "sip_gamma": gamma,
        "output_tokens": count_tokens(response),
        "bundled_sample": bool(doc.get("bundled_sample")),
        "image_budget": settings.image_budget.fields(),
    }


def process_results(
    doc: dict[str, Any], results: list[str | None], settings: RunSettings = NO_SETTINGS
) -> dict[str, Any]:
    """Per-question values for every metric of the task YAML: numbers for the means, the
    parts Delta and ECE need, and the question's full record in ``record`` only."""
    record = score(doc, results[0] if results else "", settings)
    return {
        "em": record["em"],
        "spc": record["spc"],
        "sip_f1": record["sip_f1"],
        "f1": record["f1"],
        "delta": {"spc": record["spc"], "sip_f1": record["sip_f1"]},
        "ece": {"confidence": record["confidence"], "em": record["em"]},
        "output_tokens": float(record["output_tokens"]),
        "unparsed_rate": float(not record["parsed"]),
        "no_confidence_rate": float(record["confidence"] is None),
        "bundled_samples": float(record["bundled_sample"]),
        "record": record,
    }


def delta_of_records(records: Iterable[Mapping[str, Any]]) -> float:
    """Aggregation for ``delta``: from each question's SPC and SIP-F1."""
    rows = list(records)
    return delta((r["spc"] for r in rows), (r["sip_f1"] for r in rows))


def ece_of_records(records: Iterable[Mapping[str, Any]]) -> float:
    """Aggregation for ``ece``: stated confidence against EM, 10 equal-width bins."""
    rows = list(records)
    return ece((r["confidence"] for r in rows), (r["em"] for r in rows))


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)
