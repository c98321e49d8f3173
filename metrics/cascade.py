"""Cascades: who decides a constraint, per constraint family (spec ``judges.md`` 7).

A family is a constraint's canonical name without its discipline (``method_constraint`` for
``chemistry_method_constraint``). Its policy:

* ``rules`` (the default of every family, as before): the rule checker decides;
* ``rule_then_judge`` (OpenCompass's CascadeEvaluator): a rule pass stands; a rule fail or
  unscored verdict goes to the constraint role's judge;
* ``judge_first`` (the SciMIF authors' design for method constraints): the judge reads the
  solution and decides; without a judge, or when it gives no verdict, the rule decides.

The policy is task metadata ``cascade: {<family>: <policy>}`` (Hydra ``+cascade.<family>=``,
``--metadata '{"cascade": {...}}'``). A cascaded record says who decided (``decided_by``)
and keeps the rule's verdict and reason (``rule_score``, ``rule_reason``); the judge's
failure reason, when the rule decided for want of a verdict, is kept too (``judge_error``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from sci_tasks.metrics.constraints.registry import CheckInput
from sci_tasks.metrics.judge import JudgeClient, JudgeRequest
from sci_tasks.metrics.judge.client import ReplyError
from sci_tasks.prompts import render, version

POLICIES = ("rules", "rule_then_judge", "judge_first")
TEMPLATE = "judge/constraint_cascade.jinja"
# the one-word verdict the judge is asked for, by family (the authors' method judge: used)
WORDS = {"method_constraint": ("used", "not used")}
DEFAULT_WORDS = ("satisfied", "not satisfied")


def policies(metadata: Mapping[str, Any] | None) -> dict[str, str]:
    """The declared policies (``metadata["cascade"]``) other than ``rules``; a bad one is a
    ValueError naming it."""
    given = (metadata or {}).get("cascade") or {}
    if not isinstance(given, Mapping):
        raise ValueError('"cascade" must map constraint families to policies')
    for family, policy in given.items():
        if policy not in POLICIES:
            raise ValueError(
                f"cascade.{family}: {policy!r} is not a policy ({', '.join(POLICIES)})"
            )
    return {str(f): str(p) for f, p in given.items() if p != "rules"}


def family(constraint: str | None, domain: str | None) -> str | None:
    if constraint is None:
        return None
    prefix = f"{domain}_" if domain else ""
    return constraint[len(prefix) :] if prefix and constraint.startswith(prefix) else constraint


def request(entry: Mapping[str, Any], inp: CheckInput) -> JudgeRequest:
    """The judge's question for one logged constraint verdict."""
    yes, no = WORDS.get(family(entry["constraint"], entry["domain"]) or "", DEFAULT_WORDS)
    context = {
        "question": inp.question,
        "constraint": entry["constraint"],
        "parameters": inp.parameters,
        "response": inp.response,
        "yes": yes,
        "no": no,
    }

    def read(text: str) -> dict[str, Any]:
        lines = [line for line in (text or "").strip().splitlines() if line.strip()]
        word = re.sub(r"[^a-z ]", "", lines[-1].lower()).strip() if lines else ""
        if word in (yes, no):
            return {"pass": word == yes, "word": word}
        raise ReplyError(f"neither {yes!r} nor {no!r}: {text.strip()[:60]!r}")

    return JudgeRequest(
        render(TEMPLATE, context), None, version(TEMPLATE), system="", read_reply=read
    )


def decide(
    entry: dict[str, Any], inp: CheckInput, policy: str, judge: JudgeClient | None
) -> dict[str, Any]:
    """``entry`` (a logged rule verdict) as the cascade ``policy`` decides it."""
    rule = {"policy": policy, "rule_score": entry["score"], "rule_reason": entry["reason"]}
    stands = policy == "rule_then_judge" and entry["score"] == 1.0
    if judge is None or stands or policy == "rules":
        why = "" if judge is not None or policy == "rules" else " (no judge configured)"
        return {**entry, **rule, "decided_by": "rule", "reason": entry["reason"] + why}
    reply = judge.ask(request(entry, inp))
    if reply.data is None:
        return {**entry, **rule, "decided_by": "rule", "judge_error": reply.error}
    word = reply.data["word"]
    return {
        **entry,
        **rule,
        "score": 1.0 if reply.data["pass"] else 0.0,
        "reason": f"judge replied {word!r}",
        "judge": reply.provenance,
        "decided_by": "judge",
    }
