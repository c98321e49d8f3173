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
  - names a known method of the item (``method_tables.METHODS``, read from the data file
    ``methods.json`` beside this module: each method's names and signature formulas, e.g.
    Bragg's law <-> "nλ = 2d sinθ", ideal gas law <-> "PV = nRT") by a name or a formula:
    a method applied by its formula counts as the method used;
  - or applies the method through a defining relation (``method_tables.RELATIONS``, read
    from the data file ``method_relations.json`` beside this module, whose "about" defines
    the spelling):
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
import re
from bisect import bisect_left
from dataclasses import dataclass, field

from sci_tasks.metrics.constraints.base import (
    CheckInput,
)
from sci_tasks.metrics.constraints.extraction import extract_span
from sci_tasks.metrics.constraints.method_tables import METHODS, RELATIONS, Method
from sci_tasks.metrics.constraints.method_text import (
    METHOD_WORDS,
    STOP_WORDS,
    content_words,
    formula_regex,
    formula_search,
    formula_symbols,
    formula_text,
    name_text,
)
from sci_tasks.metrics.constraints.relations import relation_applied
from sci_tasks.metrics.constraints.text import clean_parameters, clip, phrases, plural, rejected_at
from sci_tasks.metrics.verdict import Verdict

_METHOD_WORD_RE = re.compile(r"\b(?:" + "|".join(METHOD_WORDS) + r")\b|=", re.I)
_FORMULA_CHARS_RE = re.compile(r"[=×·*/^√∝+]|\\(?:frac|times|cdot|sqrt)")
# "n = 1", "K = 0.9", "T = 300 K": a symbol set to a value (a unit may follow), not a formula
_SETTING_RE = re.compile(
    r"[A-Za-zα-ωΑ-Ω][\w′']{0,3}[ \t]*=[ \t]*[-+−]?[0-9.]+"
    r"(?:[ \t]*[A-Za-zµμ°%Ω]{1,4}(?:[/·][A-Za-zµμ]{1,3})?)?[ \t]*"
)
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
    norm = name_text(formula_text(text))
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
        if name_text(tokens[k]).strip() not in STOP_WORDS:
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
    items: list[_Item] = []
    for piece in kept:
        if items and _is_qualifier(piece):
            continue  # "Doppler effect, moving source": a condition of the method before it
        if (
            items
            and "=" in piece
            and "=" not in items[-1].text
            and not _names_a_method(piece.split("=")[0])
        ):
            # "linear-elastic fracture mechanics, K_I = Yσ√(πa)": the formula of the method
            # before it, which counts as that method applied
            formula = piece[piece.index(":") + 1 :] if ":" in piece.split("=")[0] else piece
            items[-1].alternatives.append(_formula_part(formula.strip()))
            continue
        if "=" in piece:  # brackets group terms of a formula: no alternatives in them
            formula = _formula_part(piece)
            known = list(_methods_named(piece.split("=")[0]))
            items.append(_Item(formula, known, [] if known else [formula]))
            continue
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


# Nouns of a process or a technique ("calibration", "hydrolysis", "chromatography"): a
# short piece holding one is a method of its own, not a condition of the one before it.
_PROCESS_NOUN_RE = re.compile(r"\w(?:tion|sion|sis|ment|graphy|metry|scopy)s?\b", re.I)


def _names_a_method(text: str) -> bool:
    return bool(_methods_named(text)) or bool(_METHOD_WORD_RE.search(text))


def _is_qualifier(piece: str) -> bool:
    """A short piece naming no method, no formula and no process ("moving source",
    "stationary observer", "critical value 2300", "k"): a condition or a quantity of the
    method before it in the requirement, not a method to be found on its own."""
    return (
        len(piece.split()) <= 3
        and not _names_a_method(piece)
        and not _PROCESS_NOUN_RE.search(piece)
        and not _FORMULA_CHARS_RE.search(piece)
    )


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
    formula: str = ""
    lower: str = ""
    _ends: list[int] | None = field(default=None, repr=False)
    _equations: list[tuple[str, str]] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.formula = formula_text(self.raw)
        self.lower = self.formula.lower()

    @functools.cached_property
    def names(self) -> str:
        """The response as names (``name_text``): built only when a known method's name is
        looked for (a literal requirement reads ``formula`` and ``lower``)."""
        return name_text(self.formula)

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


# A newline, or sentence-ending punctuation before whitespace; it begins with one character
# class (the regex engine skips ahead to those characters).
_SENTENCE_END_RE = re.compile(r"[.!?。;；\n](?:(?<=\n)|(?=\s))")
MAX_EQUATIONS = 5_000  # "=" signs examined per response (a bound on degenerate text)


def _method_evidence(method: Method, view: _ResponseView) -> str | None:
    m = _bounded(_METHOD_NAME_RES[method.name], view.names)
    turned_down = bool(m and rejected_at(view.names, m.start()))
    if m and turned_down:
        # "rather than conservation of energy": a method turned down is not used; a later
        # mention, or its formula or relation written out (below), still counts.
        m = next(
            (n for n in _bounded_all(_METHOD_NAME_RES[method.name], view.names, m.end())
             if not rejected_at(view.names, n.start())),
            None,
        )  # fmt: skip
    if m:
        return f"{method.name} named ({m.group().strip()!r})"
    regex = formula_regex(method.formulas)
    if regex is not None:
        f = formula_search(regex, view.lower)
        if f:
            return f"{method.name} formula {clip(f, 30)!r}"
    if turned_down:  # a relation read by structure does not outweigh the solution's words
        return _relation_evidence(method, view)
    return _relation_evidence(method, view) or _structure_evidence(method.formulas, view)


def _structure_evidence(formulas: tuple[str, ...], view: _ResponseView) -> str | None:
    """A formula applied as a relation of the same structure (``relations.py``): renamed
    subscripts, rearranged, numbers substituted."""
    if not formulas or ("=" not in view.raw and "≈" not in view.raw and "approx" not in view.raw):
        return None
    found = relation_applied(tuple(formulas), view.raw)
    if found:
        return f"relation {clip(formulas[0], 30)!r} applied as {clip(found, 40)!r}"
    return None


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


def _relation_evidence_of(text: str, view: _ResponseView) -> str | None:
    """ "exponential discharge law V(t) = V0 e^{-t/RC}", "noon solar elevation formula:
    elevation = 90° − latitude + declination": the relation as the requirement writes it,
    without the method's name before it."""
    relation = _RELATION_RE.search(text)
    if relation is None or not relation.start():
        return None
    if len(content_words(relation.group())) >= 2:  # a relation in words: "elevation = ..."
        return _literal_evidence(relation.group(), view)
    return _formula_evidence(relation.group(), view)  # symbols: only as a formula


def _formula_evidence(alt: str, view: _ResponseView) -> str | None:
    if _FORMULA_CHARS_RE.search(alt):
        regex = formula_regex((alt,))
        if regex is not None:
            f = formula_search(regex, view.lower)
            if f:
                return f"formula {clip(f, 30)!r}"
        if "=" in alt:
            return _structure_evidence((alt,), view)
    return None


def _literal_evidence(alt: str, view: _ResponseView) -> str | None:
    found = _formula_evidence(alt, view)
    if found:
        return found
    words = content_words(alt)
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
        found = _literal_evidence(alt, view) or _relation_evidence_of(alt, view)
        if found:
            return found
    if item.methods and "=" in item.text:  # "photoelectric equation E_B = hν − E_K − φ"
        return _structure_evidence((item.text,), view) or _relation_evidence_of(item.text, view)
    return None


_RELATION_RE = re.compile(r"[^\s:]+[ \t]*=[^=\n]+$")  # the last token before "=", and on


def _span_evidence(item: _Item, span: str) -> str | None:
    """The lenient re-check of an extracted span (module docstring)."""
    view = _ResponseView(span)
    strict = _item_evidence(item, view)
    if strict:
        return strict
    symbols = formula_symbols(view.formula) if "=" in view.formula else set()
    formulas = [f for m in item.methods for f in m.formulas] + item.formulas()
    for formula in formulas:
        need = formula_symbols(formula_text(formula))
        if need and need <= symbols:
            return f"rearranged formula {clip(formula, 30)!r} ({len(need)} symbols)"
    for alt in item.alternatives:
        words = content_words(alt)
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
