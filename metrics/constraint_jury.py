"""A jury for SciMIF's constraints role (``judges.constraints.jury``, ``metrics.judge.jury``).

Every constraint of a sample is checked once per juror, the jurors at once (one thread
each), each with that juror as the judge in force. A constraint no juror was asked about
(a rule decided alone) is logged as the rule's verdict, as without a jury. A constraint a
juror was asked about (a judged constraint: procedure steps, number of responses; a rule's
extraction) is an item of the jury: each juror's verdict is kept in the entry's ``jurors``,
the entry's score is the jurors' combination (majority of pass / fail, or mean), a tie is
unscored with the votes as its reason. The items' votes feed the role's percent agreement
and Fleiss' kappa (``constraints_agreement``, ``constraints_kappa``).

A juror that crashes (a client that cannot be built, anything raised) gives no verdict on
any constraint of the sample, with the reason, and casts no vote: the run goes on.
"""

from __future__ import annotations

from typing import Any, cast

from sci_tasks.metrics.constraints.registry import CheckInput, evaluate
from sci_tasks.metrics.judge import JudgeClient, JudgeReply, JudgeRequest, Jury, ask_jury
from sci_tasks.metrics.judge.jury import combine_grades, votes

Verdicts = list[tuple[dict[str, Any], bool]]  # per constraint: (verdict, whether asked)


class _Asked:
    """A juror's client that notes whether it was asked anything."""

    def __init__(self, client: JudgeClient) -> None:
        self.client = client
        self.asked = False

    def ask(self, request: JudgeRequest) -> JudgeReply:
        self.asked = True
        return self.client.ask(request)

    def ask_many(self, requests: list[JudgeRequest]) -> list[JudgeReply]:
        self.asked = True
        return self.client.ask_many(requests)

    def __getattr__(self, name: str) -> Any:  # config, cache_key, ...
        return getattr(self.client, name)


def _juror_verdicts(inputs: list[tuple[str, CheckInput]], client: JudgeClient) -> Verdicts:
    out: Verdicts = []
    for name, inp in inputs:
        asked = _Asked(client)
        verdict = evaluate(name, inp, cast(JudgeClient, asked)).as_dict()
        out.append((verdict, asked.asked))
    return out


def constraint_log_by_jury(
    doc: dict[str, Any], inputs: list[tuple[str, CheckInput]], jury: Jury
) -> tuple[list[dict[str, Any]], list[list[str | None]]]:
    """(the sample's constraint log, the jury's items: per judged constraint, each juror's
    vote, None where it gave no verdict)."""
    per_juror = ask_jury(
        jury,
        lambda client: _juror_verdicts(inputs, client),
        # a crashed juror: no verdict on any constraint of the sample, with the reason
        lambda reason: [({"score": None, "reason": reason, "judge": None}, True) for _ in inputs],
    )
    log: list[dict[str, Any]] = []
    items: list[list[str | None]] = []
    for k, item in enumerate(doc["instruction_list"]):
        verdicts = [juror[k] for juror in per_juror]
        # the checker's name, catalogue fields: any juror's that ran (they are the same)
        entry = next((v for v, _ in verdicts if "constraint" in v), None)
        base = {**(entry or _crashed(inputs[k][0])), "source": item.get("source")}
        if not any(asked for _, asked in verdicts):  # the rule decided alone
            log.append(base)
            continue
        jurors = [
            {"score": v["score"], "grade": None, "reason": v["reason"], "judge": v["judge"]}
            for v, _ in verdicts
        ]
        combined = combine_grades(jurors, jury.combine)
        log.append(
            {
                **base,
                "score": combined["score"],
                "reason": combined["reason"],
                "judge": jury.label,
                "jurors": jurors,
            }
        )
        items.append(votes(jurors))
    return log, items


def _crashed(name: str) -> dict[str, Any]:
    """The catalogue fields of a constraint every juror crashed on (none is known)."""
    return {"name": name, "constraint": name, "group": None, "domain": None, "judge": None}
