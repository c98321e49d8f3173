"""What a ``<discipline>_method_constraint`` requires: the requirement (parameters, else the
question) split into items, each a known method (``method_tables``) or a literal phrase or
formula, with its alternative spellings (``methods.py`` states the rule and checks them).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from sci_tasks.metrics.constraints.method_tables import METHODS, Method
from sci_tasks.metrics.constraints.method_text import (
    METHOD_WORDS,
    STOP_WORDS,
    formula_text,
    name_text,
)
from sci_tasks.metrics.constraints.text import phrases

_METHOD_WORD_RE = re.compile(r"\b(?:" + "|".join(METHOD_WORDS) + r")\b|=", re.I)
FORMULA_CHARS_RE = re.compile(r"[=×·*/^√∝+]|\\(?:frac|times|cdot|sqrt)")
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


@dataclass
class Item:
    text: str
    methods: list[Method]
    alternatives: list[str]  # literal alternatives that name no known method

    def formulas(self) -> list[str]:
        return [a for a in self.alternatives if FORMULA_CHARS_RE.search(a)]


_METHOD_RES: list[tuple[Method, re.Pattern[str]]] = [
    (m, re.compile(rf"(?:{m.names.replace(chr(92) + 'b', '')})")) for m in METHODS
]


def bounded(pattern: re.Pattern[str], text: str, limit: int = 10_000) -> re.Match[str] | None:
    """The first match of ``pattern`` in ``text`` not glued to a letter or digit on either
    side (checked here, so the regex starts with a literal and scans fast)."""
    for k, m in enumerate(pattern.finditer(text)):
        if k >= limit:
            return None
        a, b = m.span()
        if (a == 0 or not text[a - 1].isalnum()) and (b == len(text) or not text[b].isalnum()):
            return m
    return None


def bounded_all(
    pattern: re.Pattern[str], text: str, pos: int, limit: int = 20
) -> list[re.Match[str]]:
    """The matches of ``pattern`` from ``pos`` on that ``bounded`` would accept (at most
    ``limit``)."""
    found = []
    for m in pattern.finditer(text, pos):
        a, b = m.span()
        if (a == 0 or not text[a - 1].isalnum()) and (b == len(text) or not text[b].isalnum()):
            found.append(m)
            if len(found) >= limit:
                break
    return found


METHOD_NAME_RES = {m.name: pattern for m, pattern in _METHOD_RES}


@functools.lru_cache(maxsize=4096)
def _methods_named(text: str) -> tuple[Method, ...]:
    """The known methods ``text`` names (cached: samples repeat the same requirements)."""
    norm = name_text(formula_text(text))
    return tuple(m for m, pattern in _METHOD_RES if bounded(pattern, norm))


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


def _items_from(text: str) -> list[Item]:
    pieces = list(dict.fromkeys(_split_top(text)))  # a repeated requirement is one requirement
    if len(pieces) > MAX_METHOD_ITEMS:
        raise TooManyItems(f"{len(pieces)} distinct items (more than {MAX_METHOD_ITEMS})")
    kept = [p for p in pieces if not _is_setting(p)] or pieces
    items: list[Item] = []
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
            items.append(Item(formula, known, [] if known else [formula]))
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
        items.append(Item(_formula_part(piece), methods, literal))
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
        and not FORMULA_CHARS_RE.search(piece)
    )


def method_items(params: str, question: str) -> tuple[list[Item], str]:
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
        return [Item(m.name, [m], []) for m in unique], "question"
    items = []
    for phrase in phrases:
        items.extend(_items_from(phrase))
    return items, "question"
