"""Relations compared by structure, for the ``<discipline>_method_constraint`` rule: a
solution applies a required relation when it writes an equation that IS that relation,
whatever its notation (LaTeX, Unicode, plain text), its variable names' subscripts, its
arrangement, or the numbers it substitutes for some variables.

* Reading (``formula_reader.py``): an equation's two sides are turned into a Python
  expression by a small notation reader (``Reader``: LaTeX commands, ``\\frac``, ``^{}``,
  ``_{}``, Greek letters, Unicode super- and subscripts, implicit products, ``sin θ``), and
  sympy's ``parse_expr`` parses that. A symbol is a letter (Latin or Greek) with an
  optional subscript and primes; its *base* is the letter. Runs of two or three Latin
  letters are products (``nRT``); a longer word, an English short word, or punctuation ends
  the formula.
* Comparing: the relation ``lhs = rhs`` is the numerator ``N`` of ``lhs - rhs`` over a common
  denominator (so ``sin θ2 = (n1/n2) sin θ1`` and ``n1 sin θ1 = n2 sin θ2`` have the same
  ``N`` up to sign). In a solution's equation every number is a *slot* that may stand for
  a required variable. A required equation is applied when some assignment of its variables
  (each to a solution symbol of the same base, any subscript, or to a slot; at most one
  left out as 1) makes the two numerators proportional: their ratio is the same non-zero
  finite constant at three random points. Slots not assigned keep their value. At least
  one of the solution's own symbols must be assigned (an equation of numbers alone fits
  any product law).
* Cost: each distinct equation text is parsed once (cached); numerators are compiled with
  ``sympy.lambdify`` to plain floats, so trying an assignment is a few function calls. At
  most ``MAX_PAIRS`` "=" signs and ``MAX_EQUATIONS`` equations per response, ``MAX_SIDE``
  characters on each side of an "=", ``MAX_ASSIGNMENTS`` assignments per pair.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import sympy

from sci_tasks.metrics.constraints.formula_reader import (
    DROP_COMMANDS,
    FUNCTIONS,
    GREEK,
    WORDS,
    NotFormula,
    Reader,
    parse_side,
)

MAX_EQUATIONS = 80
MAX_PAIRS = 400  # "=" signs read per response
MAX_ASSIGNMENTS = 4000
MAX_SIDE = 160  # characters of one side read (a formula, not a paragraph)

_MATH_RE = re.compile(
    r"\$\$(.+?)\$\$|\\\[(.+?)\\\]|\\\((.+?)\\\)|\$([^$\n]+?)\$"
    r"|\\begin\{(?:equation|align|gather|multline)\*?\}(.+?)\\end\{(?:equation|align|gather|multline)\*?\}",
    re.S,
)
_EQUALS_RE = re.compile(r"\\approx|\\simeq|\\equiv|≈|≃|≅|=")
_BREAKS_RE = re.compile(r"\\\\|\\implies|\\Rightarrow|\\Longrightarrow|\\to\b|⇒|→|⟹|\\quad|\\qquad")


@dataclass(frozen=True)
class Sym:
    """A variable of an equation: its sympy symbol and its base letter."""

    symbol: sympy.Symbol
    base: str


@dataclass(frozen=True)
class Equation:
    """One relation ``lhs = rhs`` as its numerator, compiled over its variables and slots."""

    text: str
    variables: tuple[Sym, ...]
    slots: tuple[tuple[sympy.Symbol, float], ...]  # numbers of a solution's equation
    functions: frozenset[str]
    numerator: Callable[..., float]


@functools.lru_cache(maxsize=8192)
def parse_equation(lhs: str, rhs: str, generalise_numbers: bool) -> Equation | None:
    """The relation ``lhs = rhs``, or None when either side is not a formula."""
    reader = Reader(generalise_numbers)
    try:
        left = parse_side(reader, lhs)
        right = parse_side(reader, rhs)
        numerator, _ = sympy.fraction(sympy.together(left - right))
    except (NotFormula, RecursionError, TypeError, ValueError, ZeroDivisionError, AttributeError):
        return None
    free = numerator.free_symbols
    slots = tuple((s, v) for s, v in reader.slots if s in free)
    variables = tuple(
        Sym(sym, reader.bases[sym]) for sym in reader.names.values()
        if sym in free and sym in reader.bases
    )  # fmt: skip
    if not variables and not slots:
        return None
    args = [v.symbol for v in variables] + [s for s, _ in slots]
    try:
        fn = sympy.lambdify(args, numerator, modules="math")
    except Exception:
        return None
    return Equation(f"{lhs} = {rhs}", variables, slots, frozenset(reader.functions), fn)


def power_variants(lhs: str, rhs: str) -> tuple[Equation, ...]:
    """The required relation with one variable's power as the variable (``σ_y = σ_0 +
    k d^(-1/2)`` also as ``σ_y = σ_0 + k t`` with t = d^(-1/2)): a solution may substitute
    the power's value ("162.5 = σ_0 + k(125.00)")."""
    reader = Reader(False)
    try:
        expr = parse_side(reader, lhs) - parse_side(reader, rhs)
    except (NotFormula, RecursionError, TypeError, ValueError, ZeroDivisionError, AttributeError):
        return ()
    out = []
    for power in sorted(expr.atoms(sympy.Pow), key=str)[:4]:
        symbol = power.base
        if symbol not in reader.bases or not power.exp.is_number or power.exp in (0, 1, -1):
            continue
        stand_in = sympy.Symbol(f"{symbol.name}_pow", positive=True)
        numerator, _ = sympy.fraction(sympy.together(expr.subs(power, stand_in)))
        if symbol in numerator.free_symbols:
            continue  # the variable occurs otherwise too
        free = numerator.free_symbols
        kept = [Sym(s, reader.bases[s]) for s in reader.names.values() if s in free]
        variables = (
            *[v for v in kept if v.symbol in reader.bases],
            Sym(stand_in, reader.bases[symbol]),
        )
        try:
            fn = sympy.lambdify([v.symbol for v in variables], numerator, modules="math")
        except Exception:
            continue
        text = f"{lhs} = {rhs} [{power} as one value]"
        out.append(Equation(text, variables, (), frozenset(reader.functions), fn))
    return tuple(out)


