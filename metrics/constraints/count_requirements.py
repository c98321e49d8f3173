"""Count requirements as the chemistry constraints write them ("5 carbon atoms", "at least
two double bonds", "no nitro groups", "O: 2"), each read as a ``Requirement``; the keys (an
element, a bond type, a functional group) are the checker's (``chemistry.py``).

Requirements are read from the parameters first and, when none can be read there, from the
question. A requirement that cannot be read from either -> unscored, with why. Counts are
written as digits or words ("5", "five", "a", "no"), with a bound: "exactly" / "only" / none
(=), "at least" / "no fewer than" / "a minimum of" / "N or more" (>=), "at most" / "no more
than" / "up to" / "N or fewer" (<=), "more than N" (>= N+1), "fewer / less than N"
(<= N-1); "no X", "without X", "free of X" mean 0. "X: N" / "X = N" is read too.
"""

from __future__ import annotations

import re
from bisect import bisect_left, insort
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from sci_tasks.metrics.constraints.base import CheckInput
from sci_tasks.metrics.constraints.text import NUMBER_WORD, clean_parameters, parse_int


@dataclass(frozen=True)
class Requirement:
    """One count requirement: ``key`` (an element symbol, "heavy", a bond type, a group)
    compared with ``n`` by ``op`` ("==", ">=", "<=")."""

    key: str
    op: str
    n: int
    written: str  # as written
    position: int = 0  # where it was written

    def holds(self, have: int) -> bool:
        if self.op == ">=":
            return have >= self.n
        if self.op == "<=":
            return have <= self.n
        return have == self.n

    @property
    def need(self) -> str:
        word = {"==": "exactly", ">=": "at least", "<=": "at most"}[self.op]
        return f"{word} {self.n}"


_WS = r"[ \t]+"
CMP = (
    r"(?:exactly|precisely|only|just|at[ \t]+least|at[ \t]+most|no[ \t]+more[ \t]+than|"
    r"no[ \t]+fewer[ \t]+than|no[ \t]+less[ \t]+than|not[ \t]+more[ \t]+than|"
    r"not[ \t]+fewer[ \t]+than|not[ \t]+less[ \t]+than|more[ \t]+than|greater[ \t]+than|"
    r"fewer[ \t]+than|less[ \t]+than|up[ \t]+to|(?:a[ \t]+)?minimum[ \t]+of|"
    r"(?:a[ \t]+)?maximum[ \t]+of|a[ \t]+total[ \t]+of|in[ \t]+total|total[ \t]+of|over|"
    r"under|>=|<=|≥|≤|>|<|=)"
)
_NUM = rf"(?:{NUMBER_WORD}|an?|no)"
POST = r"(?:[ \t]+or[ \t]+(?P<post>more|greater|above|fewer|less|below))?"
_NEG = (
    r"(?:without|free[ \t]+of|lacking|(?:does|do|must|should|will)[ \t]+not[ \t]+"
    r"(?:contain|have|include)|not[ \t]+containing)(?:[ \t]+(?:any|an?))?"
)


def _bound(cmp: str | None, number: str, post: str | None) -> tuple[str, int] | None:
    """(op, n) from a comparator, a count and an "or more / or fewer" tail."""
    token = number.strip().lower()
    n = {"a": 1, "an": 1, "no": 0}.get(token)
    if n is None:
        n = parse_int(token)
    if n is None:
        return None
    c = " ".join((cmp or "").lower().split())
    if post:
        return (">=" if post.lower() in ("more", "greater", "above") else "<="), n
    if c in ("at least", "no fewer than", "no less than", "not fewer than", "not less than"):
        return ">=", n
    if c in ("minimum of", "a minimum of", ">=", "≥"):
        return ">=", n
    if c in ("more than", "greater than", "over", ">"):
        return ">=", n + 1
    if c in ("at most", "no more than", "not more than", "up to", "maximum of"):
        return "<=", n
    if c in ("a maximum of", "<=", "≤"):
        return "<=", n
    if c in ("fewer than", "less than", "under", "<"):
        return ("<=", n - 1) if n > 0 else None
    return "==", n


