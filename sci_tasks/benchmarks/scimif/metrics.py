"""SciMIF scoring: per-sample constraint verdicts and the CSR / ISR / DRFR formulas.

Formulas (spec ``scimif.md``), for samples i with scored constraint scores s_ij in [0, 1]:

* CSR  = mean over samples of (sum_j s_ij / n_i)                       (macro)
* ISR  = mean over samples of [all s_ij == 1]
* DRFR = sum_i sum_j s_ij / sum_i n_i                                  (micro: ratio of sums)

Unscored constraints (unknown name, no checker yet, no judge, a checker that crashed) are
left out of every sum and counted on their own. A sample with no scored constraint at all
has no CSR / ISR value: it is left out of those means (and counted in ``unscored``).

The same three under the authors' convention (their adapter's ``summarize_results``), for
comparison with the paper's tables, carry the suffix ``_unscored_as_fail``: every
constraint of a known name that got no score (unreadable requirement, crashed checker,
failed or missing judge) scores 0 and stays in the sums, and a sample with nothing scored
has CSR 0 and ISR 0. A name that no checker knows is left out there too, as the authors'
adapter skips an unsupported instruction.

Per constraint source (``original``, ``core_task``, ``added_general``, the ``source`` of each
``instruction_list`` item): ``drfr_<source>`` = sum of s_ij over the sample constraints of
that source / their count, a ratio of sums like DRFR (the authors' ``<source>_accuracy``
is this ratio under their convention: ``drfr_<source>_unscored_as_fail``). NaN, not 0, when
no constraint has that source.

Scientific correctness is graded separately (A correct / B incorrect / C not attempted or
invalid; only A counts) and crossed with ISR: CF, CV, IF, IV, phi, Jaccard, chi-square. The
grader is the correctness judge role (``RunSettings.grader``): by default the constraint
judge with the project's JSON prompt (``json_grade``); or CompassVerifier's own protocol
(``compass_verifier``, ``compass_verifier_cot``), as the authors' released correctness
script grades: its documented prompt, a free-text reply read as that script reads it
(``read_verifier_reply``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sci_tasks.metrics.constraints.registry import CheckInput, ConstraintResult, evaluate
from sci_tasks.metrics.judge import JudgeClient, JudgeRequest, Jury, client_for
from sci_tasks.metrics.judge.client import ReplyError
from sci_tasks.metrics.judge.jury import agreement_metrics, combine_grades, each_juror
from sci_tasks.metrics.judge.usage import CORRECTNESS
from sci_tasks.prompts import render, version
from sci_tasks.run_settings import NO_SETTINGS, RunSettings

Scores = Sequence[float | None]  # one sample's constraint scores, None = unscored
Log = Sequence[Mapping[str, Any]]  # one sample's constraint verdicts as logged (see below)

SOURCES = ("original", "core_task", "added_general")
# with a jury: agreement between its jurors, per role (per sample: the jurors' grades of its
# correctness; the jurors' votes on each of its judged constraints)
JURY_METRICS = {
    "correctness": agreement_metrics("correct"),
    "constraints": agreement_metrics("constraints"),
}


def check_inputs(doc: dict[str, Any], response: str) -> list[tuple[str, CheckInput]]:
    """(constraint name as written, checker input) for every scored constraint of ``doc``.
    ``response`` is the normalised reply (``metrics.reply.NormaliseReply``, reasoning gone)."""
    text = response or ""
    question = doc.get("edit_question") or ""
    return [
        (item["instruction_name"], CheckInput(text, item.get("required_parameters"), question))
        for item in doc["instruction_list"]
    ]


def score_sample(
    doc: dict[str, Any], response: str, judge: JudgeClient | None = None
) -> list[ConstraintResult]:
    """Every constraint of ``doc['instruction_list']`` scored against ``response``."""
    return [evaluate(name, inp, judge) for name, inp in check_inputs(doc, response)]


def constraint_log(
    doc: dict[str, Any], verdicts: Sequence[ConstraintResult]
) -> list[dict[str, Any]]:
    """The logged form of a sample's verdicts: each with the ``source`` of its
    ``instruction_list`` item (None when the record gives none)."""
    items = doc["instruction_list"]
    return [
        {**v.as_dict(), "source": item.get("source")}
        for item, v in zip(items, verdicts, strict=True)
    ]


def scores_of(log: Log, source: str | None = None) -> list[float | None]:
    """Headline scores of a sample (None = unscored), optionally of one source only."""
    return [v["score"] for v in log if source is None or v.get("source") == source]


def scores_unscored_as_fail(log: Log, source: str | None = None) -> list[float]:
    """The authors' convention: a known constraint without a score counts 0; a name no
    checker knows is left out (their adapter skips unsupported instructions)."""
    return [
        0.0 if v["score"] is None else v["score"]
        for v in log
        if v["constraint"] is not None and (source is None or v.get("source") == source)
    ]


# --- per-sample values ----------------------------------------------------------------


def sample_csr(scores: Scores) -> float | None:
    scored = [s for s in scores if s is not None]
    return sum(scored) / len(scored) if scored else None


def sample_isr(scores: Scores) -> float | None:
    scored = [s for s in scores if s is not None]
    return float(all(s == 1.0 for s in scored)) if scored else None


def sample_csr_unscored_as_fail(log: Log) -> float:
    return sample_csr(scores_unscored_as_fail(log)) or 0.0


def sample_isr_unscored_as_fail(log: Log) -> float:
    return sample_isr(scores_unscored_as_fail(log)) or 0.0


# --- corpus-level formulas (lists of per-sample scores) ----------------------------------


def csr(samples: Iterable[Scores]) -> float:
    return _mean(sample_csr(s) for s in samples)


def isr(samples: Iterable[Scores]) -> float:
    return _mean(sample_isr(s) for s in samples)


def drfr(samples: Iterable[Scores]) -> float:
    return ratio_of_sums(_drfr_parts(s) for s in samples)


def _drfr_parts(scores: Scores) -> dict[str, float]:
    scored = [s for s in scores if s is not None]
    return {"satisfied": float(sum(scored)), "scored": len(scored)}


def csr_unscored_as_fail(samples: Iterable[Log]) -> float:
    return _mean(sample_csr_unscored_as_fail(log) for log in samples)


def isr_unscored_as_fail(samples: Iterable[Log]) -> float:
    return _mean(sample_isr_unscored_as_fail(log) for log in samples)


def drfr_unscored_as_fail(samples: Iterable[Log], source: str | None = None) -> float:
    return drfr(scores_unscored_as_fail(log, source) for log in samples)


def drfr_of_source(samples: Iterable[Log], source: str) -> float:
    return drfr(scores_of(log, source) for log in samples)


# --- scientific correctness (judge) -----------------------------------------------------

CORRECTNESS_TEMPLATE = "judge/scimif_correctness.jinja"
CORRECTNESS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "grade": {"type": "string", "enum": ["A", "B", "C"]},
        "reason": {"type": "string"},
    },
    "required": ["grade", "reason"],
    "additionalProperties": False,
}


# CompassVerifier (open-compass/CompassVerifier, src/prompts.py): CV_PROMPT and CV_COT_PROMPT
VERIFIER_TEMPLATES = {
    "compass_verifier": "judge/compass_verifier.jinja",
    "compass_verifier_cot": "judge/compass_verifier_cot.jinja",
}
# The verifier's reply, read as the authors' correctness script reads it (spec scimif.md):
# the last \boxed{A|B|C} of the upper-cased text, else its last standalone letter A/B/C,
# else a negative keyword (0), else a positive one (1). Nothing of these: unreadable.
# (The script's own pattern spells "boxed" in lower case against the upper-cased text, so
# there it never matches and the letter rule decides: docs/decisions.md.)
_BOXED = re.compile(r"\\BOXED\{([ABC])\}")
_LETTER = re.compile(r"(?<![A-Z])([ABC])(?![A-Z])")
_NEGATIVE = re.compile(r"\b(incorrect|invalid|false|no)\b")
_POSITIVE = re.compile(r"\b(correct|true|yes)\b")
REPLY_KEPT = 300  # characters of the verifier's reply kept in the record (its end: the verdict)


def read_verifier_reply(text: str) -> dict[str, Any]:
    """CompassVerifier's grade in its free-text reply: ``{"grade", "read_as", "reply"}``
    (keywords give A for positive, B for negative). Raises ReplyError when nothing in it is
    a grade; the authors' script counts such a reply 0 ("unparsed"), here it is retried,
    then unscored with this reason (``correct`` leaves it out)."""
    text = (text or "").strip()
    upper = text.upper()
    tail = text[-REPLY_KEPT:]
    boxed = _BOXED.findall(upper)
    if boxed:
        return {"grade": boxed[-1], "read_as": f"\\boxed{{{boxed[-1]}}}", "reply": tail}
    letters = _LETTER.findall(upper)
    if letters:
        return {"grade": letters[-1], "read_as": f"letter {letters[-1]}", "reply": tail}
    lower = text.lower()
    negative = _NEGATIVE.search(lower)
    if negative:
        return {"grade": "B", "read_as": f"negative keyword {negative[1]!r}", "reply": tail}
    positive = _POSITIVE.search(lower)
    if positive:
        return {"grade": "A", "read_as": f"positive keyword {positive[1]!r}", "reply": tail}
    raise ReplyError(
        f"no \\boxed{{A|B|C}}, letter or verdict word in the verifier's reply: {tail[:60]!r}"
    )


def correctness_request(doc: dict[str, Any], response: str, protocol: str) -> JudgeRequest:
    """The correctness question of ``protocol`` for ``response`` to ``doc``."""
    question = doc.get("edit_question") or doc.get("original_question") or ""
    template = VERIFIER_TEMPLATES.get(protocol)
    if template is not None:
        # the authors' script: question = edit_question, gold_answer = answer, llm_response =
        # the response, as they are (str.format, nothing trimmed); one user message, no
        # system prompt, no JSON mode
        context = {"question": question, "gold_answer": doc["answer"], "llm_response": response}
        return JudgeRequest(
            render(template, context),
            None,
            version(template),
            system="",
            read_reply=read_verifier_reply,
            role=CORRECTNESS,
        )
    context = {"question": question, "reference": doc["answer"], "response": response}
    return JudgeRequest(
        render(CORRECTNESS_TEMPLATE, context),
        CORRECTNESS_SCHEMA,
        version(CORRECTNESS_TEMPLATE),
        role=CORRECTNESS,
    )


def grade_correctness(
    doc: dict[str, Any], response: str, judge: JudgeClient | None, protocol: str = "json_grade"
) -> dict[str, Any]:
    """The correctness judge's A/B/C grade of ``response`` against the reference answer,
    asked and read by ``protocol`` (``judges.PROTOCOLS``).

    ``score`` is 1.0 for A, 0.0 for B or C, None when it cannot be graded (no judge, no
    reference answer, no readable reply), with the reason. The record names the judge, the
    protocol and the prompt version that graded it."""
    unscored = {"score": None, "grade": None, "judge": None, "protocol": protocol}
    if not doc.get("answer"):
        return {**unscored, "reason": "no reference answer", "prompt_version": None}
    request = correctness_request(doc, response or "", protocol)
    if judge is None:
        reason = "no LLM judge is configured"
        return {**unscored, "reason": reason, "prompt_version": request.prompt_version}
    reply = judge.ask(request)
    graded = {
        "judge": reply.provenance,
        "protocol": protocol,
        "prompt_version": reply.prompt_version,
    }
    if reply.data is None:
        return {"score": None, "grade": None, "reason": str(reply.error), **graded}
    grade = reply.data["grade"]
    if protocol in VERIFIER_TEMPLATES:
        reason = (
            f"read as {reply.data['read_as']} (verifier reply ends: {reply.data['reply'][-80:]!r})"
        )
    else:
        reason = reply.data["reason"]
    return {"score": 1.0 if grade == "A" else 0.0, "grade": grade, "reason": reason, **graded}


def grade_by_jury(
    doc: dict[str, Any], response: str, jury: Jury, protocol: str = "json_grade"
) -> dict[str, Any]:
    """The jury's grade (``metrics.judge.jury``): every juror asked at once, each juror's
    grade kept in ``jurors``, combined by the jury's rule (a tie is unscored)."""
    verdicts = each_juror(
        jury, lambda juror: grade_correctness(doc, response, client_for(juror), protocol)
    )
    combined = combine_grades(verdicts, jury.combine)
    return {
        **combined,
        "judge": jury.label,
        "protocol": protocol,
        "prompt_version": verdicts[0]["prompt_version"],
        "jurors": verdicts,
    }


