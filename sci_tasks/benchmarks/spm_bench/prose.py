"""Prose phrases and Markdown tables that select SPM-Bench options (``parse.py`` rule 3)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from sci_tasks.benchmarks.spm_bench.labels import label_list, strip_decoration
from sci_tasks.benchmarks.spm_bench.option_texts import NEGATIVE_MARKS, POSITIVE_MARKS

MARKDOWN = re.compile(r"[*_`\"'“”‘’]")


_EMPHASIS = re.compile(r"\*+|__+|`+")  # blanked (same length) before prose is read


# A label standing alone (not part of a word), optionally in parentheses, in prose.
_P_LABEL = r"\(?[A-Z]\)?(?![\w'’])"  # not the pronoun of "I'm", "I’d"


_P_SEP = r"(?:\s*(?:,\s*and|,|;|/|&|and|through|thru|to)\s*|[-–])"  # "to", "-": ranges


_P_LIST = rf"(?<![\w(]){_P_LABEL}(?:{_P_SEP}{_P_LABEL})*"


BECAUSE = r"\b(?:because|since|as)\b"  # an explanation may follow a label list


# Prose (rule 3): a maximal run of labels (found once, so reading stays linear), read when
# the words before or after it make it a selection.
_PROSE_LIST = re.compile(_P_LIST)


# "the answer is A", "the correct options are A and C", "my choices would be B, D."
_BEFORE_ANSWER = re.compile(
    r"\b(?:answers?|options?|choices?|selections?|statements?)\s+(?:is|are|would\s+be|will\s+be)"
    r"\s*:?\s*$",
    re.IGNORECASE,
)


# "I choose A and C", "selecting options B, D.", "So I'm going with A and B"
_BEFORE_CHOICE = re.compile(
    r"\b(?:choose|select|pick|choosing|selecting|picking|go(?:ing)?\s+with|went\s+with|"
    r"settl(?:e|ing)\s+on|opt(?:ing)?\s+for)\s+(?:options?\s+|choices?\s+)?$",
    re.IGNORECASE,
)


_AFTER_END = re.compile(rf"\s*(?:$|[.,;:!?)\n]|{BECAUSE})")


# "I think A and C are correct", "B is the right answer", "A and C are supported"
# (not after a negation)
_AFTER_PREDICATE = re.compile(
    r"\s+(?:(?:is|are)\s+(?:both\s+|all\s+)?(?:the\s+)?(?:ones?\s+(?:that\s+are\s+)?)?"
    r"(?:correct|right|true|supported|consistent|accurate|valid)|(?:all\s+)?holds?(?:\s+true)?)\b",
    re.IGNORECASE,
)


_NEGATION = re.compile(r"\b(?:not|nor|neither|no)\s*$", re.IGNORECASE)


def prose_hits(text: str) -> list[tuple[int, str, Any]]:
    """(position, "prose", label text) for each prose phrase naming labels (rule 3)."""
    text = _EMPHASIS.sub(lambda m: " " * len(m[0]), text)  # positions kept
    hits: list[tuple[int, str, Any]] = []
    for m in _PROSE_LIST.finditer(text):
        before = text[max(0, m.start() - 40) : m.start()]
        if _AFTER_END.match(text, m.end()) and (
            _BEFORE_ANSWER.search(before) or _BEFORE_CHOICE.search(before)
        ):
            hits.append((m.start(), "prose", m[0]))
        elif _AFTER_PREDICATE.match(text, m.end()) and not _NEGATION.search(before):
            hits.append((m.start(), "assessment", m[0]))  # not "neither A nor C is correct"
    return hits


def prose_or_table(text: str, valid: Sequence[str]) -> tuple[str, tuple[str, ...]] | None:
    """The last prose phrase or option table that reads (rule 3), as (how, labels)."""
    hits = prose_hits(text) + list(_tables(text))
    how, labels = first_readable(hits, valid)
    if labels and len(labels) == 1:
        labels = _assessments(text, hits, valid) or labels
    return (how, labels) if labels else None


# words that take back what was said before ("A is correct. Actually, B is correct.")
_RECONSIDER = re.compile(
    r"\b(?:actually|wait|on\s+(?:second\s+thought|reflection)|reconsider\w*|instead|rather|"
    r"correction|revis\w*|change\s+my)\b",
    re.IGNORECASE,
)


def _assessments(
    text: str, hits: list[tuple[int, str, Any]], valid: Sequence[str]
) -> tuple[str, ...] | None:
    """The options judged one by one at the end of the prose ("A is correct. ... C is
    correct."): the labels of the trailing run of such phrases, each naming one label not
    named before, when no reconsidering word ("actually", "wait", "instead") lies between
    them; None when there is no such run of two or more."""
    run: list[tuple[int, str]] = []
    for start, how, found in sorted(hits, key=lambda h: h[0], reverse=True):
        if how != "assessment":
            break
        labels = label_list(strip_decoration(found), valid, lenient=False)
        if labels is None or len(labels) != 1 or labels[0] in {label for _, label in run}:
            break
        run.append((start, labels[0]))
    if len(run) < 2 or _RECONSIDER.search(text, run[-1][0], run[0][0]):
        return None
    return tuple(sorted(label for _, label in run))


def first_readable(
    hits: list[tuple[int, str, Any]], valid: Sequence[str]
) -> tuple[str, tuple[str, ...] | None]:
    """The last hit (by position) that reads as labels, as (how, labels); may raise
    ``OutOfSet``."""
    for _, how, found in sorted(hits, key=lambda h: h[0], reverse=True):
        if how in ("prose", "assessment"):
            labels = label_list(strip_decoration(found), valid, lenient=False)
        else:
            labels = _table_labels(found, valid)
        if labels:
            return ("prose" if how == "assessment" else how), labels
    return "", None


# Markdown tables (rule 3): a row, and a separator row (not a row of cells)
_TABLE_ROW = re.compile(r"^[^\S\n]*\|[^\n]*$", re.MULTILINE)
_TABLE_RULE = re.compile(r"^[\s|:\-–]+$")


def _tables(text: str) -> Iterator[tuple[int, str, list[list[str]]]]:
    """(position, "table", rows of cells) for each Markdown table."""
    rows: list[list[str]] = []
    start = end = -2
    for m in _TABLE_ROW.finditer(text):
        if m.start() != end + 1:
            if rows:
                yield start, "table", rows
            rows, start = [], m.start()
        end = m.end()
        line = m[0].strip()
        if not _TABLE_RULE.match(line):
            rows.append([c.strip() for c in line.strip("|").split("|")])
    if rows:
        yield start, "table", rows


_CELL_LABEL = re.compile(r"^(?:(?i:option|statement|choice)\s+)?\(?([A-Za-z])\)?[.:]?$")


def _table_labels(rows: list[list[str]], valid: Sequence[str]) -> tuple[str, ...] | None:
    """The rows marked positive of an option table (rule 3), or None."""

    def label_of(cells: list[str]) -> str | None:
        label = _CELL_LABEL.match(MARKDOWN.sub("", cells[0]).strip()) if cells else None
        return label[1].upper() if label else None

    if rows and label_of(rows[0]) is None:
        rows = rows[1:]  # a header ("| Option | Verdict |")
    labelled = [(label_of(cells), cells) for cells in rows]
    if not labelled or any(label is None for label, _ in labelled):
        return None  # a data row without a label: not a table of the options
    labels = [str(label) for label, _ in labelled]
    if len(set(labels)) != len(labels):
        return None
    readings = set()
    for column in range(1, min(len(cells) for _, cells in labelled)):
        marks = [cell_mark(cells[column]) for _, cells in labelled]
        if all(mark is not None for mark in marks):
            readings.add(tuple(label for label, mark in zip(labels, marks, strict=True) if mark))
    if len(readings) != 1:
        return None  # no mark column, or mark columns that disagree
    (chosen,) = readings
    if not chosen:
        return None
    return label_list(", ".join(chosen), valid, lenient=False)


def _mark_re(marks: str, words: str) -> re.Pattern[str]:
    """A verdict cell that starts with one of ``marks`` or with one of ``words`` (a word)."""
    return re.compile(rf"^(?:{'|'.join(marks)}|(?:{'|'.join(words.split())})\b)", re.IGNORECASE)


_MARK_YES = _mark_re(
    POSITIVE_MARKS, "yes true correct supported consistent selected accurate valid"
)
_MARK_NO = _mark_re(
    NEGATIVE_MARKS + "×",
    "no not false incorrect unsupported inconsistent rejected wrong inaccurate invalid",
)


def cell_mark(cell: str) -> bool | None:
    cell = MARKDOWN.sub("", cell).strip()
    if _MARK_NO.match(cell):
        return False
    if _MARK_YES.match(cell):
        return True
    return None
