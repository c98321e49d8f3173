"""The ``<discipline>_method_constraint`` rule (five names, one implementation, extract kind;
each discipline module registers it). Decision rule:

* ``<discipline>_method_constraint`` (five names, one implementation; extract kind). The
  requirement is split at top level (outside brackets) on "," ";" "and" "&" "plus" into
  items, all of which must be met; a bracketed part is an alternative spelling of its item
  ("comparative Ct (Livak, 2^-ΔΔCt) method"); a bare setting ("n = 1", "K = 0.9") is a
  qualifier, not an item. Without parameters the items are the known methods named in the
  question, else the phrase after "use / using / apply / according to / based on / via / by
  (the)" that holds a method word (law, equation, method, ...) or a formula. An item is
  met by the RULE when the response:
  - names a known method of the item (``METHODS``, read from the data file
    ``methods.json`` beside this module: each method's names and signature formulas, e.g.
    Bragg's law <-> "nλ = 2d sinθ", ideal gas law <-> "PV = nRT") by a name or a formula:
    a method applied by its formula counts as the method used;
  - or applies the method through a defining relation (``RELATIONS``, read from the data
    file ``method_relations.json`` beside this module, whose "about" defines the spelling):
    an equation whose side just left of an "=" ends with one side of the relation and
    whose side just right of it begins with the other, symbols with any subscript, products
    in any order (conservation of energy through ½ m v_f² = m g h, Ohm's law through
    U_R = R I, the ideal gas law through p_1 V_1 = n R T_1);
  - or writes the item's formula (it holds "=" or an operator): compared after rewriting
    LaTeX (``\\lambda`` -> λ, ``\\sin`` -> sin, ``\\frac{a}{b}`` -> a/b, ``°`` -> 0) with spaces,
    brackets, ``_``, ``^``, ``·``, ``×``, ``*`` ignored between characters, case-insensitive,
    sides swapped allowed;
  - or, for a descriptive item that names no known method, holds the item's content words
    (stop words and generic words such as law / method / equation dropped; crude stems: the
    first 7 letters of a long word, else the word without a plural s; a response word
    matches a stem it begins with) within one sentence: all of them, all but one when there
    are four or more.
  Without parameters, the known methods named in the question's "use / using / apply /
  according to / based on / via / by (the) ..." phrases are the items (else every known
  method the question names, else those phrases themselves).
  When the rule misses an item and a judge is in force, ``extract_span(inp, "<item>
  statement or formula")`` copies a span and the rule re-checks it, more leniently because
  the span was located: a formula holding "=" whose symbols (letters and sin / cos / ln /
  ...) include every symbol of the item's formula (or of a known formula of the method), in
  any arrangement; for a descriptive item, at least half of its content words.
"""

from __future__ import annotations

import functools
import json
import re
from bisect import bisect_left
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import permutations
from pathlib import Path

from sci_tasks.metrics.constraints.base import (
    CheckInput,
)
from sci_tasks.metrics.constraints.extraction import extract_span
from sci_tasks.metrics.constraints.text import clean_parameters, clip, phrases, plural, rejected_at
from sci_tasks.metrics.verdict import Verdict

# =========================================================================== methods


@dataclass(frozen=True)
class Method:
    """A known law / equation / method: its names (regexes over ``_name_text``) and its
    formulas (as written; compared by ``_formula_regex``)."""

    name: str
    names: str
    formulas: tuple[str, ...] = ()


METHODS_FILE = Path(__file__).with_name("methods.json")


def _load_methods(path: Path = METHODS_FILE) -> tuple[Method, ...]:
    """The method table (``methods.json``: each method's names as a regex and its
    signature formulas); a broken entry is an error naming the file and the entry."""
    rows = json.loads(path.read_text(encoding="utf-8"))["methods"]
    out = []
    for i, row in enumerate(rows):
        try:
            re.compile(row["names"])
            out.append(Method(row["name"], row["names"], tuple(row.get("formulas", ()))))
        except (KeyError, TypeError, re.error) as exc:
            raise ValueError(f"{path}: method #{i + 1} ({row!r:.60}): {exc}") from exc
    return tuple(out)