def crossing(pairs: Iterable[tuple[float | None, float | None]]) -> dict[str, float]:
    """Correctness x instruction following over samples with both known.

    ``pairs`` are (correct, isr) per sample. Returns the proportions CF (correct and
    following), CV (correct, violated), IF (incorrect, following), IV (incorrect, violated),
    the count ``n``, phi, Jaccard = CF / (CF + CV + IF) and the two-sided p-value of
    Pearson's chi-square test (1 dof, no continuity correction); NaN where undefined."""
    from scipy.stats import chi2

    cells = {"CF": 0, "CV": 0, "IF": 0, "IV": 0}
    for correct, follows in pairs:
        if correct is None or follows is None:
            continue
        cells[("C" if correct == 1.0 else "I") + ("F" if follows == 1.0 else "V")] += 1
    n = sum(cells.values())
    out: dict[str, float] = {k: (v / n if n else math.nan) for k, v in cells.items()}
    out["n"] = float(n)
    cf, cv, if_, iv = (cells[k] for k in ("CF", "CV", "IF", "IV"))
    denominator = math.sqrt((cf + cv) * (if_ + iv) * (cf + if_) * (cv + iv))
    out["phi"] = (cf * iv - cv * if_) / denominator if denominator else math.nan
    union = cf + cv + if_
    out["jaccard"] = cf / union if union else math.nan
    # Pearson chi-square of a 2x2 table without correction equals n * phi^2
    out["chi2"] = n * out["phi"] ** 2 if denominator else math.nan
    out["p_value"] = float(chi2.sf(out["chi2"], 1)) if denominator else math.nan
    return out


