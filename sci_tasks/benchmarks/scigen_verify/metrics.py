"""SciGen-Verify scoring: the cascade Acc_a -> Acc_e -> Acc_i (spec ``scigen_verify.md``).

Per sample, with label y (true = the image satisfies the instruction) and parsed judgement j:

* Acc_a = 1 if j == y else 0; no judgement counts as wrong. Never needs a judge.
* Acc_e = 0 if j != y; else 1 if an LLM judge finds the explanation semantically equivalent
  to the reference (same core discrepancy), else 0. Over all samples.
* Acc_i, negatives only (y false): 0 if j != y; 0 if the reply has no edit (a missing edit
  is invalid); else 1 if an LLM judge, shown the image(s), the instruction and the
  reference edit, finds the edit valid and actionable, else 0. A positive's edit is never
  scored.

Cheap checks first: a wrong judgement, a missing explanation (-> Acc_e 0) and a missing
edit decide without a judge. A sample the judge would have to decide but cannot (no judge
configured, or a reply that could not be parsed after the retries) is *unscored*: its
value is None, it is counted in ``acc_e_unscored`` / ``acc_i_unscored``, and the task's
Acc_e / Acc_i is NaN, never 0, as long as any of its samples is unscored (a cascade metric
is defined over all of its samples; dropping the unscored ones would drop exactly the
samples that were judged right and bias the value down).

The verification role may be a jury (``judges.verification.jury``, ``metrics.judge.jury``):
each explanation and edit question is asked of every juror at once, the jurors' pass / fail
verdicts combined (``majority``; a tie is unscored with the votes as its reason; ``mean``:
the share of jurors passing), each juror's verdict kept in ``acc_e_jurors`` /
``acc_i_jurors``; the questions are the items of the role's ``verification_agreement`` and
``verification_kappa``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sci_tasks.benchmarks.scigen_verify.judging import NO_JUDGE, Judging
from sci_tasks.benchmarks.scigen_verify.parse import VerifyParse, parse_verification
from sci_tasks.images import NO_BUDGET, ImageBudget, judge_files
from sci_tasks.metrics.judge import JudgeClient, JudgeReply, JudgeRequest, Jury, ask_jury
from sci_tasks.metrics.judge.jury import agreement_metrics, combine_grades, votes
from sci_tasks.metrics.judge.usage import VERIFICATION
from sci_tasks.metrics.verdict import Verdict
from sci_tasks.prompts import render, version
from sci_tasks.run_settings import NO_SETTINGS, RunSettings

EXPLANATION_TEMPLATE = "judge/verify_explanation.jinja"
EDIT_TEMPLATE = "judge/verify_edit.jinja"


def verdict_schema(key: str) -> dict[str, Any]:
    """A judge's reply: the boolean ``key`` and a one-line reason, nothing else."""
    properties = {key: {"type": "boolean"}, "reason": {"type": "string"}}
    return {"type": "object", "properties": properties, "required": [key, "reason"],
            "additionalProperties": False}  # fmt: skip


EXPLANATION_SCHEMA = verdict_schema("equivalent")
EDIT_SCHEMA = verdict_schema("valid")

# with a jury (``judges.verification.jury``): agreement between its jurors over every
# explanation and edit question they were asked
JURY_METRICS = {VERIFICATION: agreement_metrics(VERIFICATION)}


# --- pure formulas -----------------------------------------------------------------------------


def judgement_score(label: bool, judgement: bool | None) -> float:
    """Acc_a of one sample: no judgement is wrong."""
    return float(judgement is not None and judgement == label)


def cascade_mean(scores: Iterable[float | None]) -> float:
    """Mean of per-sample cascade scores; NaN when there are none or any is unscored."""
    values = list(scores)
    if not values or any(v is None for v in values):
        return math.nan
    return sum(v for v in values if v is not None) / len(values)


def acc_a(samples: Iterable[tuple[bool, bool | None]]) -> float:
    """Acc_a over (label, judgement) pairs."""
    values = [judgement_score(label, j) for label, j in samples]
    return sum(values) / len(values) if values else math.nan


def acc_e(scores: Iterable[float | None]) -> float:
    """Acc_e over every sample's cascade score (None = unscored)."""
    return cascade_mean(scores)


def acc_i(samples: Iterable[tuple[bool, float | None]]) -> float:
    """Acc_i over (label, score) pairs: only negatives count."""
    return cascade_mean(score for label, score in samples if not label)


# --- judge requests ----------------------------------------------------------------------------


def explanation_request(doc: Mapping[str, Any], parsed: VerifyParse) -> JudgeRequest:
    context = {
        "instruction": doc["instruction"],
        "label": bool(doc["label"]),
        "reference": doc["explanation"],
        "explanation": parsed.explanation or "",
    }
    return JudgeRequest(
        render(EXPLANATION_TEMPLATE, context),
        EXPLANATION_SCHEMA,
        version(EXPLANATION_TEMPLATE),
        role=VERIFICATION,
    )


