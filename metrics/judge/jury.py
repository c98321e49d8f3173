"""Juries: a judge role answered by several judges (jurors), each with a single judge's
settings, their verdicts combined per item.

``{"jury": [{<judge settings>}, ...], "combine": "majority" | "mean"}`` wherever a role's
judge settings go (``--metadata '{"judges": {"<role>": {...}}}'``, Hydra's
``+judges.<role>.jury=[...]``, the role's ``..._JURY`` variable as JSON, e.g.
``SCI_TASKS_CORRECTNESS_JUDGE_JURY``). The roles that may be juries: SciMIF's
``correctness`` and ``constraints``, SciGen-Verify's ``verification`` and SciGen-Rubric's
``rubric``. Every item is asked of every juror at once (``each_juror``). ``majority``
(pass / fail, A / B / C grades): the grade more jurors gave than any other; a tie for the
most votes is unscored with the votes as its reason. ``mean`` (graded scores): the mean of
the jurors' scores. A juror without a verdict casts no vote (its reason stays in the
record).

Agreement between the jurors, per role, over the items every juror graded: percent
agreement (the mean share of agreeing juror pairs per item, Fleiss' P-bar) and Fleiss'
kappa (statsmodels' ``fleiss_kappa``), as aggregations of the per-item grades, named by
``agreement_metrics``: ``correct_``, ``constraints_``, ``verification_`` and ``rubric_``
``agreement`` / ``kappa``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from sci_tasks.metrics.judge.config import JudgeConfig

COMBINE = ("majority", "mean")
T = TypeVar("T")


@dataclass(frozen=True)
class Jury:
    jurors: tuple[JudgeConfig, ...]
    combine: str = "majority"

    def __post_init__(self) -> None:
        if self.combine not in COMBINE:
            raise ValueError(f"combine must be one of {', '.join(COMBINE)}, not {self.combine!r}")
        if len(self.jurors) < 2:
            raise ValueError("a jury needs at least two jurors")

    @classmethod
    def from_mapping(cls, jury: Any, combine: Any = None) -> Jury:
        if not isinstance(jury, Sequence) or isinstance(jury, str):
            raise ValueError("jury must be a list of judge settings, one per juror")
        jurors = []
        for i, settings in enumerate(jury):
            if not isinstance(settings, Mapping):
                raise ValueError(f"jury[{i}] must be an object of judge settings")
            try:
                jurors.append(JudgeConfig.from_mapping(settings))
            except ValueError as exc:
                raise ValueError(f"jury[{i}]: {exc}") from None
        return cls(tuple(jurors), str(combine or "majority"))

    @property
    def label(self) -> str:
        """Who decided an item, as records name it: ``jury of 3 (majority)``."""
        return f"jury of {len(self.jurors)} ({self.combine})"

    def settings(self) -> dict[str, Any]:
        """The ``--metadata`` form (``from_mapping`` reads it back); no key, only its name."""
        return {"jury": [j.public() for j in self.jurors], "combine": self.combine}

    public = settings  # what results show of a role's settings (as ``JudgeConfig.public``)


def each_juror(jury: Jury, work: Callable[[JudgeConfig], T]) -> list[T]:
    """``work(juror)`` for every juror of ``jury`` at once (one thread each), in juror order."""
    with ThreadPoolExecutor(max_workers=len(jury.jurors)) as pool:
        return list(pool.map(work, jury.jurors))


def agreement_metrics(prefix: str) -> dict[str, Callable[[Iterable[Any]], float]]:
    """A jury's agreement metrics, as task aggregations of the per-sample items:
    ``<prefix>_agreement`` (percent agreement) and ``<prefix>_kappa`` (Fleiss' kappa)."""
    return {f"{prefix}_agreement": percent_agreement, f"{prefix}_kappa": fleiss_kappa}


def combine_grades(verdicts: Sequence[Mapping[str, Any]], how: str) -> dict[str, Any]:
    """One item's verdict from its jurors' (each ``{"score", "grade", "reason", ...}``):
    ``{"score", "grade", "reason"}``, score None (unscored) on a tie or without votes."""
    voted = [v for v in verdicts if v.get("score") is not None]
    silent = len(verdicts) - len(voted)
    note = f" ({silent} juror(s) gave no verdict)" if silent else ""
    if not voted:
        return {"score": None, "grade": None, "reason": "no juror gave a verdict"}
    if how == "mean":
        score = sum(float(v["score"]) for v in voted) / len(voted)
        return {"score": score, "grade": None, "reason": f"mean of {len(voted)} juror(s){note}"}
    votes = Counter(vote(v) for v in voted)
    ranked = votes.most_common()
    tally = ", ".join(f"{grade} {n}" for grade, n in sorted(votes.items()))
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return {"score": None, "grade": None, "reason": f"jury tie: {tally}{note}"}
    grade = ranked[0][0]
    score = next(v["score"] for v in voted if vote(v) == grade)
    return {"score": score, "grade": grade, "reason": f"jury majority: {tally}{note}"}


def vote(verdict: Mapping[str, Any]) -> str:
    """A juror's vote: its grade (A / B / C), else its score (pass 1.0 / fail 0.0)."""
    grade = verdict.get("grade")
    return str(grade if grade is not None else verdict["score"])


def votes(verdicts: Iterable[Mapping[str, Any]]) -> list[str | None]:
    """One item of a jury's agreement: each juror's vote, None where it gave no verdict."""
    return [vote(v) if v.get("score") is not None else None for v in verdicts]


def _complete(items: Iterable[Any]) -> list[list[str]]:
    """The items every juror graded (an item: the jurors' grades, None where unscored; a
    sample's value may be one item, correctness, or a list of items, its constraints)."""
    rows = [list(i) for i in _items(items) if isinstance(i, list | tuple) and i]
    return [[str(g) for g in r] for r in rows if all(g is not None for g in r)]


def _items(values: Iterable[Any]) -> Iterable[Any]:
    for value in values:
        if isinstance(value, list | tuple) and all(isinstance(i, list | tuple) for i in value):
            yield from value  # a sample's items (an empty list: none)
        else:
            yield value


def percent_agreement(items: Iterable[Any]) -> float:
    """Mean share of agreeing juror pairs per item (Fleiss' P-bar); NaN without items."""
    rows = _complete(items)
    shares = []
    for row in rows:
        n = len(row)
        counts = Counter(row).values()
        shares.append(sum(c * (c - 1) for c in counts) / (n * (n - 1)))
    return sum(shares) / len(shares) if shares else math.nan


def fleiss_kappa(items: Iterable[Any]) -> float:
    """Fleiss' kappa of the jurors over the items they all graded (statsmodels); NaN
    without items, or when every juror gave one and the same grade throughout (no
    variation: kappa is undefined)."""
    from statsmodels.stats.inter_rater import aggregate_raters
    from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_kappa

    rows = _complete(items)
    if not rows or len({len(r) for r in rows}) != 1:
        return math.nan
    categories = sorted({g for r in rows for g in r})
    if len(categories) < 2:
        return math.nan
    table, _ = aggregate_raters([[categories.index(g) for g in r] for r in rows])
    return float(statsmodels_kappa(table, method="fleiss"))