METHODS: tuple[Method, ...] = _load_methods()

# =========================================================================== relations

RELATIONS_FILE = Path(__file__).with_name("method_relations.json")


@dataclass(frozen=True)
class Relation:
    """A defining relation of a method: two sides, each compiled twice, anchored at the
    end (the side left of an "=") and at the start (the side right of it)."""

    reads: str
    ends: tuple[re.Pattern[str], re.Pattern[str]]
    starts: tuple[re.Pattern[str], re.Pattern[str]]


_SYMBOL_CHARS = "A-Za-zΑ-Ωα-ωΔΣ∂"
_FACTOR_RE = re.compile(
    rf"(?P<neg>-)?(?P<base>sin|cos|tan|ln|log|[{_SYMBOL_CHARS}]+|[0-9]+/[0-9]+|[0-9.]+)"
    r"(?:_(?P<sub>[A-Za-z0-9]+))?(?:\^(?P<exp>-?[0-9]+))?"
)
_BETWEEN = r"[ \t(){}·×*]*"
_SUBSCRIPT = r"(?:_\{[^{}=\n]{1,10}\}|_[A-Za-z0-9]{1,4}|[0-9]{1,2}|[₀-₉])?['′]?"
_HALF = r"(?:1[ \t]*/[ \t]*2|\([ \t]*1[ \t]*\)[ \t]*/[ \t]*\([ \t]*2[ \t]*\)|0\.5|½)"
MAX_PRODUCT = 4  # factors permuted in a product (4! = 24 orders)


def _factor_regex(token: str) -> str:
    """One factor of a relation side (``method_relations.json`` "about")."""
    m = _FACTOR_RE.fullmatch(token)
    if m is None:
        raise ValueError(f"unreadable factor {token!r}")
    base, sub, exp = m.group("base"), m.group("sub"), m.group("exp")
    out = r"-[ \t]*" if m.group("neg") else ""
    if base == "1/2":
        out += _HALF
    elif base[0].isdigit() or base in ("sin", "cos", "tan", "ln", "log"):
        out += re.escape(base)
    else:
        out += re.escape(base)
        if sub:
            out += rf"(?:_\{{[ \t]*{re.escape(sub)}[ \t]*\}}|_?{re.escape(sub)})['′]?"
        else:
            out += _SUBSCRIPT
    if exp:
        out += rf"[ \t]*\^[ \t]*\{{?[ \t]*{re.escape(exp)}[ \t]*\}}?"
    return out


def _side_regex(spelling: str) -> str:
    """A side spelling -> regex: a product's factors in any order; "/" "+" kept in place;
    ``sqrt(...)`` -> √ or sqrt around its (product) argument."""
    text = spelling.strip()
    root = text.startswith("sqrt(") and text.endswith(")")
    if root:
        text = text[5:-1]
    tokens = text.replace("(", " ").replace(")", " ").split()
    ops = {"/": r"[ \t]*/[ \t]*", "+": r"[ \t]*\+[ \t]*"}
    if any(t in ops for t in tokens) or any(t.startswith("-") for t in tokens):
        body = _BETWEEN.join(ops.get(t) or _factor_regex(t) for t in tokens)
    else:
        if len(tokens) > MAX_PRODUCT:
            raise ValueError(f"{spelling!r}: more than {MAX_PRODUCT} factors")
        orders = dict.fromkeys(permutations(_factor_regex(t) for t in tokens))
        body = "|".join(_BETWEEN.join(order) for order in orders)
    if root:
        body = rf"(?:√|sqrt)[ \t]*[({{]?[ \t]*(?:{body})[ \t]*[)}}]?"
    return f"(?:{body})"