def edit_images(doc: Mapping[str, Any]) -> list[str]:
    """What the edit judge sees: the source image(s) of an editing record, then the candidate."""
    return [*(doc.get("source_images") or []), *doc["images"]]


def edit_request(
    doc: Mapping[str, Any], parsed: VerifyParse, budget: ImageBudget = NO_BUDGET
) -> JudgeRequest:
    context = {
        "instruction": doc["instruction"],
        "reference": doc["edit"] or "",
        "edit": parsed.edit or "",
        "n_source": len(doc.get("source_images") or []),
        "n_candidate": len(doc["images"]),
    }
    # the judge gets exactly the pixels the model got: the task's image budget, applied once
    images = judge_files(edit_images(doc), budget)
    return JudgeRequest(
        render(EDIT_TEMPLATE, context),
        EDIT_SCHEMA,
        version(EDIT_TEMPLATE),
        images=tuple(images),
        role=VERIFICATION,
    )


# what a judge's reply says, per question: (its boolean key, reason prefixes if true / false)
ANSWERS = {
    "acc_e": ("equivalent", "equivalent", "not equivalent"),
    "acc_i": ("valid", "valid edit", "invalid edit"),
}


def _judged(reply: JudgeReply, key: str, yes: str, no: str) -> tuple[Verdict, str]:
    if reply.data is None:
        return Verdict.unscored(f"judge gave no verdict: {reply.error}"), reply.provenance
    ok = bool(reply.data[key])
    return Verdict.of(ok, f"{yes if ok else no}: {reply.data['reason']}"), reply.provenance


def _juror_verdicts(
    client: JudgeClient, requests: list[JudgeRequest], asked: list[str]
) -> list[dict[str, Any]]:
    """One juror's verdict on each question (``asked``: which metric each request decides),
    as a jury's record keeps it."""
    out = []
    for reply, metric in zip(client.ask_many(requests), asked, strict=True):
        verdict, provenance = _judged(reply, *ANSWERS[metric])
        out.append(
            {"score": verdict.score, "grade": None, "reason": verdict.reason, "judge": provenance}
        )
    return out


def _by_jury(
    jury: Jury, requests: list[JudgeRequest], asked: list[str]
) -> dict[str, tuple[Verdict, list[dict[str, Any]]]]:
    """Each question asked of every juror at once, the jurors' verdicts combined by the
    jury's rule (``jury.combine_grades``: a tie is unscored with the votes as its reason):
    per metric, (the combined verdict, every juror's verdict)."""
    per_juror = ask_jury(
        jury,
        lambda client: _juror_verdicts(client, requests, asked),
        # a crashed juror: no verdict on any question, with the reason
        lambda reason: [
            {"score": None, "grade": None, "reason": reason, "judge": None} for _ in asked
        ],
    )
    out = {}
    for k, metric in enumerate(asked):
        jurors = [verdicts[k] for verdicts in per_juror]
        combined = combine_grades(jurors, jury.combine)
        out[metric] = Verdict(combined["score"], combined["reason"]), jurors
    return out


def jury_items(record: Mapping[str, Any]) -> list[list[str | None]]:
    """The jury's items of one sample (its explanation and edit questions, where asked):
    each juror's vote, None where it gave no verdict (``jury.percent_agreement``, ...)."""
    asked = (record.get("acc_e_jurors"), record.get("acc_i_jurors"))
    return [votes(jurors) for jurors in asked if jurors]


# --- one sample --------------------------------------------------------------------------------