# ---- equations of a solution ------------------------------------------------------------


def _regions(text: str) -> Iterator[str]:
    """Math regions (``$...$``, ``\\[...\\]``, environments) and the text lines outside them."""
    last = 0
    for m in _MATH_RE.finditer(text):
        yield from _lines(text[last : m.start()])
        body = next(g for g in m.groups() if g is not None)
        yield from _BREAKS_RE.split(body.replace("&", ""))
        last = m.end()
    yield from _lines(text[last:])


# a list marker at a line start ("- KE = ...", "* ", "• ", "2. "): not a minus sign
_LIST_MARKER_RE = re.compile(r"^[ \t]*(?:[-*•+]|[0-9]{1,2}[.)])[ \t]+")


# HTML (a reply asked for HTML): K<sub>I</sub> is K_I, m<sup>2</sup> is m^2, other tags go
_HTML_SUB_RE = re.compile(r"<sub>([^<>]{1,20})</sub>", re.I)
_HTML_SUP_RE = re.compile(r"<sup>([^<>]{1,20})</sup>", re.I)
_HTML_TAG_RE = re.compile(r"</?[A-Za-z][^<>]{0,200}>")


def _lines(text: str) -> Iterator[str]:
    if "</" in text:
        text = _HTML_SUB_RE.sub(r"_{\1}", text)
        text = _HTML_TAG_RE.sub(" ", _HTML_SUP_RE.sub(r"^{\1}", text))
    for line in text.splitlines():
        yield _LIST_MARKER_RE.sub("", line)


# prose punctuation around a formula (an em dash is never a minus sign)
_PROSE_END_RE = re.compile(r"[,;:!?—]|\.(?:\s|$)|\*\*|`|\bthe\b|\bis\b|\bgives\b|\bso\b", re.I)