@dataclass
class Parsed:
    requirements: list[Requirement]  # in the order written
    spans: list[tuple[int, int]]
    _index: tuple[list[int], list[int]] | None = field(default=None, repr=False)

    def add(self, key: str, bound: tuple[str, int] | None, m: re.Match[str]) -> None:
        if bound is None:
            return
        req = Requirement(key, bound[0], bound[1], " ".join(m.group().split()), m.start())
        if all((r.key, r.op, r.n) != (req.key, req.op, req.n) for r in self.requirements):
            insort(self.requirements, req, key=lambda r: r.position)  # stable, as a sort
        self.spans.append(m.span())
        self._index = None

    def covers(self, span: tuple[int, int]) -> bool:
        """Whether ``span`` overlaps a span read as a requirement: a binary search over the
        spans sorted by start with the running maximum of their ends (each call is
        logarithmic, so checking every unknown word of a long text stays linear)."""
        if self._index is None:
            ordered = sorted(self.spans)
            reach, top = [], -1
            for _, e in ordered:
                top = max(top, e)
                reach.append(top)
            self._index = ([st for st, _ in ordered], reach)
        starts, reach = self._index
        a, b = span
        k = bisect_left(starts, b)  # spans starting before b
        return k > 0 and reach[k - 1] > a


def forward_count(keys: str, between: str = "") -> re.Pattern[str]:
    """ "[bound] N [or more] <key>": the usual way counts are written."""
    return re.compile(
        rf"(?<![\w.])(?:(?P<cmp>{CMP})[ \t]*)?(?P<n>{_NUM})(?![\w.]){POST}{_WS}"
        rf"{between}(?P<key>{keys})",
        re.I,
    )


def reverse_count(keys: str) -> re.Pattern[str]:
    """ "<key>: N", "<key> = N", "<key> count is at least N"."""
    return re.compile(
        rf"(?<![\w])(?P<key>{keys})(?:[ \t]+(?:count|number))?[ \t]*"
        rf"(?:[:=]|\bis\b|\bequals?\b|\bshould[ \t]+be\b|\bmust[ \t]+be\b)[ \t]*"
        rf"(?:(?P<cmp>{CMP})[ \t]*)?(?P<n>[0-9]+)(?![\w.])",
        re.I,
    )


def negative_count(keys: str, between: str = "") -> re.Pattern[str]:
    """ "without (any) <key>", "free of <key>": zero."""
    return re.compile(rf"(?<![\w])(?:{_NEG}){_WS}{between}(?P<key>{keys})", re.I)


def count_patterns(
    keys: str,
    *,
    total: re.Pattern[str] | None = None,
    reverse: str | None = None,
    negative: str | None = None,
    between: str = "",
) -> list[re.Pattern[str]]:
    """The ways a count of ``keys`` is written, in reading order: "[bound] N <key>" (with
    ``between`` words before the key), a stated ``total``, "<key>: N" (``reverse`` keys, if
    other) and "without <key>" (``negative`` keys, if other)."""
    patterns = [forward_count(keys, between)]
    if total is not None:
        patterns.append(total)
    patterns.append(reverse_count(reverse or keys))
    patterns.append(negative_count(negative or keys))
    return patterns


def parse_counts(
    text: str,
    patterns: Iterable[re.Pattern[str]],
    key_of: Callable[[re.Match[str]], str | None],
) -> Parsed:
    parsed = Parsed([], [])
    for pattern in patterns:
        negative = "n" not in pattern.groupindex
        for k, m in enumerate(pattern.finditer(text)):
            if k >= 200:
                break
            key = key_of(m)
            if key is None:
                continue
            if negative:
                parsed.add(key, ("==", 0), m)
            else:
                parsed.add(key, _bound(m.group("cmp"), m.group("n"), m.groupdict().get("post")), m)
    return parsed


def requirement_texts(inp: CheckInput) -> list[tuple[str, str]]:
    params = clean_parameters(inp.parameters)
    texts = [(params, "parameters")] if params else []
    if inp.question and inp.question.strip():
        texts.append((inp.question, "question"))
    return texts


def check_line(pairs: Sequence[tuple[str, int, Requirement | None]]) -> tuple[bool, str]:
    """(all hold, "C=5 ok, Br=2 (need exactly 1)")."""
    parts, ok = [], True
    for label, have, req in pairs:
        if req is None or req.holds(have):
            parts.append(f"{label}={have} ok")
        else:
            ok = False
            parts.append(f"{label}={have} (need {req.need})")
    return ok, ", ".join(parts)