# --- lm-eval hooks -----------------------------------------------------------------------


def process_results(
    doc: dict[str, Any], results: list[str], settings: RunSettings = NO_SETTINGS
) -> dict[str, Any]:
    """Per-sample values for lm-eval: numbers for the mean metrics (NaN = no value, read by
    ``nanmean``), the parts each ratio needs, and the sample's detail (every constraint's
    verdict, the correctness grade) in ``record`` only, which the samples log shows."""
    judge = client_for(settings.judge)  # the task's judges (sci_tasks.task.SciTask)
    agreement: dict[str, Any] = {}
    constraints_jury = settings.jury("constraints")
    if constraints_jury is None:
        log = constraint_log(doc, score_sample(doc, results[0], judge))
    else:
        from sci_tasks.metrics.constraint_jury import constraint_log_by_jury

        inputs = check_inputs(doc, results[0])
        log, items = constraint_log_by_jury(doc, inputs, constraints_jury)
        agreement = dict.fromkeys(JURY_METRICS["constraints"], items)
    rules_only = cascaded(doc, results[0], log, settings, judge)
    scores = scores_of(log)
    unscored = sum(s is None for s in scores)
    by_source: dict[str, Any] = {}
    for source in SOURCES:
        by_source[f"drfr_{source}"] = _drfr_parts(scores_of(log, source))
        failed = scores_unscored_as_fail(log, source)
        by_source[f"drfr_{source}_unscored_as_fail"] = _drfr_parts(failed)
    protocol, grader = settings.grader()
    jury = settings.jury()
    if jury is None:
        correctness = grade_correctness(doc, results[0], client_for(grader), protocol)
    else:
        correctness = grade_by_jury(doc, results[0], jury, protocol)
        grades = [v["grade"] for v in correctness["jurors"]]
        agreement |= dict.fromkeys(JURY_METRICS["correctness"], grades)
    return {
        **agreement,
        **rules_only,
        "correct": _number(correctness["score"]),
        "csr": _number(sample_csr(scores)),
        "isr": _number(sample_isr(scores)),
        "drfr": _drfr_parts(scores),
        "csr_unscored_as_fail": sample_csr_unscored_as_fail(log),
        "isr_unscored_as_fail": sample_isr_unscored_as_fail(log),
        "drfr_unscored_as_fail": _drfr_parts(scores_unscored_as_fail(log)),
        **by_source,
        "unscored": unscored,
        "unscored_rate": {"unscored": unscored, "total": len(scores)},
        "unknown_constraints": [v["name"] for v in log if v["constraint"] is None],
        "bundled_samples": float(bool(doc.get("bundled_sample"))),
        "record": {"constraints": log, "correctness": correctness},
    }