def _sides(segment: str, from_end: bool) -> Iterator[str]:
    """Candidate sides cut from a segment next to "=": the whole segment, then shorter
    pieces after (or before) prose punctuation, longest first."""
    # a side is a formula: only the characters next to the "=" can belong to it
    segment = (segment[-MAX_SIDE:] if from_end else segment[:MAX_SIDE]).strip()
    if from_end:
        cuts = [m.end() for m in _PROSE_END_RE.finditer(segment)]
        pieces = [segment] + [segment[c:] for c in cuts]
    else:
        cuts = [m.start() for m in _PROSE_END_RE.finditer(segment)]
        pieces = [segment] + [segment[:c] for c in reversed(cuts)]
    # the formula next to the "=" after a lead-in in words ("the photoelectric equation E_B")
    words = segment.split()
    k = len(words)
    if from_end:
        while k > 0 and _formula_token(words[k - 1]):
            k -= 1
        tail = " ".join(words[k:])
    else:
        k = 0
        while k < len(words) and _formula_token(words[k]):
            k += 1
        tail = " ".join(words[:k])
    if tail and tail != segment:
        pieces.insert(1, tail)
    for piece in pieces:
        piece = piece.strip(" \t*$")
        if piece and len(piece) <= MAX_SIDE:
            yield piece


_LETTER_RUN_RE = re.compile(r"(?<!\\)[A-Za-z]{2,}")


def _formula_token(token: str) -> bool:
    """A whitespace token that can be part of a formula: no English word in it (a letter
    run of four or more that is no function or Greek name, or a short English word)."""
    for run in _LETTER_RUN_RE.findall(token):
        if run in FUNCTIONS or run in GREEK or run in DROP_COMMANDS or run == "frac":
            continue
        if len(run) > 3 or run.lower() in WORDS:
            return False
    return True


@functools.lru_cache(maxsize=16)  # keyed by whole responses: a few kept
def equations_in(text: str) -> tuple[Equation, ...]:
    """The equations a solution writes: each pair of neighbouring sides of an "=" (or ≈),
    numbers generalised to slots. At most ``MAX_EQUATIONS``."""
    found: list[Equation] = []
    tried = 0
    for region in _regions(text):
        if "=" not in region and "≈" not in region and "\\approx" not in region:
            continue
        parts = _EQUALS_RE.split(region)
        for a, b in itertools.pairwise(parts):
            tried += 1
            if tried > MAX_PAIRS:  # degenerate text: enough "=" signs have been read
                return tuple(found)
            eq = _first_equation(a, b)
            if eq is not None:
                found.append(eq)
            if len(found) >= MAX_EQUATIONS:
                return tuple(found)
    return tuple(found)


def _first_equation(left: str, right: str, generalise: bool = True) -> Equation | None:
    for lhs in itertools.islice(_sides(left, True), 4):
        for rhs in itertools.islice(_sides(right, False), 4):
            eq = parse_equation(lhs, rhs, generalise)
            if eq is not None:
                return eq
    return None


_PLUS_MINUS_RE = re.compile(r"[±∓]|\\pm(?![A-Za-z])|\\mp(?![A-Za-z])")


@functools.lru_cache(maxsize=1024)
def required_equations(formula: str) -> tuple[Equation, ...]:
    """A requirement's formula (``n1 sin θ1 = n2 sin θ2``, LaTeX or plain) as equations:
    one per pair of neighbouring sides; none when it is not a formula."""
    if "∓" in formula or "±" in formula or "\\mp" in formula or "\\pm" in formula:
        # "f' = f v/(v ∓ v_s)": each sign is the relation (approaching and receding)
        plus = _PLUS_MINUS_RE.sub(lambda m: "+" if m.group() in ("±", "\\pm") else "-", formula)
        minus = _PLUS_MINUS_RE.sub(lambda m: "-" if m.group() in ("±", "\\pm") else "+", formula)
        return required_equations(plus) + required_equations(minus)
    out = []
    for region in _regions(formula):
        for a, b in itertools.pairwise(_EQUALS_RE.split(region)):
            eq = _first_equation(a, b, generalise=False)  # "the photoelectric equation E = ..."
            if eq is not None and len(eq.variables) >= 2:
                out.append(eq)
                lhs, rhs = eq.text.split(" = ", 1)
                out.extend(power_variants(lhs, rhs))
    return tuple(out)