def score_sample(
    doc: Mapping[str, Any],
    response: str | None,
    judge: JudgeClient | None = None,
    budget: ImageBudget = NO_BUDGET,
    jury: Jury | None = None,
) -> dict[str, Any]:
    """One sample's record: what was read from the reply and the three cascade scores (the
    edit judge sees the images within the run's ``budget``, as the model did). With a
    ``jury`` (``judges.verification.jury``) every question goes to each juror instead of
    ``judge``, and each juror's verdict is kept in ``acc_e_jurors`` / ``acc_i_jurors``."""
    parsed = parse_verification(response)
    label = bool(doc["label"])
    right = judgement_score(label, parsed.judgement) == 1.0
    negative = not label

    # decide by rule where a rule can; collect the judge requests that are needed
    e_verdict: Verdict | None = None
    i_verdict: Verdict | None = None
    if not right:
        why = "no judgement" if parsed.judgement is None else f"judgement {parsed.judgement} wrong"
        e_verdict = Verdict.failed(why)
        i_verdict = Verdict.failed(why) if negative else None
    else:
        if not parsed.explanation:
            e_verdict = Verdict.failed("no explanation given")
        if negative and not parsed.edit:
            i_verdict = Verdict.failed("no edit given (a missing edit is invalid)")
    needs_e = e_verdict is None
    needs_i = negative and i_verdict is None
    requests: list[JudgeRequest] = []
    asked: list[str] = []  # the metric each request decides
    if needs_e:
        requests.append(explanation_request(doc, parsed))
        asked.append("acc_e")
    if needs_i:
        requests.append(edit_request(doc, parsed, budget))
        asked.append("acc_i")

    e_judge = i_judge = None
    jurors: dict[str, list[dict[str, Any]] | None] = {"acc_e": None, "acc_i": None}
    if requests and jury is not None:
        decided = _by_jury(jury, requests, asked)
        if needs_e:
            e_verdict, jurors["acc_e"] = decided["acc_e"]
            e_judge = jury.label
        if needs_i:
            i_verdict, jurors["acc_i"] = decided["acc_i"]
            i_judge = jury.label
    elif requests and judge is None:
        if needs_e:
            e_verdict = Verdict.unscored(NO_JUDGE)
        if needs_i:
            i_verdict = Verdict.unscored(NO_JUDGE)
    elif requests and judge is not None:
        replies = judge.ask_many(requests)
        if needs_e:
            e_verdict, e_judge = _judged(replies[0], "equivalent", "equivalent", "not equivalent")
        if needs_i:
            i_verdict, i_judge = _judged(replies[-1], "valid", "valid edit", "invalid edit")
    assert e_verdict is not None
    return {
        "id": doc["id"],
        "category": doc["category"],
        "discipline": doc["discipline"],
        "task_type": doc.get("task_type", "generation"),
        "label": label,
        "judgement": parsed.judgement,
        "tagged": parsed.tagged,
        "reply_form": parsed.form,  # tags / short tags / json / free text; "" if no judgement
        "parse_note": parsed.note,
        "explanation": parsed.explanation,
        "edit": parsed.edit,
        "acc_a": float(right),
        "acc_e": e_verdict.score,
        "acc_e_reason": e_verdict.reason,
        "acc_e_judge": e_judge,
        "acc_i": i_verdict.score if i_verdict else None,
        "acc_i_reason": i_verdict.reason if i_verdict else "positive sample: edit not scored",
        "acc_i_judge": i_judge,
        # with a jury only (other runs' records are as they were): each juror's verdict
        **({"acc_e_jurors": jurors["acc_e"], "acc_i_jurors": jurors["acc_i"]} if jury else {}),
        "bundled_sample": bool(doc.get("bundled_sample")),
        "image_budget": budget.fields(),
    }


# --- lm-eval hooks -----------------------------------------------------------------------------


def process_results(
    doc: dict[str, Any], results: list[str | None], settings: RunSettings = NO_SETTINGS
) -> dict[str, Any]:
    """Per-sample values for the task YAML's metrics: plain numbers for Acc_a and Acc_e (None
    = unscored), Acc_i with whether the sample counts, and the full record (read by
    ``.report``) in ``record`` only. ``settings``: the task's judge
    and image budget (``sci_tasks.task.SciTask``)."""
    response = results[0] if results else ""
    judging = Judging.of(settings, VERIFICATION)
    record = score_sample(doc, response, judging.judge, settings.image_budget, judging.jury)
    negative = not record["label"]
    return {
        **judging.agreement(jury_items(record)),
        "acc_a": record["acc_a"],
        "acc_e": record["acc_e"],
        "acc_i": {"score": record["acc_i"], "negative": negative},
        "acc_e_unscored": int(record["acc_e"] is None),
        "acc_i_unscored": int(negative and record["acc_i"] is None),
        "unparsed_rate": float(record["judgement"] is None),
        "bundled_samples": float(record["bundled_sample"]),
        "record": record,
    }


def acc_i_of_scores(items: Sequence[Mapping[str, Any]]) -> float:
    """Aggregation for ``acc_i``: over the negatives; NaN if any is unscored or none exist."""
    return acc_i((not item["negative"], item["score"]) for item in items)


# One logged sample's parts for the bootstrap (``Benchmark.metrics``' ``parts``), from what
# ``score_sample`` logs.
def acc_e_parts(sample: Mapping[str, Any]) -> tuple[float, float] | None:
    """Acc_e: an unscored sample (null) makes Acc_e NaN, as ``cascade_mean`` does."""
    score = sample["acc_e"]
    return None if score is None else (float(score), 1.0)


def acc_i_parts(sample: Mapping[str, Any]) -> tuple[float, float] | None:
    """Acc_i: only negatives count; an unscored negative makes it NaN."""
    item = sample["acc_i"]
    if not item.get("negative"):
        return (0.0, 0.0)
    return None if item["score"] is None else (float(item["score"]), 1.0)
