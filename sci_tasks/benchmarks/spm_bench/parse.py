"""Conservative reader of an SPM-Bench reply: the chosen option labels and the stated confidence.

An answer that cannot be read is an empty selection marked unparsed; it is never guessed.
The rules, in the order they are applied (``docs/decisions.md``, SPM-Bench "Answer parsing"):

1. Reasoning is removed before this parser sees the reply, by the filter every task applies
   (``metrics/reply.NormaliseReply``, the same rule for all benchmarks): ``<think>...</think>``
   blocks, text before an unopened ``</think>``, and everything after an unclosed ``<think>``
   (a reply cut off while thinking: an answer written only inside reasoning is no answer).
2. **Explicit answer statements**: every ``Answer:`` line (also ``Final answer:``,
   ``**Answer:**``, ``Answers:``, ``Final:``, and the labelled lists ``Correct options:``,
   ``Correct answers:``, ``Selected:``, ``Selected options:``, ``Selection:``, ``Chosen options:``,
   ``Supported statements:``; not after *incorrect*, *wrong*, *rejected*, *not* ...), every
   answer tag (``<answer>A, C</answer>``, the short ``<a>A, C</a>``; an unclosed one runs to
   the next tag or the end), every ``\\boxed{...}`` (``\\boxed{A,\\,B}``,
   ``\\boxed{\\text{A, B}}``, ``\\boxed{AB}``; TeX commands, spacing and braces ignored; a
   box holding a digit is a quantity, not a statement) and every JSON object with an answer
   key (``answer``, ``final_answer``, ``selected``, ``selection``, ``selected_options``,
   ``choices``, ``correct_options``, ``correct_answers``, ``labels``, ...; the first of these
   in this order when an object has several; its value a list of labels or a text). A
   labelled line with nothing after the colon takes the next non-empty line, or, when that
   starts a bullet list whose items all begin with a label (``- (A) ...``, ``* **B:** ...``),
   the labels of those items; when every item carries a mark after its label (``- A: True``,
   ``- B: ✗ ...``, marks as in the tables below) only the positive ones, and when some items
   do and some do not, the list is not read (the next line is the statement). The
   **last** statement in the reply wins, and if it cannot be read the reply is unparsed: an
   earlier statement is never used instead. A heading ``Final Answer`` / ``### Answer`` (no
   colon) is a statement only when the line after it reads as an answer (e.g. "The correct
   options are **A, B, and C**."); otherwise it is ignored.
3. Without an explicit statement: a reply that is nothing but a label list (``A, C``,
   ``AC``, ``a and c``), else the **last** (by position) of these:

   * a prose phrase (Markdown emphasis ignored) of one of these shapes: ``the answer is A``
     / ``the correct options are A and C``, ``A and C are correct`` / ``... are (the ones)
     supported`` / ``A, B and C hold`` (also *right*, *true*, *consistent*, *accurate*,
     *valid*; not after *not*, *nor*, *neither*, *no*), ``I choose A and C``; when the
     prose ends with options judged one by one (``**A is correct** ... **C is correct**``,
     each naming one option not named before, no *actually* / *wait* / *instead* between
     them), all the options so judged;
   * a Markdown table with one row per option: the first cell a label (``A``, ``(A)``,
     ``Option A``) and a column in which every row reads as a mark, positive (✓ ✔ ✅, *yes*,
     *true*, *correct*, *supported*, ...) or negative (✗ ✘ ❌, *no*, *not ...*, *false*,
     *incorrect*, *unsupported*, ...); the selection is the rows marked positive. Mark
     columns that disagree, a row without a label or mark, or no positive row: no reading.

   In prose only capital letters standing alone count as labels, so the article "a" and the
   "A" in "ATOM" never do. An option named only by its text is read by rule 7.
4. A label list is labels separated by commas, semicolons, slashes, ``&``, ``+``, ``and``
   or spaces; brackets, quotes and markdown marks around it are ignored; a range ``A through
   C`` / ``A to C`` / ``A-C`` / ``A–C`` (capitals, increasing; a dash without spaces, so
   ``A - C`` is no range) is every label in it; *only* before or after the list is ignored
   (``A only``). Inside an answer statement labels may be lowercase and may be run together
   (``AC``, uppercase only); an aside in brackets after a label is ignored (``A (cubic
   habit), C (edge ≈ 1 µm)``); ``all of the options except D and E`` is the other options
   (``all of the options`` every one). After ``Answer:`` a list may be followed by an
   explanation starting with ``.``, ``:``, ``(``, a dash, *because*, *since* or *as*.
5. A label that is not one of the question's options (``E`` when the options are A-D)
   makes the whole answer unparsed: dropping it would erase a wrong selection's penalty.
6. Confidence: ``confidence.py`` (its docstring).
7. Options named by their text (the task passes the option texts): an answer statement
   whose labels cannot be read is read piece by piece (split at "," ";" "and"), each piece
   the option whose content words (cut to 7 letters) it restates: at least half of them,
   every number of the option among them, and 0.2 more of them than of any other option;
   a piece naming no option, or two pieces one option, and the statement is unread. Without
   any statement, a bullet list with one line per option, each line an option's text and a
   mark (✔ / ✘ ...), selects the options marked positive (every line marked and matched);
   a bullet list right after a line introducing the selection ("these statements are
   supported:", not one saying *not* / *incorrect* ...) selects the options its items
   restate (every item a different option); a sentence saying which options are chosen
   (``So the correct statements are: <text>, and <text>.``, ``The statements supported by
   the image are therefore "<text>" and "<text>".``; not one saying *not* / *incorrect*
   ...) whose rest restates option texts piece by piece as above.
8. Last, a reply of several lines whose last line is nothing but a label list (``**A, B**
   (confidence 0.9)``: Markdown marks and a bracketed aside ignored, capitals only).

The rules live by job: prose and tables (rule 3) in ``prose.py``, label lists (rules 4 and
5) in ``labels.py``, confidence (rule 6) in ``confidence.py``, option texts (rule 7) in
``option_texts.py``; this module reads the statements and applies the rules in order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sci_tasks.benchmarks.spm_bench.confidence import parse_confidence
from sci_tasks.benchmarks.spm_bench.labels import OutOfSet, label_list, strip_decoration
from sci_tasks.benchmarks.spm_bench.option_texts import (
    BULLET,
    introduced_option_list,
    marked_option_lines,
    options_by_text,
    selection_by_text,
)
from sci_tasks.benchmarks.spm_bench.prose import (
    BECAUSE,
    MARKDOWN,
    cell_mark,
    first_readable,
    prose_hits,
    prose_or_table,
)
from sci_tasks.metrics.reply import json_objects, key_of

# an answer tag (<answer> or the short <a>) up to its closing tag, the next tag or the end
_ANSWER_TAG = re.compile(
    r"<\s*(?:answer|a)\s*>(?P<rest>.*?)(?=<\s*/?\s*[a-z]+\s*>|$)", re.IGNORECASE | re.DOTALL
)
# an answer statement's label: "Answer:", "Final answer:", "Correct options:", "Selected:"
_ANSWER_LINE = re.compile(
    r"(?<![\w-])(?:answers?|final|selections?|selected(?:[ \t]+(?:options?|labels?|statements?|"
    r"answers?|choices?))?|(?:correct|chosen|supported|true|right)[ \t]+(?:options?|answers?|"
    r"statements?|choices?|labels?))[ \t]*(?:\*+[ \t]*)?[:：][ \t]*(?P<rest>[^\n]*)",
    re.IGNORECASE,
)
# a word before the label that turns it into a list of what was NOT chosen
_NOT_CHOSEN = re.compile(
    r"\b(?:incorrect|wrong|rejected|excluded|eliminated|unsupported|false|not|non|no)[\s*_#>-]*$",
    re.IGNORECASE,
)
# a heading line that is only "Final Answer" / "Answer" (Markdown marks allowed, no colon)
_ANSWER_HEADING = re.compile(
    r"^[^\S\n]*(?:#{1,6}[^\S\n]*)?(?:(?:\*\*|__)[^\S\n]*)?(?:final[^\S\n]+)?answers?"
    r"[^\S\n]*(?:(?:\*\*|__)[^\S\n]*)?$",
    re.IGNORECASE | re.MULTILINE,
)
# \boxed{...} with at most one level of braces inside, bounded (linear on a looping reply)
_BOXED = re.compile(r"\\boxed[ \t]*\{(?P<rest>(?:[^{}\n]|\{[^{}\n]{0,80}\}){0,200})\}")
_TEX = re.compile(r"\\(?:text(?:bf|rm|tt)?|math(?:rm|bf|bb|sf|tt)|operatorname|rm|bf|mbox)\b"
                  r"|\\[,;:! ]|\\q?quad\b|[{}$~]")  # fmt: skip
_DIGIT = re.compile(r"\d")
_JSON_ANSWER_KEYS = (
    "answer", "answers", "final_answer", "a", "selected", "selection", "selections",
    "selected_options", "selected_labels", "selected_answers", "choices", "chosen",
    "chosen_options", "correct_options", "correct_answers", "correct_labels",
    "correct_statements", "labels",
)  # fmt: skip


@dataclass(frozen=True)
class ParsedAnswer:
    """What was read from one reply; ``labels`` is empty exactly when ``parsed`` is False."""

    labels: tuple[str, ...]
    parsed: bool
    # "answer line", "answer tag", "boxed", "json", "bare list", "prose", "table"; "" unparsed
    how: str
    note: str  # why unparsed, or what was read
    confidence: float | None
    confidence_note: str  # "stated", "missing", or why the value was rejected


def parse_response(
    response: str | None, options: Sequence[str], texts: Sequence[str] = ()
) -> ParsedAnswer:
    """Read the selected labels and the confidence from ``response``.

    ``response`` is the normalised reply (rule 1); ``options`` are the question's labels
    (``["A", "B", "C", "D"]``); ``texts`` the option texts in the same order, for replies
    that name options by their text (rule 7).
    """
    valid = tuple(o.upper() for o in options)
    named = dict(zip(valid, texts, strict=False)) if len(texts) == len(valid) else {}
    text = response or ""
    confidence, confidence_note = parse_confidence(text)

    def result(labels: tuple[str, ...] | None, how: str, note: str) -> ParsedAnswer:
        if not labels:
            return ParsedAnswer((), False, "", note, confidence, confidence_note)
        return ParsedAnswer(labels, True, how, note, confidence, confidence_note)

    try:
        statements = sorted(_statements(text, valid), key=lambda s: s[0])
    except OutOfSet as exc:  # a heading's answer naming a label outside the options
        return result(None, "answer line", str(exc))
    if statements:
        _, how, payload = statements[-1]
        try:
            labels = _read_statement(how, payload, valid)
        except OutOfSet as exc:
            return result(None, how, str(exc))
        if labels is None and named and isinstance(payload, str):
            labels = options_by_text(payload, named)
            how = f"{how} (option texts)" if labels else how
        if labels is None:
            shown = payload if isinstance(payload, str) else json.dumps(payload)
            return result(None, how, f"last {how} unreadable: {shown[:80]!r}")
        return result(labels, how, f"{how}: {', '.join(labels)}")

    try:
        labels = label_list(strip_decoration(text), valid, lenient=True)
        if labels:
            return result(labels, "bare list", f"whole reply is a label list: {', '.join(labels)}")
        found = prose_or_table(text, valid)
    except OutOfSet as exc:
        return result(None, "", str(exc))
    if found:
        how, labels = found
        return result(labels, how, f"{how}: {', '.join(labels)}")
    if named and (labels := marked_option_lines(text, named)):
        return result(labels, "marked list", f"options marked by their text: {', '.join(labels)}")
    if named and (labels := introduced_option_list(text, named)):
        listed = ", ".join(labels)
        return result(labels, "introduced list", f"options listed by their text: {listed}")
    if named and (labels := selection_by_text(text, named)):
        listed = ", ".join(labels)
        return result(labels, "prose (option texts)", f"options named by their text: {listed}")
    try:
        labels = closing_label_line(text, valid)
    except OutOfSet as exc:
        return result(None, "", str(exc))
    if labels:
        return result(labels, "closing line", f"last line is a label list: {', '.join(labels)}")
    return result(None, "", "no answer found")


# "**A, B** (confidence 0.9)": a reply's last line that is nothing but a label list (Markdown
# marks and a bracketed aside after it ignored)
_TRAILING_ASIDE = re.compile(r"\s*\([^()\n]*\)\s*$")


def closing_label_line(text: str, valid: Sequence[str]) -> tuple[str, ...] | None:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    if len(lines) < 2:
        return None  # a one-line reply is rule 3's bare list
    last = _TRAILING_ASIDE.sub("", lines[-1])
    return label_list(strip_decoration(last), valid, lenient=False)


# --- explicit statements ------------------------------------------------------------------


def _statements(text: str, valid: Sequence[str]) -> Iterator[tuple[int, str, Any]]:
    """(position, kind, payload) for each answer line, answer tag, \\boxed{} and JSON answer
    object, and each answer heading whose next line reads as an answer."""
    for m in _ANSWER_LINE.finditer(text):
        before = max(text.rfind("\n", max(0, m.start() - 40), m.start()) + 1, m.start() - 40)
        if _NOT_CHOSEN.search(text, before, m.start()):
            continue  # "Incorrect options:", "**Not** correct answers:"
        rest = m["rest"].strip()
        if not strip_decoration(rest).strip():
            rest = _following(text, m.end())
        yield m.start(), "answer line", rest
    for m in _ANSWER_HEADING.finditer(text):
        payload = _following(text, m.end())
        if payload and _read_statement("answer line", payload, valid):
            yield m.start(), "answer line", payload
    for m in _ANSWER_TAG.finditer(text):
        yield m.start(), "answer tag", m["rest"].strip()
    for m in _BOXED.finditer(text):
        if not _DIGIT.search(m["rest"]):  # a boxed quantity is no selection
            yield m.start(), "boxed", _TEX.sub(" ", m["rest"]).strip()
    for start, obj in json_objects(text):
        key = key_of(obj, _JSON_ANSWER_KEYS)  # the first of the keys, in their order
        if key is not None:
            yield start, "json", obj[key]


_BULLET_LABEL = re.compile(
    r"(?:\*\*|__)?[^\S\n]*(?:(?i:option|statement|choice)[^\S\n]+)?"
    r"(?:\((?P<paren>[A-Za-z])\)|(?P<bare>[A-Z])(?:\*\*|__)?(?=[^\S\n]*(?:[.):\-–—]|$)))"
)
_ITEM_LEAD = re.compile(r"^[\s.:)*_\-–—]+")  # between an item's label and its text


def _following(text: str, pos: int) -> str:
    """What an answer label with nothing after it refers to: the labels of a bullet list
    that starts on the next non-empty line and whose items all start with a label, else
    that line."""
    first = ""
    items: list[tuple[str, bool | None]] = []  # (label, its mark)
    while pos < len(text):
        end = text.find("\n", pos + 1)
        end = len(text) if end < 0 else end
        line = text[pos:end].strip("\n")
        pos = end
        if not line.strip():
            continue
        if not first:
            first = line.strip()
        bullet = BULLET.match(line)
        if not bullet:
            break
        label = _BULLET_LABEL.match(line, bullet.end())
        if not label:
            return first  # a bullet list, but not one of labels
        mark = cell_mark(_ITEM_LEAD.sub("", line[label.end() :]))
        items.append(((label["paren"] or label["bare"]).upper(), mark))
    marks = {mark for _, mark in items}
    if not items or (None in marks and len(marks) > 1):
        return first  # some items marked, some not: an evaluation, not a selection
    return ", ".join(label for label, mark in items if mark is not False)


# an aside in brackets after a label ("A (cubic habit)"); "(A)" itself is a label
_ASIDE = re.compile(r"\((?!\s*[A-Za-z]\s*\))[^()\n]*\)")
_LEADING = re.compile(
    rf"^(?P<list>[A-Za-z](?:\s*(?:,|;|/|&|\+|\band\b|\s)\s*[A-Za-z])*)"
    rf"(?=\s*(?:$|[.:(\-–—]|{BECAUSE}|,\s*with\s+(?:a\s+|an\s+)?confidence\b))",
    re.IGNORECASE,
)


def _read_statement(how: str, payload: Any, valid: Sequence[str]) -> tuple[str, ...] | None:
    if how == "json":
        if isinstance(payload, str):
            return _label_text(strip_decoration(payload), valid)
        if isinstance(payload, list) and payload and all(isinstance(p, str) for p in payload):
            return label_list(", ".join(p.strip() for p in payload), valid, lenient=True)
        return None
    content = strip_decoration(_ASIDE.sub(" ", payload))
    labels = _label_text(content, valid)
    if labels:
        return labels
    leading = _LEADING.match(MARKDOWN.sub(" ", payload).strip())  # brackets may end the list
    if leading:
        labels = label_list(leading["list"], valid, lenient=True)
        if labels:
            return labels
    hits = prose_hits(payload)
    return first_readable(hits, valid)[1] if hits else None


_ALL = re.compile(
    r"^(?:all|every)(?:\s+(?:of\s+)?(?:the\s+)?(?:(?:four|five|six|listed|given)\s+)?"
    r"(?:options?|statements?|choices?|labels?|answers?|of\s+them|above))?"
    r"(?:\s+(?:except(?:\s+for)?|but(?:\s+not)?|other\s+than|apart\s+from|besides|save(?:\s+for)?)"
    r"\s+(?P<rest>.+?))?(?:\s+(?:are|is)\s+(?:correct|supported|true|right))?$",
    re.IGNORECASE,
)


def _label_text(content: str, valid: Sequence[str]) -> tuple[str, ...] | None:
    """A label list, or ``all of the options (except ...)``."""
    labels = label_list(content, valid, lenient=True)
    if labels:
        return labels
    every = _ALL.match(" ".join(content.split()).rstrip(".!").strip())
    if not every:
        return None
    excluded: tuple[str, ...] = ()
    if every["rest"]:
        listed = label_list(every["rest"], valid, lenient=True)
        if not listed:
            return None
        excluded = listed
    chosen = tuple(v for v in valid if v not in excluded)
    return tuple(sorted(chosen)) or None
