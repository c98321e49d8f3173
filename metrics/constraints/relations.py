"""Relations compared by structure, for the ``<discipline>_method_constraint`` rule: a
solution applies a required relation when it writes an equation that IS that relation,
whatever its notation (LaTeX, Unicode, plain text), its variable names' subscripts, its
arrangement, or the numbers it substitutes for some variables.

* Reading: an equation's two sides are turned into a Python expression by a small
  notation reader (``_Reader``: LaTeX commands, ``\\frac``, ``^{}``, ``_{}``, Greek letters,
  Unicode super- and subscripts, implicit products, ``sin θ``), and sympy's ``parse_expr``
  parses that. A symbol is a letter (Latin or Greek) with an optional subscript and primes;
  its *base* is the letter. Runs of two or three Latin letters are products (``nRT``); a
  longer word, an English short word, or punctuation ends the formula.
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
from sympy.parsing.sympy_parser import parse_expr

MAX_EQUATIONS = 80
MAX_PAIRS = 400  # "=" signs read per response
MAX_ASSIGNMENTS = 4000
MAX_SIDE = 160  # characters of one side read (a formula, not a paragraph)

GREEK = (
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu "
    "xi pi rho sigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma "
    "Upsilon Phi Psi Omega"
).split()
_UNICODE_GREEK = dict(
    zip(
        "αβγδεζηθικλμνξπρστυφχψωΓΔΘΛΞΠΣΥΦΨΩϵϑϕµ",
        "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi pi rho sigma "
        "tau upsilon phi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi "
        "Omega epsilon theta phi mu".split(),
        strict=True,
    )
)
_ALIASES = {"varepsilon": "epsilon", "vartheta": "theta", "varphi": "phi"}
FUNCTIONS = {
    "sin": sympy.sin, "cos": sympy.cos, "tan": sympy.tan, "cot": sympy.cot, "sec": sympy.sec,
    "csc": sympy.csc, "arcsin": sympy.asin, "arccos": sympy.acos, "arctan": sympy.atan,
    "sinh": sympy.sinh, "cosh": sympy.cosh, "tanh": sympy.tanh, "ln": sympy.log,
    "log": sympy.log, "exp": sympy.exp, "sqrt": sympy.sqrt,
}  # fmt: skip
# short English words that end a formula written in prose ("so the angle is sin θ = ...")
_WORDS = frozenset(
    "a an the is are was be so as at by of to in on or and for we get gives its it if then "
    "use using with from into thus here where which that this has have let our one two per "
    "our you can not no yes".split()
)
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉ₐₑₒₓₘₙₖₚₛₜᵢⱼ", "0123456789aeoxmnkpstij")
_SUP_CHARS = "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺"
_DIGITS = "0123456789"
_SUB_CHARS = "₀₁₂₃₄₅₆₇₈₉ₐₑₒₓₘₙₖₚₛₜᵢⱼ"
_DROP_COMMANDS = frozenset(
    "left right big Big bigg Bigg quad qquad displaystyle textstyle mathrm mathit mathbf "
    "boldsymbol mathsf operatorname limits nolimits , ; ! : space".split()
)
_TEXT_COMMANDS = ("\\text", "\\textrm", "\\mathrm", "\\operatorname", "\\mathit", "\\mathbf")
_NUMBER_RE = re.compile(r"[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|\.[0-9]+")
_MATH_RE = re.compile(
    r"\$\$(.+?)\$\$|\\\[(.+?)\\\]|\\\((.+?)\\\)|\$([^$\n]+?)\$"
    r"|\\begin\{(?:equation|align|gather|multline)\*?\}(.+?)\\end\{(?:equation|align|gather|multline)\*?\}",
    re.S,
)
_EQUALS_RE = re.compile(r"\\approx|\\simeq|\\equiv|≈|≃|≅|=")
_BREAKS_RE = re.compile(r"\\\\|\\implies|\\Rightarrow|\\Longrightarrow|\\to\b|⇒|→|⟹|\\quad|\\qquad")


_DEGREE_RE = re.compile(r"\^\s*\{?\s*\\circ\s*\}?|\^\s*\{\s*o\s*\}")


_AFTER_NUMBER_RE = re.compile(r"[0-9](?:\s|\\[,;!: ]|~)*$")


class _NotFormula(ValueError):
    """The text is not a formula the reader can parse."""


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


# ---- reading ----------------------------------------------------------------------------

_TIMES_TEN_RE = re.compile(
    r"([0-9]+(?:\.[0-9]+)?)[ \t]*\*[ \t]*10[ \t]*"
    rf"(?:\^[ \t]*\(?[ \t]*([-+]?[ \t]*[0-9]+)[ \t]*\)?|([{_SUP_CHARS}]+))"
)


def _as_e_notation(m: re.Match[str]) -> str:
    power = (m.group(2) or m.group(3).translate(_SUPERSCRIPTS)).replace(" ", "")
    return f"{m.group(1)}e{power}"


class _Reader:
    """Turns one side of an equation into a Python expression over placeholder names."""

    def __init__(self, generalise_numbers: bool) -> None:
        self.generalise = generalise_numbers
        self.names: dict[str, sympy.Symbol] = {}  # placeholder -> symbol
        self.bases: dict[sympy.Symbol, str] = {}
        self.slots: list[tuple[sympy.Symbol, float]] = []
        self.functions: set[str] = set()

    # -- LaTeX to a linear form
    def linear(self, text: str) -> str:
        text = text.replace("\\left", "").replace("\\right", "")
        text = _DEGREE_RE.sub("°", text)
        for cmd in _TEXT_COMMANDS:
            # \text{...} after a number is its unit (dropped); elsewhere a name (kept)
            while cmd + "{" in text:
                i = text.index(cmd + "{")
                close = _close(text, i + len(cmd))
                inner = text[i + len(cmd) + 1 : close]
                if _AFTER_NUMBER_RE.search(text[:i]):
                    inner = ""
                text = text[:i] + " " + inner + " " + text[close + 1 :]
        out = []
        i = 0
        while i < len(text):
            ch = text[i]
            if ch == "\\":
                m = re.match(r"\\([A-Za-z]+|.)", text[i:])
                if not m:
                    i += 1
                    continue
                name = m.group(1)
                i += len(m.group())
                if name in ("frac", "dfrac", "tfrac"):
                    a_end = _close(text, _skip(text, i))
                    a = text[_skip(text, i) + 1 : a_end]
                    b_start = _skip(text, a_end + 1)
                    b_end = _close(text, b_start)
                    out.append(f"(({self.linear(a)})/({self.linear(text[b_start + 1 : b_end])}))")
                    i = b_end + 1
                elif name == "sqrt":
                    j = _skip(text, i)
                    if j < len(text) and text[j] == "[":
                        k = text.index("]", j)
                        root = text[j + 1 : k]
                        j = _skip(text, k + 1)
                        end = _close(text, j)
                        inner = self.linear(text[j + 1 : end])
                        out.append(f"(({inner})^(1/({root})))")
                    else:
                        end = _close(text, j)
                        out.append(f" sqrt({self.linear(text[j + 1 : end])})")
                    i = end + 1
                elif name in ("cdot", "times", "ast"):
                    out.append("*")
                elif name in ("circ", "degree"):
                    out.append("°")
                elif name in ("div",):
                    out.append("/")
                elif name in FUNCTIONS:
                    out.append(f" {name} ")
                elif name in GREEK:  # no space after: a subscript may follow
                    out.append(f" {name}")
                elif name in ("hbar",):
                    out.append(" hbar ")
                elif name in _DROP_COMMANDS or not name.isalpha():
                    out.append(" ")
                else:
                    raise _NotFormula(f"LaTeX command \\{name}")
            elif ch in "{}":
                out.append("(" if ch == "{" else ")")
                i += 1
            else:
                out.append(ch)
                i += 1
        return "".join(out)

    # -- the linear form to a Python expression
    def python(self, text: str) -> str:
        text = text.replace("−", "-").replace("–", "-").replace("×", "*").replace("·", "*")
        text = text.replace("⋅", "*").replace("∙", "*").replace("÷", "/").replace("√", " sqrt")
        text = text.replace("½", "(1/2)").replace("[", "(").replace("]", ")")
        # "1.0 × 10⁻³", "1.0*10^(-3)": one number (one slot), as "1.0e-3"
        text = _TIMES_TEN_RE.sub(_as_e_notation, text)
        out: list[str] = []
        i, n = 0, len(text)
        prev_atom = False  # the previous token ends an operand (implicit product follows)
        pending_function = False
        while i < n:
            ch = text[i]
            if ch.isspace():
                i += 1
                continue
            if ch in _DIGITS or (ch == "." and i + 1 < n and text[i + 1] in _DIGITS):
                m = _NUMBER_RE.match(text, i)
                assert m
                raw = m.group().replace(",", ".")
                i = m.end()
                if i < n and text[i] == "°":
                    i += 1
                if prev_atom:
                    out.append("*")
                # an exponent stays a number: v^2 is a square whatever the values
                exponent = bool(out) and out[-1] in ("**", "**(")
                out.append(raw if exponent else self._number(raw))
                prev_atom, pending_function = True, False
                continue
            if ch in _SUP_CHARS:
                j = i
                while j < n and text[j] in _SUP_CHARS:
                    j += 1
                out.append(f"**({text[i:j].translate(_SUPERSCRIPTS)})")
                i = j
                continue
            if ch == "^":
                out.append("**")
                if text[i + 1 : i + 2] == "(":  # ^{2} became ^(2)
                    out.append("(")
                    i += 1
                i += 1
                prev_atom = False
                continue
            if ch in "+-*/":
                out.append(ch)
                i += 1
                prev_atom = pending_function = False
                continue
            if ch == "(":
                if prev_atom and not pending_function:
                    out.append("*")
                out.append("(")
                i += 1
                prev_atom = pending_function = False
                continue
            if ch == ")":
                out.append(")")
                i += 1
                prev_atom = True
                continue
            if ch in _UNICODE_GREEK or (ch.isalpha() and ch.isascii()):
                j = i
                if ch in _UNICODE_GREEK:
                    word, j = _UNICODE_GREEK[ch], i + 1
                else:
                    while j < n and text[j].isascii() and text[j].isalpha():
                        j += 1
                    word = text[i:j]
                tokens = self._word(word)
                for kind, value in tokens:
                    if kind == "function":
                        if prev_atom:
                            out.append("*")
                        out.append(value)
                        self.functions.add(value)
                        # "sin θ2" / "sin 2θ": the argument is the next operand
                        j, arg = self._bare_argument(text, j)
                        out.append(f"({arg})" if arg is not None else "")
                        prev_atom, pending_function = arg is not None, arg is None
                        continue
                    # a symbol, with its subscript and primes from the text after it
                    sub, j = _subscript(text, j) if (kind, value) == tokens[-1] else ("", j)
                    if (kind, value) == tokens[-1]:  # n(Na2CO3), c(HCl): a label, not a product
                        label, j = _species_label(text, j)
                        sub += label
                    if prev_atom:
                        out.append("*")
                    out.append(self._symbol(value, sub))
                    prev_atom, pending_function = True, False
                i = j
                continue
            if ch == "_":  # a subscript after something that is not a symbol: ignore it
                _, k = _subscript(text, i)
                i = max(k, i + 1)
                continue
            if ch in "°'′!":
                i += 1
                continue
            if ch in _SUB_CHARS:
                i += 1
                continue
            raise _NotFormula(f"character {ch!r}")
        return "".join(out)

    def _bare_argument(self, text: str, j: int) -> tuple[int, str | None]:
        """The argument of a function written without brackets: an optional number and one
        symbol with its subscript (``sin 2θ_1``), or nothing when a bracket follows."""
        k = j
        while k < len(text) and text[k] == " ":
            k += 1
        if k >= len(text) or text[k] == "(":
            return j, None
        if text[k] == "^":  # sin^2 θ
            return j, None
        m = re.match(r"(\d+(?:\.\d+)?)?[ ]?(°)?", text[k:])
        number = m.group(1) if m else None
        k2 = k + (m.end() if m else 0)
        if k2 < len(text) and (
            text[k2] in _UNICODE_GREEK or (text[k2].isascii() and text[k2].isalpha())
        ):
            if text[k2] in _UNICODE_GREEK:
                word, end = _UNICODE_GREEK[text[k2]], k2 + 1
            else:
                end = k2
                while end < len(text) and text[end].isascii() and text[end].isalpha():
                    end += 1
                word = text[k2:end]
                if word not in GREEK:
                    word, end = word[0], k2 + 1
            sub, end = _subscript(text, end)
            sym = self._symbol(_ALIASES.get(word, word), sub)
            return end, (f"{self._number(number)}*{sym}" if number else sym)
        if number:
            return k2, self._number(number)
        return j, None

    def _word(self, word: str) -> list[tuple[str, str]]:
        if word in FUNCTIONS:
            return [("function", word)]
        if word in GREEK:
            return [("symbol", _ALIASES.get(word, word))]
        if word == "hbar":
            return [("symbol", "hbar")]
        if (len(word) > 1 and word.lower() in _WORDS) or len(word) > 3:
            # a Greek name glued to letters ("thetaB") or a word: not a formula
            for g in GREEK:
                if word.startswith(g) and len(word) - len(g) <= 2:
                    return [("symbol", g), *[("symbol", c) for c in word[len(g) :]]]
            raise _NotFormula(f"word {word!r}")
        return [("symbol", c) for c in word]

    def _symbol(self, base: str, sub: str) -> str:
        name = f"{base}_{sub}" if sub else base
        placeholder = f"s{len(self.names)}_"
        for key, sym in self.names.items():
            if sym.name == name:
                return key
        symbol = sympy.Symbol(name, positive=True)
        self.names[placeholder] = symbol
        self.bases[symbol] = base.lower() if len(base) == 1 else base
        return placeholder

    def _number(self, raw: str) -> str:
        if not self.generalise:
            return raw
        value = float(raw)
        for symbol, known in self.slots:
            if known == value:  # "700 × 343/(343 − 25)": one value substituted for one variable
                return str(symbol)
        placeholder = f"c{len(self.slots)}_"
        symbol = sympy.Symbol(placeholder, positive=True)
        self.slots.append((symbol, value))
        self.names[placeholder] = symbol
        return placeholder


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t":
        i += 1
    return i


def _close(text: str, open_pos: int) -> int:
    """Index of the brace closing the one at ``open_pos`` (a bare token when no brace)."""
    if open_pos >= len(text):
        raise _NotFormula("unclosed group")
    if text[open_pos] != "{":
        # \frac12: single-character arguments
        return open_pos
    depth = 0
    for k in range(open_pos, len(text)):
        if text[k] == "{":
            depth += 1
        elif text[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    raise _NotFormula("unclosed brace")


def _subscript(text: str, j: int) -> tuple[str, int]:
    """A subscript (``_1``, ``_{in}``, ``_(in)`` after LaTeX braces became brackets,
    Unicode ``₁``, a digit run glued to the letter ``θ2``) and primes after a symbol."""
    sub = ""
    if j < len(text) and text[j] == "_":
        k = j + 1
        if k < len(text) and text[k] == "(":
            end = text.find(")", k)
            if end < 0:
                raise _NotFormula("unclosed subscript")
            sub, j = text[k + 1 : end], end + 1
        else:
            m = re.match(r"[A-Za-z0-9]+", text[k:])
            if m:
                sub, j = (m.group()[0] if len(m.group()) > 3 else m.group()), k + len(m.group())
    elif j < len(text) and text[j] in _SUB_CHARS:
        k = j
        while k < len(text) and text[k] in _SUB_CHARS:
            k += 1
        sub, j = text[j:k].translate(_SUBSCRIPTS), k
    else:
        m = re.match(r"\d+(?![.\d])", text[j:])
        if m and len(m.group()) <= 2:
            sub, j = m.group(), j + len(m.group())
    primes = 0
    while j < len(text) and text[j] in "'′":
        primes += 1
        j += 1
    sub = re.sub(r"[^A-Za-z0-9]", "", sub.translate(_SUBSCRIPTS))
    return sub + "p" * primes, j


_SPECIES_RE = re.compile(r"\(([ A-Za-z0-9_()]{2,40}?)\)")


def _species_label(text: str, j: int) -> tuple[str, int]:
    """A species or label in brackets right after a symbol (``n(Na2CO3)``, ``c(HCl)``), read
    as the symbol's subscript: letters and digits only, with two capitals or a capital and
    a lower-case letter (``n(x)`` stays a product)."""
    m = _SPECIES_RE.match(text, j)
    if not m:
        return "", j
    inner = re.sub(r"[^A-Za-z0-9]", "", m.group(1))
    if len(inner) < 2 or not re.search(r"[A-Z]", inner) or not re.fullmatch(r"[A-Za-z0-9]+", inner):
        return "", j
    return inner, m.end()


def _parse_side(reader: _Reader, text: str) -> sympy.Expr:
    python = reader.python(reader.linear(text))
    if not python.strip():
        raise _NotFormula("empty side")
    local = {**reader.names, **{name: FUNCTIONS[name] for name in FUNCTIONS}}
    try:
        expr = parse_expr(python, local_dict=local, evaluate=True)
    except Exception as exc:  # sympy's parser says why; the side is simply not a formula
        raise _NotFormula(f"unparsable {python!r}") from exc
    if not isinstance(expr, sympy.Expr):
        raise _NotFormula("not an expression")
    return expr


@functools.lru_cache(maxsize=8192)
def parse_equation(lhs: str, rhs: str, generalise_numbers: bool) -> Equation | None:
    """The relation ``lhs = rhs``, or None when either side is not a formula."""
    reader = _Reader(generalise_numbers)
    try:
        left = _parse_side(reader, lhs)
        right = _parse_side(reader, rhs)
        numerator, _ = sympy.fraction(sympy.together(left - right))
    except (_NotFormula, RecursionError, TypeError, ValueError, ZeroDivisionError, AttributeError):
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
    reader = _Reader(False)
    try:
        expr = _parse_side(reader, lhs) - _parse_side(reader, rhs)
    except (_NotFormula, RecursionError, TypeError, ValueError, ZeroDivisionError, AttributeError):
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
        if run in FUNCTIONS or run in GREEK or run in _DROP_COMMANDS or run == "frac":
            continue
        if len(run) > 3 or run.lower() in _WORDS:
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
