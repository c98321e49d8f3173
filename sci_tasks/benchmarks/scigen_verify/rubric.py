"""SciGen-Rubric scoring: a generated rubric against expert gold rules (spec ``scigen_verify.md``).

The generator replies with one JSON object (format in ``templates/scigen_rubric.jinja`` and
the sample README)::

    {"criteria": [{"criterion": "Axes", "weight": 4,
                   "checking_points": ["Is the horizontal axis labelled x?", ...]}, ...]}

The checking points of all criteria, in order, are flattened into P (N points). One judge
request per rubric returns the match matrix: for every point P1..PN the numbers of the gold
rules (1..M) it matches, validated against a schema built for that N and M. Then

* RR  = |gold rules matched by at least one point| / M
* NHR = |points matched to at least one gold rule| / N
* SF1 = 2 RR NHR / (RR + NHR)      (0 when RR + NHR = 0)

No points (nothing parsed, or criteria without checking points): RR = NHR = SF1 = 0, without
a judge. Weights that do not sum to 10 are recorded (``weights_ok`` false, the sum kept), not
failed: the structural metrics do not use weights. A rubric the judge must decide but cannot
(no judge, unparseable reply) is unscored: None per sample, counted in ``rubric_unscored``,
and the task's RR / NHR / SF1 are NaN while any rubric is unscored. Task values are macro
averages over domains: the mean over each domain's rubrics of the per-rubric values (never
rounded), then the unweighted mean over domains.

The rubric role may be a jury (``judges.rubric.jury``, ``metrics.judge.jury``): the match
request is asked of every juror at once; ``majority`` (the default) decides each (point,
gold rule) cell of the matrix, the matrix's pass / fail decisions being what a juror
judges, and RR / NHR / SF1 follow from the combined matrix (a tie on a cell leaves the
rubric unscored, the tied cells and votes as the reason); ``mean`` averages the jurors'
RR, NHR and SF1. Each juror's matrix and values stay in the record's ``jurors``; the cells
are the items of ``rubric_agreement`` and ``rubric_kappa``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sci_tasks.benchmarks.scigen_verify.judging import NO_JUDGE, Judging
from sci_tasks.metrics.judge import JudgeClient, JudgeReply, JudgeRequest, Jury, ask_jury
from sci_tasks.metrics.judge.jury import agreement_metrics, combine_grades, votes
from sci_tasks.metrics.judge.usage import RUBRIC
from sci_tasks.metrics.reply import OBJECT_START, decode_at
from sci_tasks.prompts import render, version
from sci_tasks.run_settings import NO_SETTINGS, RunSettings

MATCH_TEMPLATE = "judge/rubric_match.jinja"
WEIGHT_TOTAL = 10.0
# with a jury (``judges.rubric.jury``): agreement between its jurors over every cell
# (point, gold rule) of the match matrices they were asked
JURY_METRICS = {RUBRIC: agreement_metrics(RUBRIC)}


@dataclass(frozen=True)
class Criterion:
    name: str
    weight: float | None  # None: missing or not a number
    points: tuple[str, ...]


@dataclass(frozen=True)
class ParsedRubric:
    criteria: tuple[Criterion, ...] = ()
    parsed: bool = False
    note: str = ""
    skipped: int = 0  # criteria that are not objects, points that are not non-empty text

    @property
    def points(self) -> list[str]:
        """The flattened checking points P, in rubric order."""
        return [p for c in self.criteria for p in c.points]

    @property
    def weight_sum(self) -> float | None:
        """Sum of the weights (0 with no criteria); None if a weight is missing."""
        weights = [c.weight for c in self.criteria]
        if any(w is None for w in weights):
            return None
        return float(sum(w for w in weights if w is not None))

    @property
    def weights_ok(self) -> bool:
        total = self.weight_sum
        return total is not None and math.isclose(total, WEIGHT_TOTAL, abs_tol=1e-6)


# --- parsing the generated rubric --------------------------------------------------------------


def _objects(text: str) -> list[Any]:
    """Every JSON value that starts at a ``{`` of the reply, in order (a Markdown code fence
    around it does not matter; nested objects are found too)."""
    found: list[Any] = []
    decoder = json.JSONDecoder()
    for m in OBJECT_START.finditer(text):  # only a "{" that can open an object
        try:
            value, _ = decode_at(decoder, text, m.start())
        except (ValueError, RecursionError):
            continue
        found.append(value)
    return found


def parse_rubric(response: str | None) -> ParsedRubric:
    """The last JSON object with a ``criteria`` key in the normalised reply (reasoning is
    removed by ``metrics.reply.NormaliseReply`` before scoring)."""
    text = response or ""
    rubrics = [v for v in _objects(text) if isinstance(v, dict) and "criteria" in v]
    if not rubrics:
        return ParsedRubric(note="no JSON object with a 'criteria' list")
    raw = rubrics[-1]["criteria"]
    if not isinstance(raw, list):
        return ParsedRubric(note="'criteria' is not a list")
    criteria, skipped = [], 0
    for i, entry in enumerate(raw, start=1):
        if not isinstance(entry, Mapping):
            skipped += 1
            continue
        name = entry.get("criterion", entry.get("name", f"criterion {i}"))
        weight = entry.get("weight")
        number = (
            float(weight)
            if isinstance(weight, (int, float)) and not isinstance(weight, bool)
            else None
        )
        points_raw = entry.get("checking_points", [])
        points_raw = points_raw if isinstance(points_raw, list) else []
        points = tuple(p.strip() for p in points_raw if isinstance(p, str) and p.strip())
        skipped += len(points_raw) - len(points)
        criteria.append(Criterion(str(name), number, points))
    note = f"{len(criteria)} criteria"
    if skipped:
        note += f"; {skipped} entries that are not criteria / non-empty text points skipped"
    return ParsedRubric(tuple(criteria), True, note, skipped)


# --- judge: the match matrix -------------------------------------------------------------------


def match_schema(n_points: int, n_rules: int) -> dict[str, Any]:
    """One key per point (P1..PN), each a list of gold rule numbers in 1..M."""
    row = {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": n_rules}}
    keys = [f"P{i}" for i in range(1, n_points + 1)]
    return {
        "type": "object",
        "properties": {k: row for k in keys},
        "required": keys,
        "additionalProperties": False,
    }


def match_request(
    instruction: str, gold_rules: Sequence[str], points: Sequence[str]
) -> JudgeRequest:
    context = {"instruction": instruction, "gold_rules": list(gold_rules), "points": list(points)}
    return JudgeRequest(
        render(MATCH_TEMPLATE, context),
        match_schema(len(points), len(gold_rules)),
        version(MATCH_TEMPLATE),
        role=RUBRIC,
    )


def matrix_from_reply(data: Mapping[str, Any], n_points: int) -> list[list[int]]:
    """Row i: the sorted, distinct gold rule numbers (1-based) that point i+1 matches."""
    return [sorted({int(r) for r in data[f"P{i}"]}) for i in range(1, n_points + 1)]


# --- formulas ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Structural:
    matched_rules: int
    n_rules: int
    matched_points: int
    n_points: int

    @property
    def rr(self) -> float:
        return self.matched_rules / self.n_rules

    @property
    def nhr(self) -> float:
        return self.matched_points / self.n_points if self.n_points else 0.0

    @property
    def sf1(self) -> float:
        rr, nhr = self.rr, self.nhr
        return 2 * rr * nhr / (rr + nhr) if rr + nhr > 0 else 0.0


def structural(matrix: Sequence[Sequence[int]], n_rules: int) -> Structural:
    """Matched counts from a match matrix (one row of 1-based rule numbers per point)."""
    if n_rules < 1:
        raise ValueError("a rubric record has at least one gold rule")
    rules = {r for row in matrix for r in row}
    if any(not 1 <= r <= n_rules for r in rules):
        raise ValueError(f"rule numbers must be in 1..{n_rules}, got {sorted(rules)}")
    return Structural(len(rules), n_rules, sum(1 for row in matrix if row), len(matrix))


def macro_over_domains(items: Iterable[Mapping[str, Any]]) -> float:
    """Mean per domain of the per-rubric values, then the unweighted mean over domains.
    NaN when there is nothing, or any rubric is unscored (value None)."""
    by_domain: dict[str, list[float]] = {}
    for item in items:
        value = item["value"]
        if value is None:
            return math.nan
        by_domain.setdefault(str(item["domain"]), []).append(float(value))
    if not by_domain:
        return math.nan
    means = [sum(v) / len(v) for v in by_domain.values()]
    return sum(means) / len(means)


# --- one rubric --------------------------------------------------------------------------------


def score_rubric(
    doc: Mapping[str, Any],
    response: str | None,
    judge: JudgeClient | None = None,
    jury: Jury | None = None,
) -> dict[str, Any]:
    """One rubric's record; with a ``jury`` its match request goes to every juror instead of
    ``judge`` (``by_jury``)."""
    rubric = parse_rubric(response)
    points = rubric.points
    gold = list(doc["gold_rules"])
    record: dict[str, Any] = {
        "id": doc["id"],
        "domain": doc["domain"],
        "parsed": rubric.parsed,
        "parse_note": rubric.note,
        "criteria": len(rubric.criteria),
        "weights": [c.weight for c in rubric.criteria],
        "weight_sum": rubric.weight_sum,
        "weights_ok": rubric.weights_ok,
        "points": points,
        "n_points": len(points),
        "n_rules": len(gold),
        "matrix": None,
        "matched_rules": None,
        "matched_points": None,
        "rr": None,
        "nhr": None,
        "sf1": None,
        "reason": "",
        "judge": None,
        "bundled_sample": bool(doc.get("bundled_sample")),
    }
    if not points:
        s = structural([], len(gold))
        return record | _values(s) | {"reason": "no checking points: RR = NHR = SF1 = 0"}
    request = match_request(doc["instruction"], gold, points)
    if jury is not None:
        return record | by_jury(jury, request, len(points), len(gold))
    if judge is None:
        return record | {"reason": NO_JUDGE}
    return record | _matched(judge.ask(request), len(points), len(gold))


def _matched(reply: JudgeReply, n_points: int, n_rules: int) -> dict[str, Any]:
    """A judge's match matrix and what follows from it (``matrix`` None: no verdict)."""
    if reply.data is None:
        return {"reason": f"judge gave no verdict: {reply.error}", "judge": reply.provenance}
    matrix = matrix_from_reply(reply.data, n_points)
    s = structural(matrix, n_rules)
    return _values(s) | {
        "matrix": matrix,
        "reason": f"{s.matched_rules}/{s.n_rules} gold rules, {s.matched_points}/{s.n_points} "
        "points matched",
        "judge": reply.provenance,
    }


# --- a jury (``judges.rubric.jury``) -----------------------------------------------------------

UNDECIDED = {"matrix": None, "matched_rules": None, "matched_points": None,
             "rr": None, "nhr": None, "sf1": None}  # fmt: skip


def cell_votes(jurors: Sequence[Mapping[str, Any]], point: int, rule: int) -> list[dict[str, Any]]:
    """Each juror's verdict on whether point ``point`` (0-based) matches gold rule ``rule``
    (1-based): score 1.0 / 0.0, None for a juror without a matrix."""
    return [
        {"score": None if j["matrix"] is None else float(rule in j["matrix"][point])}
        for j in jurors
    ]


def by_jury(jury: Jury, request: JudgeRequest, n_points: int, n_rules: int) -> dict[str, Any]:
    """The match request asked of every juror at once. ``majority``: each (point, gold
    rule) cell is the jurors' majority (``jury.combine_grades``), RR / NHR / SF1 follow
    from the combined matrix, and a tie on any cell leaves the rubric unscored with the
    tied cells and their votes as the reason. ``mean``: the mean of the jurors' RR, NHR and
    SF1 (no combined matrix). Each juror's matrix and values stay in ``jurors``."""
    jurors = ask_jury(
        jury,
        # one juror's matrix and values (``matrix`` None: no verdict, with the reason)
        lambda client: UNDECIDED | _matched(client.ask(request), n_points, n_rules),
        lambda reason: UNDECIDED | {"reason": reason, "judge": None},  # a crashed juror
    )
    decided = {"judge": jury.label, "jurors": jurors}
    if jury.combine == "mean":
        means = {
            key: combine_grades([{"score": j[key]} for j in jurors], "mean")
            for key in ("rr", "nhr", "sf1")
        }
        return (
            UNDECIDED
            | decided
            | {k: m["score"] for k, m in means.items()}
            | {"reason": f"RR, NHR, SF1: {means['rr']['reason']}"}
        )
    matrix: list[list[int]] = []
    ties = []
    for point in range(n_points):
        row = []
        for rule in range(1, n_rules + 1):
            cell = combine_grades(cell_votes(jurors, point, rule), "majority")
            if cell["score"] is None:
                ties.append(f"P{point + 1}-R{rule} {cell['reason']}")
            elif cell["score"]:
                row.append(rule)
        matrix.append(row)
    if ties:
        return UNDECIDED | decided | {"reason": "; ".join(ties)}
    s = structural(matrix, n_rules)
    reason = (
        f"jury majority per (point, rule): {s.matched_rules}/{s.n_rules} gold rules, "
        f"{s.matched_points}/{s.n_points} points matched"
    )
    return _values(s) | decided | {"matrix": matrix, "reason": reason}


def jury_items(record: Mapping[str, Any]) -> list[list[str | None]]:
    """The jury's items of one rubric: every (point, gold rule) cell the jurors were asked
    about, each juror's vote on it (None where it gave no verdict)."""
    jurors = record.get("jurors")
    if not jurors:
        return []
    return [
        votes(cell_votes(jurors, point, rule))
        for point in range(record["n_points"])
        for rule in range(1, record["n_rules"] + 1)
    ]


def _values(s: Structural) -> dict[str, Any]:
    return {
        "matched_rules": s.matched_rules,
        "matched_points": s.matched_points,
        "rr": s.rr,
        "nhr": s.nhr,
        "sf1": s.sf1,
    }


# --- lm-eval hooks -----------------------------------------------------------------------------


def process_results(
    doc: dict[str, Any], results: list[str | None], settings: RunSettings = NO_SETTINGS
) -> dict[str, Any]:
    """Per-rubric values (each with its domain, for the macro average); the full record
    (points, weights, match matrix, judge) in ``record`` only. ``settings``: the task's judge
    (``sci_tasks.task.SciTask``)."""
    response = results[0] if results else ""
    judging = Judging.of(settings, RUBRIC)
    record = score_rubric(doc, response, judging.judge, judging.jury)
    domain = record["domain"]
    return {
        **judging.agreement(jury_items(record)),
        "rr": {"value": record["rr"], "domain": domain},
        "nhr": {"value": record["nhr"], "domain": domain},
        "sf1": {"value": record["sf1"], "domain": domain},
        "rubric_unscored": int(record["rr"] is None),
        "rubric_unparsed": float(not record["parsed"]),
        "weights_off": float(record["parsed"] and not record["weights_ok"]),
        "rubric_points": float(record["n_points"]),
        "bundled_samples": float(record["bundled_sample"]),
        "record": record,
    }