def _relation(row: Mapping[str, object], ignore_case: bool) -> Relation:
    sides = row["sides"]
    if not (isinstance(sides, list) and len(sides) == 2 and all(sides)):
        raise ValueError("'sides' must be two non-empty lists of spellings")
    alternatives = ["|".join(_side_regex(s) for s in side) for side in sides]
    flags = re.I if ignore_case else 0
    # left of "=": the side ends the text, not glued to a letter or digit before it
    ends = tuple(re.compile(rf"(?<![A-Za-z0-9])(?:{a})[ \t]*\Z", flags) for a in alternatives)
    # right of "=": the side begins the text, not glued to a letter or digit after it
    starts = tuple(re.compile(rf"[ \t]*(?:{a})(?![A-Za-z0-9])", flags) for a in alternatives)
    return Relation(str(row.get("reads", "")), ends, starts)  # type: ignore[arg-type]


def _load_relations(path: Path = RELATIONS_FILE) -> dict[str, tuple[Relation, ...]]:
    """The relation table by method name (``method_relations.json``); a broken entry or an
    unknown method name is an error naming the file and the entry."""
    known = {m.name for m in METHODS}
    out: dict[str, tuple[Relation, ...]] = {}
    for i, entry in enumerate(json.loads(path.read_text(encoding="utf-8"))["relations"]):
        try:
            name = entry["method"]
            if name not in known:
                raise ValueError(f"{name!r} is not a method of {METHODS_FILE.name}")
            ignore_case = bool(entry.get("ignore_case", False))
            out[name] = tuple(_relation(row, ignore_case) for row in entry["relations"])
        except (KeyError, TypeError, ValueError, re.error) as exc:
            raise ValueError(f"{path}: relation entry #{i + 1} ({entry!r:.60}): {exc}") from exc
    return out


RELATIONS: dict[str, tuple[Relation, ...]] = _load_relations()

_METHOD_WORDS = (
    "law laws equation equations formula formulas formulae method methods relation relations "
    "relationship principle principles rule rules theorem model approach technique analysis "
    "test plot criterion index procedure algorithm theory effect cycle function"
).split()
_STOP_WORDS = frozenset(
    (
        "the a an of for to in on at by with and or using use used apply applying applied "
        "via from into its their your this that these those as is are be then than "
        "calculate compute determine find estimate predict give show explain describe "
        "based according first second order step steps value values over per "
    ).split()
    + _METHOD_WORDS
)
_METHOD_WORD_RE = re.compile(r"\b(?:" + "|".join(_METHOD_WORDS) + r")\b|=", re.I)
_FORMULA_CHARS_RE = re.compile(r"[=×·*/^√∝+]|\\(?:frac|times|cdot|sqrt)")
_SETTING_RE = re.compile(r"[A-Za-zα-ωΑ-Ω][\w′']{0,3}[ \t]*=[ \t]*[-+−]?[0-9.]+[^=]*")
_CUES = phrases(
    "use",
    "using",
    "apply",
    "applying",
    "employ",
    "employing",
    "according to",
    "based on",
    "by means of",
    "via",
    "with the help of",
    "by",
)
_CUE_RE = re.compile(rf"\b(?:{_CUES})[ \t]+(?:the[ \t]+|an?[ \t]+)?", re.I)
_PHRASE_END_RE = re.compile(r"[.;:!?\n]|,[ \t]|[ \t]to[ \t]|[ \t]in[ \t]+order[ \t]+to\b")


# ---- text normalisation for names and formulas

_POSSESSIVE_RE = re.compile(r"['’ʼ`](?:s\b|(?!\w))")
_NON_WORD_RE = re.compile(r"[\W_]+")


def _name_text(text: str) -> str:
    """Lower case, possessives dropped, punctuation and hyphens -> single spaces."""
    t = _POSSESSIVE_RE.sub("", text.lower())
    t = t.replace("'", "").replace("’", "")
    return " " + _NON_WORD_RE.sub(" ", t).strip() + " "