def cascaded(
    doc: dict[str, Any],
    response: str,
    log: list[dict[str, Any]],
    settings: RunSettings,
    judge: JudgeClient | None,
) -> dict[str, Any]:
    """Apply the task's cascade policies (``metrics.cascade``) to ``log`` in place; returns
    the rules-only figures of the sample to report beside the cascade's (none without a
    cascade)."""
    from sci_tasks.metrics import cascade

    policy_of = cascade.policies(settings.options)
    if not policy_of:
        return {}
    rules = scores_of(log)
    for i, (entry, (_, inp)) in enumerate(zip(log, check_inputs(doc, response), strict=True)):
        policy = policy_of.get(cascade.family(entry["constraint"], entry["domain"]) or "")
        if policy is not None:
            log[i] = cascade.decide(entry, inp, policy, judge)
    return {
        "csr_rules": _number(sample_csr(rules)),
        "isr_rules": _number(sample_isr(rules)),
        "drfr_rules": _drfr_parts(rules),
    }


# with a cascade: the rules-only figures beside the cascade's (the headline csr / isr / drfr)
RULES_METRICS = {"csr_rules": "nanmean", "isr_rules": "nanmean", "drfr_rules": "ratio_of_sums"}


def _number(value: float | None) -> float:
    """A per-sample value lm-eval's ``nanmean`` reads: NaN where the sample has none."""
    return math.nan if value is None else float(value)


def ratio_of_sums(parts: Iterable[Mapping[str, float]]) -> float:
    """Aggregation for drfr: total satisfied over total scored constraints."""
    return _ratio(parts, "satisfied", "scored")


def unscored_rate(parts: Iterable[Mapping[str, float]]) -> float:
    """Aggregation for unscored_rate: unscored constraints over all constraints."""
    return _ratio(parts, "unscored", "total")


def _ratio(parts: Iterable[Mapping[str, float]], numerator: str, denominator: str) -> float:
    rows = list(parts)
    total = sum(p[denominator] for p in rows)
    return sum(p[numerator] for p in rows) / total if total else math.nan


def _mean(values: Iterable[float | None]) -> float:
    kept = [v for v in values if v is not None]
    # NaN, not 0: "nothing could be scored" must not read as "everything failed".
    return sum(kept) / len(kept) if kept else math.nan


def drfr_parts(sample: Mapping[str, Any]) -> tuple[float, float]:
    """One logged sample's DRFR parts for the bootstrap: satisfied and scored constraints (as
    ``process_results`` logs them)."""
    drfr = sample["drfr"]
    return (float(drfr["satisfied"]), float(drfr["scored"]))