# ---- comparing --------------------------------------------------------------------------

_POINTS = 3
_APPLIES: dict[tuple[str, str], bool] = {}  # (required, found) texts -> verdict


def applies(required: Equation, found: Equation) -> bool:
    """Whether ``found`` (a solution's equation, numbers as slots) is ``required`` with its
    variables renamed or given numbers, in any arrangement (module docstring)."""
    key = (required.text, found.text)
    known = _APPLIES.get(key)
    if known is None:
        known = _applies(required, found)
        if len(_APPLIES) > 100_000:
            _APPLIES.clear()
        _APPLIES[key] = known
    return known


def _applies(required: Equation, found: Equation) -> bool:
    if not required.functions <= found.functions:
        return False
    n_vars, n_slots = len(found.variables), len(found.slots)
    if n_vars > len(required.variables) or not n_vars:
        return False
    bases = {r.base for r in required.variables}
    if any(f.base not in bases for f in found.variables):
        return False  # a symbol of the solution that no required variable can be
    # the solution's arguments by index: variables 0..n_vars-1, slots after; -1 = left out
    slot_ids = list(range(n_vars, n_vars + n_slots))
    candidates = [
        [i for i, f in enumerate(found.variables) if f.base == r.base] + slot_ids + [-1]
        for r in required.variables
    ]
    rng = random.Random(len(found.text))
    points = [[rng.uniform(0.2, 1.3) for _ in range(n_vars + n_slots)] for _ in range(_POINTS)]
    values = [v for _, v in found.slots]
    tried = [0]

    def search(k: int, chosen: list[int], used: set[int], left_out: int) -> bool:
        if tried[0] > MAX_ASSIGNMENTS:
            return False
        if k == len(candidates):
            if not all(i in used for i in range(n_vars)):
                return False
            tried[0] += 1
            return _proportional(required, found, chosen, points, values)
        for target in candidates[k]:
            if target < 0:
                if left_out:
                    continue
                if search(k + 1, [*chosen, -1], used, 1):
                    return True
            elif target not in used:
                if search(k + 1, [*chosen, target], used | {target}, left_out):
                    return True
        return False

    return search(0, [], set(), 0)


def _proportional(
    required: Equation,
    found: Equation,
    chosen: list[int],
    points: list[list[float]],
    slot_values: list[float],
) -> bool:
    """The two numerators are proportional at every point: bound slots take the point's
    value, the others their own number; a left-out required variable is 1."""
    n_vars = len(found.variables)
    bound = set(chosen)
    ratio = None
    for point in points:
        args = point[:n_vars] + [
            point[n_vars + j] if n_vars + j in bound else v for j, v in enumerate(slot_values)
        ]
        mapped = [1.0 if c < 0 else args[c] for c in chosen]
        try:
            f = float(found.numerator(*args))
            q = float(required.numerator(*mapped))
        except (ValueError, ZeroDivisionError, OverflowError, TypeError):
            return False
        if not (math.isfinite(f) and math.isfinite(q)) or abs(q) < 1e-12 or abs(f) < 1e-12:
            return False
        r = f / q
        if ratio is None:
            ratio = r
        elif abs(r - ratio) > 1e-7 * max(1.0, abs(ratio)):
            return False
    return True


def relation_applied(formulas: tuple[str, ...], solution: str) -> str | None:
    """The first equation of ``solution`` that applies one of ``formulas``, or None."""
    required = [eq for f in formulas for eq in required_equations(f)]
    if not required:
        return None
    for eq in equations_in(solution):
        for req in required:
            if applies(req, eq):
                return eq.text
    return None