_LATEX_SYMBOLS = {
    "lambda": "λ", "theta": "θ", "alpha": "α", "beta": "β", "gamma": "γ", "Gamma": "Γ",
    "delta": "δ", "Delta": "Δ", "epsilon": "ε", "varepsilon": "ε", "eta": "η", "kappa": "κ",
    "mu": "μ", "nu": "ν", "pi": "π", "rho": "ρ", "sigma": "σ", "Sigma": "Σ", "sum": "Σ",
    "tau": "τ", "phi": "φ", "varphi": "φ", "Phi": "Φ", "chi": "χ", "omega": "ω",
    "Omega": "Ω", "psi": "ψ", "partial": "∂", "propto": "∝", "approx": "=", "simeq": "=",
    "sqrt": "√", "circ": "0", "degree": "0", "times": "×", "cdot": "·", "oint": "∮",
    "sin": "sin", "cos": "cos", "tan": "tan", "ln": "ln", "log": "log", "exp": "exp",
    "arcsin": "arcsin", "arccos": "arccos", "arctan": "arctan", "infty": "∞", "pm": "±",
    "ell": "l", "hbar": "ħ", "nabla": "∇", "int": "∫", "to": "→", "rightarrow": "→",
}  # fmt: skip
_LATEX_COMMAND_RE = re.compile(r"\\([A-Za-z]+)")
_FRAC_RE = re.compile(r"\\[dt]?frac[ \t]*\{([^{}]*)\}[ \t]*\{([^{}]*)\}")
_FORMULA_CHAR_MAP = str.maketrans(
    {
        "−": "-", "–": "-", "—": "-", "÷": "/", "⁄": "/", "∕": "/", "≈": "=", "≅": "=",
        "°": "0", "∘": "0", "⋅": "·", "∙": "·", "•": "·", "∗": "*", "′": "'", "’": "'",
        "²": "^2", "³": "^3", "⁴": "^4", "¹": "^1", "⁰": "^0", "⁻": "^-", "⁺": "^+",
        "₀": "0", "₁": "1", "₂": "2", "₃": "3", "₄": "4", "ₐ": "a", "ₑ": "e", "ₒ": "o",
        "ₓ": "x", "ₘ": "m", "ₙ": "n", "ₖ": "k", "ₚ": "p", "ₛ": "s", "ₜ": "t", "ᵢ": "i",
        "½": "1/2", "∑": "Σ", "µ": "μ", "ϕ": "φ", "ϑ": "θ", "ϵ": "ε", "$": " ",
    }
)  # fmt: skip


_FORMULA_MAP_RE = re.compile("[" + re.escape("".join(chr(k) for k in _FORMULA_CHAR_MAP)) + "]")


def _translate(text: str, table: Mapping[int, str | None], pattern: re.Pattern[str]) -> str:
    """``text.translate(table)``, touching only the characters the table maps (one regex
    pass: a long plain-ASCII response costs a scan, not a per-character lookup)."""
    return pattern.sub(lambda m: table[ord(m.group())] or "", text)


def _formula_text(text: str) -> str:
    """LaTeX commands -> symbols (unknown ones dropped), ``\\frac{a}{b}`` -> ``(a)/(b)``,
    Unicode variants -> one spelling. Spaces and brackets are kept."""
    if "\\" in text:
        text = _LATEX_COMMAND_RE.sub(
            lambda m: (
                m.group(0)
                if m.group(1) in ("frac", "dfrac", "tfrac")
                else _LATEX_SYMBOLS.get(m.group(1), " ")
            ),
            text,
        )
        for _ in range(3):
            text = _FRAC_RE.sub(r"(\1)/(\2)", text)
    return _translate(text, _FORMULA_CHAR_MAP, _FORMULA_MAP_RE)


_GAP = r"[\s{}()\[\]·×*_^|,]*"
_GAP_CHARS = frozenset(" \t\n\r{}()[]·×*_^|,")
_FUNCTIONS = (
    "arcsin",
    "arccos",
    "arctan",
    "atan2",
    "asin",
    "acos",
    "sqrt",
    "sin",
    "cos",
    "tan",
    "log",
    "exp",
    "ln",
)


