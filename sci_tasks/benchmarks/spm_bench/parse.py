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
6. Confidence: the last ``Confidence: <number>`` (``0.8``, ``.8``, ``80%``, ``8/10``; also
   ``Confidence Score:``, ``Confidence ≈ 0.8``, ``Confidence: ~0.8``, ``Confidence: fairly
   high — roughly 0.75``, ``my confidence is about 0.7``), ``<number>% confidence`` /
   ``80% confident`` / ``80% sure`` (not a *confidence interval* / *level*),
   ``<confidence>0.8</confidence>`` tag, JSON ``"confidence"`` value, or a sentence saying
   how confident followed by its number (``I'm fairly confident in this — about 70%``,
   ``Confidence: fairly confident (~0.7)``: a percentage or a fraction ending the clause,
   so ``not sure about 0.5 nm`` is none). It must lie in
   [0, 1] (a percentage in [0, 100]); anything else (``85``, ``1.2``, ``-0.1``, ``high``)
   is not clamped but reported as ``None`` with a note.
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
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sci_tasks.metrics.reply import json_objects, key_of

# an answer tag (<answer> or the short <a>) up to its closing tag, the next tag or the end
_ANSWER_TAG = re.compile(
    r"<\s*(?:answer|a)\s*>(?P<rest>.*?)(?=<\s*/?\s*[a-z]+\s*>|$)", re.IGNORECASE | re.DOTALL
)
_VALUE = r"(?P<value>[+-]?(?:\d+(?:\.\d*)?|\.\d+))"  # a stated confidence: 0.8, .8, 80
_CONFIDENCE_TAG = re.compile(
    rf"<\s*confidence\s*>\s*{_VALUE}\s*(?P<pct>%)?\s*(?=<\s*/\s*confidence\s*>|$)", re.IGNORECASE
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
# a bullet item starting with a label: "- (A) ...", "* **B:** ...", "1. C - ..."
_BULLET = re.compile(r"[^\S\n]*(?:[-*•+]|\d{1,2}[.)])[^\S\n]+")
_BULLET_LABEL = re.compile(
    r"(?:\*\*|__)?[^\S\n]*(?:(?i:option|statement|choice)[^\S\n]+)?"
    r"(?:\((?P<paren>[A-Za-z])\)|(?P<bare>[A-Z])(?:\*\*|__)?(?=[^\S\n]*(?:[.):\-–—]|$)))"
)
_ITEM_LEAD = re.compile(r"^[\s.:)*_\-–—]+")  # between an item's label and its text
_APPROX = r"(?:(?:about|around|approximately|approx\.?|roughly|circa|nearly|~|≈|≃)[ \t]*)?"
_QUALIFIER = (
    r"(?:very|fairly|quite|rather|moderately|reasonably|relatively|high|low|medium|moderate|"
    r"good|fair|strong|overall)"
)
_CONFIDENCE = re.compile(
    r"\bconfidence(?:[ \t]+(?:level|score|estimate|rating))?[ \t]*(?:\*+[ \t]*)?"
    rf"(?:[:=：][ \t]*(?:\*+[ \t]*)?(?:(?:{_QUALIFIER}[ \t]+){{0,2}}{_QUALIFIER}[ \t]*"
    r"(?:[(,;:—–-][ \t]*)?)?|(?:is|of|at|would[ \t]+be|≈|~|≃)[ \t]*|(?<=[ \t]))"
    rf"{_APPROX}(?:\*+[ \t]*)?{_VALUE}[ \t]*"
    r"(?:(?P<pct>%)|/[ \t]*(?P<den>\d+(?:\.\d+)?)(?!\d|\.\d))?",  # "8/10." ends a sentence
    re.IGNORECASE,
)
# "with about 75% confidence", "I am 80% confident" (not "a 95% confidence interval")
_CONFIDENCE_PERCENT = re.compile(
    r"(?<![\w.])(?P<value>\d+(?:\.\d+)?)[ \t]*(?P<pct>%)[ \t]+(?:confidence|confident|sure|"
    r"certain)\b(?![ \t]+(?:interval|level|bound|band|region|limit|ellipse))",
    re.IGNORECASE,
)
# a sentence saying how confident, then its number: "I'm fairly confident in this — about
# 70%", "Confidence: fairly confident (~0.7)"; only a percentage or a fraction (0.7) counts
_CONFIDENT_THEN_VALUE = re.compile(
    r"\b(?:confident|confidence|sure|certain)\b[^.\d\n]{0,40}?[(\s—–-]"
    rf"{_APPROX}(?P<value>(?<![\d.])(?:\d{{1,3}}(?:\.\d+)?(?=[ \t]*%)|0?\.\d+|1\.0+)(?![\d.]))"
    r"[ \t]*(?P<pct>%)?(?=[ \t]*(?:[),;.!—–]|$))",  # a value, not "0.5 nm"
    re.IGNORECASE | re.MULTILINE,
)
_JSON_CONFIDENCE_KEYS = ("confidence", "confidence_score", "confidence_level")
_JSON_ANSWER_KEYS = (
    "answer", "answers", "final_answer", "a", "selected", "selection", "selections",
    "selected_options", "selected_labels", "selected_answers", "choices", "chosen",
    "chosen_options", "correct_options", "correct_answers", "correct_labels",
    "correct_statements", "labels",
)  # fmt: skip
_DECORATION = re.compile(r"[*_`\"'“”‘’\[\]{}()]")
_MARKDOWN = re.compile(r"[*_`\"'“”‘’]")
_EMPHASIS = re.compile(r"\*+|__+|`+")  # blanked (same length) before prose is read
_SEPARATOR = re.compile(r"\s*(?:,|;|/|&|\+|\band\b)\s*|\s+", re.IGNORECASE)
_FILLER = re.compile(
    r"^(?:(?:both|all|only|options?|choices?|labels?|statements?)\s+)+", re.IGNORECASE
)
_ONLY = re.compile(r"\s+only$", re.IGNORECASE)
# a range of labels: "A through C", "A to C", "A-C", "A–C" (capitals only)
_RANGE = re.compile(r"(?<![A-Za-z])(?P<first>[A-Z])(?:\s+(?:through|thru|to)\s+|[-–])"
                    r"(?P<last>[A-Z])(?![A-Za-z])")  # fmt: skip
# an aside in brackets after a label ("A (cubic habit)"); "(A)" itself is a label
_ASIDE = re.compile(r"\((?!\s*[A-Za-z]\s*\))[^()\n]*\)")
_ALL = re.compile(
    r"^(?:all|every)(?:\s+(?:of\s+)?(?:the\s+)?(?:(?:four|five|six|listed|given)\s+)?"
    r"(?:options?|statements?|choices?|labels?|answers?|of\s+them|above))?"
    r"(?:\s+(?:except(?:\s+for)?|but(?:\s+not)?|other\s+than|apart\s+from|besides|save(?:\s+for)?)"
    r"\s+(?P<rest>.+?))?(?:\s+(?:are|is)\s+(?:correct|supported|true|right))?$",
    re.IGNORECASE,
)
# A label standing alone (not part of a word), optionally in parentheses, in prose.
_P_LABEL = r"\(?[A-Z]\)?(?![\w])"
_P_SEP = r"(?:\s*(?:,\s*and|,|;|/|&|and|through|thru|to)\s*|[-–])"  # "to", "-": ranges
_P_LIST = rf"(?<![\w(]){_P_LABEL}(?:{_P_SEP}{_P_LABEL})*"
_BECAUSE = r"\b(?:because|since|as)\b"  # an explanation may follow a label list
# Prose (rule 3): a maximal run of labels (found once, so reading stays linear), read when
# the words before or after it make it a selection.
_PROSE_LIST = re.compile(_P_LIST)
# "the answer is A", "the correct options are A and C", "my choices would be B, D."
_BEFORE_ANSWER = re.compile(
    r"\b(?:answers?|options?|choices?|selections?|statements?)\s+(?:is|are|would\s+be|will\s+be)"
    r"\s*:?\s*$",
    re.IGNORECASE,
)
# "I choose A and C", "selecting options B, D."
_BEFORE_CHOICE = re.compile(
    r"\b(?:choose|select|pick|choosing|selecting|picking)\s+(?:options?\s+|choices?\s+)?$",
    re.IGNORECASE,
)
_AFTER_END = re.compile(rf"\s*(?:$|[.,;:!?)\n]|{_BECAUSE})")
# "I think A and C are correct", "B is the right answer", "A and C are supported"
# (not after a negation)
_AFTER_PREDICATE = re.compile(
    r"\s+(?:(?:is|are)\s+(?:both\s+|all\s+)?(?:the\s+)?(?:ones?\s+(?:that\s+are\s+)?)?"
    r"(?:correct|right|true|supported|consistent|accurate|valid)|(?:all\s+)?holds?(?:\s+true)?)\b",
    re.IGNORECASE,
)
# words that take back what was said before ("A is correct. Actually, B is correct.")
_RECONSIDER = re.compile(
    r"\b(?:actually|wait|on\s+(?:second\s+thought|reflection)|reconsider\w*|instead|rather|"
    r"correction|revis\w*|change\s+my)\b",
    re.IGNORECASE,
)
_NEGATION = re.compile(r"\b(?:not|nor|neither|no)\s*$", re.IGNORECASE)
_LEADING = re.compile(
    rf"^(?P<list>[A-Za-z](?:\s*(?:,|;|/|&|\+|\band\b|\s)\s*[A-Za-z])*)(?=\s*(?:$|[.:(\-–—]|{_BECAUSE}))",
    re.IGNORECASE,
)
# Markdown tables: a row, a separator row, a label cell, and the marks of a verdict cell
_TABLE_ROW = re.compile(r"^[^\S\n]*\|[^\n]*$", re.MULTILINE)
_TABLE_RULE = re.compile(r"^[\s|:\-–]+$")
_CELL_LABEL = re.compile(r"^(?:(?i:option|statement|choice)\s+)?\(?([A-Za-z])\)?[.:]?$")
_MARK_YES = re.compile(
    r"^(?:✓|✔|✅|☑|(?:yes|true|correct|supported|consistent|selected|accurate|valid)\b)",
    re.IGNORECASE,
)
_MARK_NO = re.compile(
    r"^(?:✗|✘|❌|✕|❎|×|(?:no|not|false|incorrect|unsupported|inconsistent|rejected|wrong|"
    r"inaccurate|invalid)\b)",
    re.IGNORECASE,
)


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


class _OutOfSet(ValueError):
    """A label list naming a letter that is not one of the options."""


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
    except _OutOfSet as exc:  # a heading's answer naming a label outside the options
        return result(None, "answer line", str(exc))
    if statements:
        _, how, payload = statements[-1]
        try:
            labels = _read_statement(how, payload, valid)
        except _OutOfSet as exc:
            return result(None, how, str(exc))
        if labels is None and named and isinstance(payload, str):
            labels = options_by_text(payload, named)
            how = f"{how} (option texts)" if labels else how
        if labels is None:
            shown = payload if isinstance(payload, str) else json.dumps(payload)
            return result(None, how, f"last {how} unreadable: {shown[:80]!r}")
        return result(labels, how, f"{how}: {', '.join(labels)}")

    try:
        labels = label_list(_strip_decoration(text), valid, lenient=True)
        if labels:
            return result(labels, "bare list", f"whole reply is a label list: {', '.join(labels)}")
        found = _prose_or_table(text, valid)
    except _OutOfSet as exc:
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
    except _OutOfSet as exc:
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
    return label_list(_strip_decoration(last), valid, lenient=False)


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
            if not _BULLET.match(nxt):
                break
            items.append(nxt)
        found = [option_of(item, named) for item in items]
        if found and None not in found and len(set(found)) == len(found):
            return tuple(sorted(f for f in found if f))
    return None


# "The statements supported by the image are therefore "<text>" and "<text>"." / "So the
# correct statements are: <text>, and <text>.": a selection sentence naming option texts
_SELECTION_SENTENCE = re.compile(
    r"\b(?:answers?|options?|choices?|statements?|conclusions?|claims?)\b(?P<between>[^.\n:]{0,60}?)"
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
        labels = options_by_text(_DECORATION.sub(" ", m["rest"]), named)
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
_MARK_CHAR = re.compile(r"[✓✔✅☑✗✘❌✕❎]")
_POSITIVE = frozenset("✓✔✅☑")


def _words(text: str) -> set[str]:
    """Content words, cut to 7 letters ("reconstruction" and "reconstructed" are one)."""
    return {w[:7] for w in _WORD.findall(text.lower()) if w not in _STOP}


def option_of(piece: str, named: dict[str, str]) -> str | None:
    """The option whose text ``piece`` restates: most of the option's words (at least half,
    its numbers included) and clearly more than any other option's; else None."""
    words = _words(piece)
    scores = []
    for label, text in named.items():
        own = _words(text)
        numbers = {w for w in own if w[0].isdigit()}
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
    lines = [ln for ln in text.splitlines() if _BULLET.match(ln)]
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
        if mark.group() in _POSITIVE:
            chosen.append(label)
    return tuple(sorted(chosen)) or None


def label_list(text: str, valid: Sequence[str], *, lenient: bool) -> tuple[str, ...] | None:
    """``text`` read as nothing but a list of labels, or None.

    ``lenient``: single letters in any case and uppercase runs (``AC``) count; otherwise
    only single capital letters. Raises ``_OutOfSet`` for a lone letter outside ``valid``.
    """
    text = _ONLY.sub("", _FILLER.sub("", text.strip().rstrip(".!").strip()))
    text = _RANGE.sub(_expand_range, text)
    if not text:
        return None
    tokens = [t for t in _SEPARATOR.split(text) if t]
    found: list[str] = []
    for token in tokens:
        if len(token) == 1 and token.isalpha() and (lenient or token.isupper()):
            found.append(token.upper())
        elif lenient and token.isalpha() and token.isascii() and token.isupper():
            if not all(ch in valid for ch in token):
                return None  # a word such as "ATOM", not a run of labels
            found.extend(token)
        else:
            return None
    outside = sorted({f for f in found if f not in valid})
    if outside:
        raise _OutOfSet(f"label(s) {', '.join(outside)} not among the options {', '.join(valid)}")
    return tuple(sorted(set(found)))


def _expand_range(m: re.Match[str]) -> str:
    first, last = ord(m["first"]), ord(m["last"])
    if first >= last:
        return m[0]  # "C to A": not a range, and the word "to" leaves the list unreadable
    return " ".join(chr(c) for c in range(first, last + 1))


def parse_confidence(text: str) -> tuple[float | None, str]:
    """The last stated confidence in [0, 1], or None with the reason."""
    found: list[tuple[int, Any]] = [(m.start(), m) for m in _CONFIDENCE.finditer(text)]
    found += [(m.start(), m) for m in _CONFIDENCE_TAG.finditer(text)]
    found += [(m.start(), m) for m in _CONFIDENCE_PERCENT.finditer(text)]
    found += [(m.start(), m) for m in _CONFIDENT_THEN_VALUE.finditer(text)]
    for start, obj in json_objects(text):
        for key, value in obj.items():
            if isinstance(key, str) and key.lower() in _JSON_CONFIDENCE_KEYS:
                found.append((start, value))
                break
    if not found:
        return None, "missing"
    _, last = max(found, key=lambda f: f[0])
    if isinstance(last, re.Match):
        return _confidence_value(last["value"], bool(last["pct"]), last.groupdict().get("den"))
    if isinstance(last, bool) or not isinstance(last, (int, float, str)):
        return None, f"not a number: {last!r}"
    if isinstance(last, str):
        m = re.fullmatch(
            r"\s*(?:~|≈|about\s+)?([+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*(?:(%)|/\s*(\d+(?:\.\d+)?))?\s*",
            last,
        )
        if not m:
            return None, f"not a number: {last!r}"
        return _confidence_value(m[1], bool(m[2]), m[3])
    return _confidence_value(str(last), False)


def _confidence_value(
    number: str, percent: bool, denominator: str | None = None
) -> tuple[float | None, str]:
    value = float(number)
    if percent:
        value /= 100.0
    if denominator is not None:
        if float(denominator) <= 0:
            return None, f"not a fraction: {number}/{denominator}"
        value /= float(denominator)
    if not 0.0 <= value <= 1.0:
        shown = f"{number}%" if percent else number
        shown += f"/{denominator}" if denominator is not None else ""
        return None, f"out of range [0, 1]: {shown}"
    return value, "stated"


# --- explicit statements ------------------------------------------------------------------


def _statements(text: str, valid: Sequence[str]) -> Iterator[tuple[int, str, Any]]:
    """(position, kind, payload) for each answer line, answer tag, \\boxed{} and JSON answer
    object, and each answer heading whose next line reads as an answer."""
    for m in _ANSWER_LINE.finditer(text):
        before = max(text.rfind("\n", max(0, m.start() - 40), m.start()) + 1, m.start() - 40)
        if _NOT_CHOSEN.search(text, before, m.start()):
            continue  # "Incorrect options:", "**Not** correct answers:"
        rest = m["rest"].strip()
        if not _strip_decoration(rest).strip():
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
        bullet = _BULLET.match(line)
        if not bullet:
            break
        label = _BULLET_LABEL.match(line, bullet.end())
        if not label:
            return first  # a bullet list, but not one of labels
        mark = _mark(_ITEM_LEAD.sub("", line[label.end() :]))
        items.append(((label["paren"] or label["bare"]).upper(), mark))
    marks = {mark for _, mark in items}
    if not items or (None in marks and len(marks) > 1):
        return first  # some items marked, some not: an evaluation, not a selection
    return ", ".join(label for label, mark in items if mark is not False)


def _read_statement(how: str, payload: Any, valid: Sequence[str]) -> tuple[str, ...] | None:
    if how == "json":
        if isinstance(payload, str):
            return _label_text(_strip_decoration(payload), valid)
        if isinstance(payload, list) and payload and all(isinstance(p, str) for p in payload):
            return label_list(", ".join(p.strip() for p in payload), valid, lenient=True)
        return None
    content = _strip_decoration(_ASIDE.sub(" ", payload))
    labels = _label_text(content, valid)
    if labels:
        return labels
    leading = _LEADING.match(_MARKDOWN.sub(" ", payload).strip())  # brackets may end the list
    if leading:
        labels = label_list(leading["list"], valid, lenient=True)
        if labels:
            return labels
    hits = _prose_hits(payload)
    return _first_readable(hits, valid)[1] if hits else None


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


# --- prose and tables ----------------------------------------------------------------------


def _prose_hits(text: str) -> list[tuple[int, str, Any]]:
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


def _prose_or_table(text: str, valid: Sequence[str]) -> tuple[str, tuple[str, ...]] | None:
    """The last prose phrase or option table that reads (rule 3), as (how, labels)."""
    hits = _prose_hits(text) + list(_tables(text))
    how, labels = _first_readable(hits, valid)
    if labels and len(labels) == 1:
        labels = _assessments(text, hits, valid) or labels
    return (how, labels) if labels else None


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
        labels = label_list(_strip_decoration(found), valid, lenient=False)
        if labels is None or len(labels) != 1 or labels[0] in {label for _, label in run}:
            break
        run.append((start, labels[0]))
    if len(run) < 2 or _RECONSIDER.search(text, run[-1][0], run[0][0]):
        return None
    return tuple(sorted(label for _, label in run))


def _first_readable(
    hits: list[tuple[int, str, Any]], valid: Sequence[str]
) -> tuple[str, tuple[str, ...] | None]:
    """The last hit (by position) that reads as labels, as (how, labels); may raise
    ``_OutOfSet``."""
    for _, how, found in sorted(hits, key=lambda h: h[0], reverse=True):
        if how in ("prose", "assessment"):
            labels = label_list(_strip_decoration(found), valid, lenient=False)
        else:
            labels = _table_labels(found, valid)
        if labels:
            return ("prose" if how == "assessment" else how), labels
    return "", None


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


def _table_labels(rows: list[list[str]], valid: Sequence[str]) -> tuple[str, ...] | None:
    """The rows marked positive of an option table (rule 3), or None."""

    def label_of(cells: list[str]) -> str | None:
        label = _CELL_LABEL.match(_MARKDOWN.sub("", cells[0]).strip()) if cells else None
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
        marks = [_mark(cells[column]) for _, cells in labelled]
        if all(mark is not None for mark in marks):
            readings.add(tuple(label for label, mark in zip(labels, marks, strict=True) if mark))
    if len(readings) != 1:
        return None  # no mark column, or mark columns that disagree
    (chosen,) = readings
    if not chosen:
        return None
    return label_list(", ".join(chosen), valid, lenient=False)


def _mark(cell: str) -> bool | None:
    cell = _MARKDOWN.sub("", cell).strip()
    if _MARK_NO.match(cell):
        return False
    if _MARK_YES.match(cell):
        return True
    return None


def _strip_decoration(text: str) -> str:
    return _DECORATION.sub(" ", text)
