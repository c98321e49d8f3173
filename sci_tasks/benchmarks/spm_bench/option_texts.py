"""SPM-Bench answers that name options by their text (``parse.py`` rule 7): a statement read
piece by piece, a list of option texts with marks, a list introduced as the selection, a
sentence naming the chosen options' texts.
"""

from __future__ import annotations

import re

# a bullet item starting with a label: "- (A) ...", "* **B:** ...", "1. C - ..."
BULLET = re.compile(r"[^\S\n]*(?:[-*•+]|\d{1,2}[.)])[^\S\n]+")
DECORATION = re.compile(r"[*_`\"'“”‘’\[\]{}()]")
# a sentence that introduces the chosen options ("the following statements are supported:")
_INTRODUCES = re.compile(
    r"\b(?:supported|correct|true|consistent|accurate|valid|select\w*|choos\w*|chosen|pick\w*)"
    r"\b[^\n]{0,40}:\s*$",
    re.IGNORECASE,
)


_NEGATIVE_INTRO = re.compile(
    r"\b(?:not|no|none|unsupported|incorrect|false|wrong|rejected|excluded|eliminated)\b", re.I
)


def introduced_option_list(text: str, named: dict[str, str]) -> tuple[str, ...] | None:
    """A bullet list right after a line introducing the selection ("... are supported:"),
    each item restating a different option's text: those options."""
    lines = text.splitlines()
    for k, line in enumerate(lines):
        if not _INTRODUCES.search(line) or _NEGATIVE_INTRO.search(line):
            continue
        items: list[str] = []
        for nxt in lines[k + 1 :]:
            if not nxt.strip():
                continue  # blank lines may part the items of a loose list
            if not BULLET.match(nxt):
                break
            items.append(nxt)
        found = [option_of(item, named) for item in items]
        if found and None not in found and len(set(found)) == len(found):
            return tuple(sorted(f for f in found if f))
    return None


# "The statements supported by the image are therefore "<text>" and "<text>"." / "So the
# correct statements are: <text>, and <text>.": a selection sentence naming option texts
_SELECTION_SENTENCE = re.compile(
    r"\b(?:answers?|options?|choices?|statements?|conclusions?|claims?|picks?|selections?)\b"
    r"(?P<between>[^.\n:]{0,60}?)"
    r"\b(?:is|are)(?:\s+(?:therefore|thus|hence|then|so))?[ \t]*:?[ \t]*"
    r"(?P<rest>[^\n]+?)(?=\.[ \t]+[A-Z]|\.?[ \t]*$)",
    re.IGNORECASE | re.MULTILINE,
)


def selection_by_text(text: str, named: dict[str, str]) -> tuple[str, ...] | None:
    """The last sentence saying which options are chosen (not *incorrect*, *not* ...) whose
    rest restates option texts, piece by piece (``options_by_text``)."""
    for m in reversed(list(_SELECTION_SENTENCE.finditer(text))):
        before = re.split(r"\n|[.!?][ \t]", text[max(0, m.start() - 30) : m.start()])[-1]
        said = before + m["between"]  # this sentence's words only
        if _NEGATIVE_INTRO.search(said):
            continue
        labels = options_by_text(DECORATION.sub(" ", m["rest"]), named)
        if labels:
            return labels
    return None


# --- rule 7: options named by their text ----------------------------------------------------

_WORD = re.compile(r"[a-z]+|\d+(?:\.\d+)?")
_STOP = frozenset(
    "the a an is are was were be of or and in on at to by with that this these those it its "
    "as from for about into".split()
)
_PIECES = re.compile(r"\s*(?:[,;]|\band\b|\bplus\b|&)\s*", re.IGNORECASE)
# the marks a reply sets beside an option's line or in a table's verdict cell
POSITIVE_MARKS = "✓✔✅☑"
NEGATIVE_MARKS = "✗✘❌✕❎"
_MARK_CHAR = re.compile(f"[{POSITIVE_MARKS}{NEGATIVE_MARKS}]")


def _words(text: str) -> set[str]:
    """Content words, cut to 7 letters ("reconstruction" and "reconstructed" are one)."""
    return {w[:7] for w in _WORD.findall(text.lower()) if w not in _STOP}


# "image 1", "figure 2": a number that names a panel, not a value a restatement must keep
_PANEL_NUMBER = re.compile(r"\b(?:images?|figures?|figs?|panels?)\.?\s+(\d+)\b", re.IGNORECASE)


def option_of(piece: str, named: dict[str, str]) -> str | None:
    """The option whose text ``piece`` restates: most of the option's words (at least half,
    its numbers included, panel numbers aside) and clearly more than any other option's;
    else None."""
    words = _words(piece)
    scores = []
    for label, text in named.items():
        own = _words(text)
        panels = set(_PANEL_NUMBER.findall(text))
        numbers = {w for w in own if w[0].isdigit() and w not in panels}
        if not own or not numbers <= words:
            scores.append((0.0, label))
            continue
        scores.append((len(own & words) / len(own), label))
    scores.sort(reverse=True)
    best, label = scores[0]
    runner_up = scores[1][0] if len(scores) > 1 else 0.0
    return label if best >= 0.5 and best - runner_up >= 0.2 - 1e-9 else None  # 1.0 - 0.8


def options_by_text(statement: str, named: dict[str, str]) -> tuple[str, ...] | None:
    """An answer statement naming options by their text ("Answer: square unit cell (four-fold
    symmetry) and a lattice period of about 0.40 nm"): every piece (split at "," ";" "and")
    one distinct option, else None."""
    pieces = [p for p in _PIECES.split(statement) if p.strip()]
    found = [option_of(p, named) for p in pieces]
    if found and None not in found and len(set(found)) == len(found):
        return tuple(sorted(f for f in found if f))
    # one option whose text holds a comma or an "and": it must also cover the statement
    one = option_of(statement, named)
    said = _words(statement)
    if one is None or len(said & _words(named[one])) < 0.6 * len(said):
        return None
    return (one,)


def marked_option_lines(text: str, named: dict[str, str]) -> tuple[str, ...] | None:
    """A list with one line per option, each restating the option's text and carrying a mark
    (✔ / ✘ ...): the options marked positive. Every option once, every line marked."""
    lines = [ln for ln in text.splitlines() if BULLET.match(ln)]
    if len(lines) != len(named):
        return None
    chosen, seen = [], set()
    for line in lines:
        mark = _MARK_CHAR.search(line)
        if mark is None:
            return None
        label = option_of(line[: mark.start()], named)
        if label is None or label in seen:
            return None
        seen.add(label)
        if mark.group() in POSITIVE_MARKS:
            chosen.append(label)
    return tuple(sorted(chosen)) or None