def _formula_core(formula: str) -> str:
    return "".join(ch for ch in _formula_text(formula) if ch not in _GAP_CHARS)


@functools.lru_cache(maxsize=1024)
def _formula_regex(formulas: tuple[str, ...]) -> re.Pattern[str] | None:
    """One regex matching any of ``formulas`` (and each with its sides swapped), with the
    ``_GAP`` characters allowed between any two characters; lower case, to be searched in
    lower-cased text by ``_formula_search`` (no IGNORECASE flag and no leading assertion,
    so the regex engine skips ahead on the first characters)."""
    alternatives: list[str] = []
    for formula in formulas:
        core = _formula_core(formula).lower()
        variants = [core]
        if core.count("=") == 1:
            left, right = core.split("=")
            variants.append(f"{right}={left}")
        for v in variants:
            if len(v) >= 3:
                alternatives.append(_GAP.join(re.escape(ch) for ch in v))
    if not alternatives:
        return None
    body = "|".join(sorted(set(alternatives), key=len, reverse=True))
    return re.compile(body)


def _formula_search(regex: re.Pattern[str], lower: str, limit: int = 10_000) -> str | None:
    """The first match in ``lower`` not glued to a Latin letter or digit before it, nor to
    a Latin letter after it ("F = ma" is not found in "F = mass")."""
    for k, m in enumerate(regex.finditer(lower)):
        if k >= limit:
            break
        a, b = m.span()
        before = lower[a - 1] if a else " "
        after = lower[b] if b < len(lower) else " "
        if not (before.isascii() and before.isalnum()) and not (
            after.isascii() and after.isalpha()
        ):
            return m.group()
    return None


def _symbols(text: str) -> set[str]:
    """Formula symbols of (formula-normalised) ``text``: function names and single letters,
    taken from chunks that look like formula parts (English words of 5+ letters skipped)."""
    out: set[str] = set()
    for chunk in text.split():
        if chunk.isalpha() and len(chunk) >= 5 and chunk.lower() not in _FUNCTIONS:
            continue
        low = chunk.lower()
        for fn in _FUNCTIONS:
            if fn in low:
                out.add(fn)
                low = low.replace(fn, " ")
        out.update(ch for ch in low if ch.isalpha())
    return out


def _stem(word: str) -> str:
    if len(word) > 7:
        return word[:7]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _content_words(text: str) -> list[str]:
    words = []
    for w in _name_text(_formula_text(text)).split():
        if w in _STOP_WORDS or w.isdigit() or (len(w) < 3 and not any(c.isdigit() for c in w)):
            continue
        stem = _stem(w)
        if stem not in words:
            words.append(stem)
    return words


# ---- the requirement


@dataclass
class _Item:
    text: str
    methods: list[Method]
    alternatives: list[str]  # literal alternatives that name no known method

    def formulas(self) -> list[str]:
        return [a for a in self.alternatives if _FORMULA_CHARS_RE.search(a)]


_METHOD_RES: list[tuple[Method, re.Pattern[str]]] = [
    (m, re.compile(rf"(?:{m.names.replace(chr(92) + 'b', '')})")) for m in METHODS
]


def _bounded(pattern: re.Pattern[str], text: str, limit: int = 10_000) -> re.Match[str] | None:
    """The first match of ``pattern`` in ``text`` not glued to a letter or digit on either
    side (checked here, so the regex starts with a literal and scans fast)."""
    for k, m in enumerate(pattern.finditer(text)):
        if k >= limit:
            return None
        a, b = m.span()
        if (a == 0 or not text[a - 1].isalnum()) and (b == len(text) or not text[b].isalnum()):
            return m
    return None


