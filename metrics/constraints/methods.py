"""The ``<discipline>_method_constraint`` rule (five names, one implementation, extract kind;
each discipline module registers it; the requirement's items are read by
``method_requirement.py``). Decision rule:

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
from sci_tasks.metrics.constraints.method_requirement import (
    FORMULA_CHARS_RE,
    METHOD_NAME_RES,
    Item,
    TooManyItems,
    bounded,
    bounded_all,
    method_items,
)
from sci_tasks.metrics.constraints.method_tables import RELATIONS, Method
from sci_tasks.metrics.constraints.method_text import (
    content_words,
    formula_regex,
    formula_search,
    formula_symbols,
    formula_text,
    name_text,
)
from sci_tasks.metrics.constraints.relations import relation_applied
from sci_tasks.metrics.constraints.text import clean_parameters, clip, plural, rejected_at
from sci_tasks.metrics.verdict import Verdict

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
    m = bounded(METHOD_NAME_RES[method.name], view.names)
    turned_down = bool(m and rejected_at(view.names, m.start()))
    if m and turned_down:
        # "rather than conservation of energy": a method turned down is not used; a later
        # mention, or its formula or relation written out (below), still counts.
        m = next(
            (n for n in bounded_all(METHOD_NAME_RES[method.name], view.names, m.end())
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
    if FORMULA_CHARS_RE.search(alt):
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
    if _PROPER_NAME_RE.search(alt):  # "Kolbe-Schmitt reaction": the names say which one
        words = [w for w in words if w not in _GENERIC_STEMS] or words
    need = len(words) if len(words) < 4 else len(words) - 1
    got = view.best_sentence(words)
    if got >= need:
        return f"{got}/{len(words)} key words of {clip(alt, 30)!r} in one sentence"
    return None


# a capitalised name inside the requirement ("the Kolbe-Schmitt reaction", "Beer-Lambert
# law"), and the generic nouns a reply need not repeat beside such a name
_PROPER_NAME_RE = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][a-z]{2,}")
_GENERIC_STEMS = frozenset(
    content_words("reaction reactions synthesis method law equation rule principle effect test")
)


def _item_evidence(item: Item, view: _ResponseView) -> str | None:
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


def _span_evidence(item: Item, span: str) -> str | None:
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
        items, source = method_items(params, inp.question or "")
    except TooManyItems as exc:
        return Verdict.unscored(f"the method requirement lists {exc}: not a readable requirement")
    if not items:
        return Verdict.unscored("required method not found in parameters or question")
    view = _ResponseView(inp.response)
    found: list[str] = []
    missing: list[Item] = []
    for item in items:
        evidence = _item_evidence(item, view)
        if evidence:
            found.append(evidence)
        else:
            missing.append(item)
    notes: list[str] = []
    if missing and inp.judge is not None and inp.response.strip():
        still: list[Item] = []
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