def _bounded_all(
    pattern: re.Pattern[str], text: str, pos: int, limit: int = 20
) -> list[re.Match[str]]:
    """The matches of ``pattern`` from ``pos`` on that ``_bounded`` would accept (at most
    ``limit``)."""
    found = []
    for m in pattern.finditer(text, pos):
        a, b = m.span()
        if (a == 0 or not text[a - 1].isalnum()) and (b == len(text) or not text[b].isalnum()):
            found.append(m)
            if len(found) >= limit:
                break
    return found


_METHOD_NAME_RES = {m.name: pattern for m, pattern in _METHOD_RES}


@functools.lru_cache(maxsize=4096)
def _methods_named(text: str) -> tuple[Method, ...]:
    """The known methods ``text`` names (cached: samples repeat the same requirements)."""
    norm = _name_text(_formula_text(text))
    return tuple(m for m, pattern in _METHOD_RES if _bounded(pattern, norm))


_TOP_SPLIT_RE = re.compile(r"[(\[{)\]},;]| (?:and|&|plus|as well as) ", re.I)


def _split_top(text: str) -> list[str]:
    """Split on , ; " and " " & " " plus " outside brackets (one regex pass: only brackets
    and separators are visited, not every character)."""
    parts: list[str] = []
    depth, start = 0, 0
    for m in _TOP_SPLIT_RE.finditer(text):
        token = m.group()
        if token in "([{":
            depth += 1
        elif token in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0:
            parts.append(text[start : m.start()])
            start = m.end()
    parts.append(text[start:])
    return [p.strip(" \t.") for p in parts if p.strip(" \t.")]


def _bracketed(piece: str) -> tuple[str, list[str]]:
    """The piece without its bracketed parts, and the bracketed parts split on , ;."""
    inner: list[str] = []
    main: list[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(piece):
        if ch == "(":
            if depth == 0:
                main.append(piece[start:i])
                start = i + 1
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
            if depth == 0:
                inner.append(piece[start:i])
                start = i + 1
    main.append(piece[start:] if depth == 0 else piece[start - 1 :])
    parts = [p.strip() for group in inner for p in re.split(r"[,;]", group) if p.strip()]
    return " ".join(" ".join(main).split()), parts


def _is_setting(text: str) -> bool:
    return bool(_SETTING_RE.fullmatch(text.strip())) or bool(re.fullmatch(r"[0-9.\s]+", text))


def _formula_part(text: str) -> str:
    """ "the relations n = c × V" -> "n = c × V": leading stop / method words dropped from a
    formula."""
    if "=" not in text:
        return text
    tokens = text.split()
    k = 0
    while k < len(tokens) - 1 and "=" not in tokens[k] and tokens[k + 1] != "=":
        if _name_text(tokens[k]).strip() not in _STOP_WORDS:
            break
        k += 1
    return " ".join(tokens[k:])


# More distinct requirement items than this: the text is not a method requirement a
# response can be held to (each item is looked for in the whole response, so the work is
# items x response; real requirements name one to a few methods).
MAX_METHOD_ITEMS = 64


class TooManyItems(ValueError):
    """More than ``MAX_METHOD_ITEMS`` distinct items in a method requirement."""


def _items_from(text: str) -> list[_Item]:
    pieces = list(dict.fromkeys(_split_top(text)))  # a repeated requirement is one requirement
    if len(pieces) > MAX_METHOD_ITEMS:
        raise TooManyItems(f"{len(pieces)} distinct items (more than {MAX_METHOD_ITEMS})")
    kept = [p for p in pieces if not _is_setting(p)] or pieces
    items = []
    for piece in kept:
        main, inner = _bracketed(piece)
        # a bracketed formula of the main formula ("(vertical interval / horizontal distance)")
        # is an alternative; a bracketed setting is dropped
        candidates = [main, *inner] if main else inner
        candidates = [c for c in candidates if not _is_setting(c)] or candidates
        methods: list[Method] = []
        literal: list[str] = []
        for c in candidates:
            named = _methods_named(c)
            if named:
                methods.extend(m for m in named if m not in methods)
            else:
                literal.append(_formula_part(c))
        items.append(_Item(_formula_part(piece), methods, literal))
    return items


def _method_items(params: str, question: str) -> tuple[list[_Item], str]:
    if params:
        items = _items_from(params)
        if items:
            return items, "parameters"
    if not question:
        return [], ""
    phrases = []
    for m in _CUE_RE.finditer(question):
        rest = question[m.end() : m.end() + 160]
        stop = _PHRASE_END_RE.search(rest)
        phrase = rest[: stop.start() if stop else len(rest)].strip()
        if phrase and _METHOD_WORD_RE.search(phrase):
            phrases.append(phrase)
    # known methods in the "use / apply ..." phrases, else anywhere in the question
    named = [m for p in phrases for m in _methods_named(p)] or _methods_named(question)
    if named:
        unique = list(dict.fromkeys(named))
        return [_Item(m.name, [m], []) for m in unique], "question"
    items = []
    for phrase in phrases:
        items.extend(_items_from(phrase))
    return items, "question"


# ---- matching


@dataclass
class _ResponseView:
    """Normalised views of one response, built once and shared by the items."""

    raw: str
    names: str = ""
    formula: str = ""
    lower: str = ""
    _ends: list[int] | None = field(default=None, repr=False)
    _equations: list[tuple[str, str]] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.formula = _formula_text(self.raw)
        self.names = _name_text(self.formula)
        self.lower = self.formula.lower()

    def equations(self) -> list[tuple[str, str]]:
        """(left, right) around each "=" of each line: the 80 characters before and after
        it, up to the neighbouring "=" (built once per response)."""
        if self._equations is None:
            pairs: list[tuple[str, str]] = []
            for line in self.formula.splitlines():
                if "=" not in line:
                    continue
                sides = line.split("=")
                pairs.extend((sides[i][-80:], sides[i + 1][:80]) for i in range(len(sides) - 1))
                if len(pairs) > MAX_EQUATIONS:
                    break
            self._equations = pairs[:MAX_EQUATIONS]
        return self._equations

    def sentence_ends(self) -> list[int]:
        if self._ends is None:
            self._ends = [m.start() for m in _SENTENCE_END_RE.finditer(self.lower)]
        return self._ends

    def best_sentence(self, words: list[str]) -> int:
        """The largest number of ``words`` (stems) that begin words of one sentence."""
        if not words:
            return 0
        pattern = re.compile("|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)))
        ends = self.sentence_ends()
        seen: dict[int, set[str]] = {}
        best = 0
        text = self.lower
        for m in pattern.finditer(text):
            if m.start() and text[m.start() - 1].isalnum():
                continue  # not the start of a word
            found = seen.setdefault(bisect_left(ends, m.start()), set())
            found.add(m.group())
            best = max(best, len(found))
            if best == len(words):
                break
        return best


_SENTENCE_END_RE = re.compile(r"[.!?。;；](?=\s)|\n")
MAX_EQUATIONS = 5_000  # "=" signs examined per response (a bound on degenerate text)


def _method_evidence(method: Method, view: _ResponseView) -> str | None:
    m = _bounded(_METHOD_NAME_RES[method.name], view.names)
    if m and rejected_at(view.names, m.start()):
        # "rather than conservation of energy": a method turned down is not used; a later
        # mention, or its formula or relation written out (below), still counts.
        m = next(
            (n for n in _bounded_all(_METHOD_NAME_RES[method.name], view.names, m.end())
             if not rejected_at(view.names, n.start())),
            None,
        )  # fmt: skip
    if m:
        return f"{method.name} named ({m.group().strip()!r})"
    regex = _formula_regex(method.formulas)
    if regex is not None:
        f = _formula_search(regex, view.lower)
        if f:
            return f"{method.name} formula {clip(f, 30)!r}"
    return _relation_evidence(method, view)


def _relation_evidence(method: Method, view: _ResponseView) -> str | None:
    """The method applied through a defining relation (``method_relations.json``): an
    equation whose side left of "=" ends with one side of a relation and whose side right
    of it begins with the other."""
    relations = RELATIONS.get(method.name)
    if not relations or "=" not in view.formula:
        return None
    for left, right in view.equations():
        for rel in relations:
            for a, b in ((0, 1), (1, 0)):
                end = rel.ends[a].search(left)
                start = rel.starts[b].match(right) if end else None
                if end and start:
                    shown = f"{end.group().strip()} = {start.group().strip()}"
                    return f"{method.name} applied through {clip(shown, 40)!r} ({rel.reads})"
    return None


def _literal_evidence(alt: str, view: _ResponseView) -> str | None:
    if _FORMULA_CHARS_RE.search(alt):
        regex = _formula_regex((alt,))
        if regex is not None:
            f = _formula_search(regex, view.lower)
            if f:
                return f"formula {clip(f, 30)!r}"
    words = _content_words(alt)
    if not words:
        return None
    need = len(words) if len(words) < 4 else len(words) - 1
    got = view.best_sentence(words)
    if got >= need:
        return f"{got}/{len(words)} key words of {clip(alt, 30)!r} in one sentence"
    return None


def _item_evidence(item: _Item, view: _ResponseView) -> str | None:
    for method in item.methods:
        found = _method_evidence(method, view)
        if found:
            return found
    for alt in item.alternatives:
        found = _literal_evidence(alt, view)
        if found:
            return found
    return None


def _span_evidence(item: _Item, span: str) -> str | None:
    """The lenient re-check of an extracted span (module docstring)."""
    view = _ResponseView(span)
    strict = _item_evidence(item, view)
    if strict:
        return strict
    symbols = _symbols(view.formula) if "=" in view.formula else set()
    formulas = [f for m in item.methods for f in m.formulas] + item.formulas()
    for formula in formulas:
        need = _symbols(_formula_text(formula))
        if need and need <= symbols:
            return f"rearranged formula {clip(formula, 30)!r} ({len(need)} symbols)"
    for alt in item.alternatives:
        words = _content_words(alt)
        if not words:
            continue
        pattern = re.compile("|".join(re.escape(w) for w in words))
        low = view.lower
        got = {
            m.group()
            for m in pattern.finditer(low)
            if not (m.start() and low[m.start() - 1].isalnum())
        }
        if len(got) >= max(1, (len(words) + 1) // 2):
            return f"{len(got)}/{len(words)} key words of {clip(alt, 30)!r}"
    return None


def check_method(inp: CheckInput) -> Verdict:
    params = clean_parameters(inp.parameters)
    try:
        items, source = _method_items(params, inp.question or "")
    except TooManyItems as exc:
        return Verdict.unscored(f"the method requirement lists {exc}: not a readable requirement")
    if not items:
        return Verdict.unscored("required method not found in parameters or question")
    view = _ResponseView(inp.response)
    found: list[str] = []
    missing: list[_Item] = []
    for item in items:
        evidence = _item_evidence(item, view)
        if evidence:
            found.append(evidence)
        else:
            missing.append(item)
    notes: list[str] = []
    if missing and inp.judge is not None and inp.response.strip():
        still: list[_Item] = []
        for item in missing:
            span, note = extract_span(inp, f"{item.text} statement or formula")
            evidence = _span_evidence(item, span) if span else None
            if evidence:
                found.append(f"{evidence} in an extracted span ({note})")
            else:
                still.append(item)
                notes.append(note)
        missing = still
    if missing:
        names = "; ".join(clip(i.text, 40) for i in missing[:5])
        names += f" (+{len(missing) - 5} more)" if len(missing) > 5 else ""
        extra = f" ({notes[0]})" if notes else ""
        return Verdict.failed(
            f"{len(missing)} of {plural(len(items), 'required method')} (from the {source}) "
            f"not found: {names}{extra}"
        )
    return Verdict.passed(f"required method(s) from the {source} found: {'; '.join(found)}")
