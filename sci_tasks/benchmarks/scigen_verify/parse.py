"""Read a SciGen-Verify verifier reply: judgement, explanation and edit.

The verifier is asked for
``<think>...</think><answer>true|false</answer><explanation>...</explanation><edit>...</edit>``
(``<edit>`` only when the answer is false). Verifiers trained on the authors' data answer
with the short tags ``<a>true</a><ex>...</ex><ed>...</ed>`` or a JSON object
``{"answer": true, "explanation": "...", "edit": "..."}``; all three forms are read. The
rules, in order (documented in the sample README; every rule has a case in
``tests/test_scigen_verify_parse.py``):

1. Reasoning is never read: it is removed before this parser sees the reply, by the filter
   every task applies (``metrics/reply.NormaliseReply``): complete ``<think>...</think>``
   blocks, text before a ``</think>`` that has no opening tag, and everything after an
   unclosed ``<think>`` (a reply cut off while thinking).
2. Tags are matched ignoring case and spaces inside the brackets (``< ANSWER >``); the short
   tags ``<a>``, ``<ex>``, ``<ed>`` are the same fields as ``<answer>``, ``<explanation>``,
   ``<edit>``. A block runs to its closing tag or, when that is missing (a truncated
   reply), to the next tag or the end of the reply. Blocks may come in any order.
3. JSON: every JSON object of the reply (bare or in a code fence) with an answer key is an
   answer: ``answer`` or ``a``, or the verdict key a chat model names itself
   (``judgement`` / ``judgment``, ``verdict``, ``satisfies`` / ``satisfied``,
   ``satisfies_instruction``, ``meets_instruction``, ``is_correct``, ``pass`` / ``passed``;
   the first key of this list present in the object counts). Its explanation
   (``explanation`` / ``ex``, ``reason``, ``reasoning``, ``rationale``, ``justification``)
   and edit (``edit`` / ``ed``, ``suggested_edit``, ``correction``, ``fix``) keys go with
   it. The value is read like a tag's: ``true`` / ``false`` (JSON booleans or words, e.g.
   ``"true"``, ``"PASS"``, ``"does not satisfy"``).
4. Structured judgement: each answer (tag block or JSON object) is read as a bare word
   (true / false, yes / no, correct / incorrect, pass / fail, ✅ / ❌) or, failing that,
   with the free-text rules below. Answers that read as nothing (``true|false``, ``...``,
   empty, a number) are placeholders and ignored. The readable answers must agree AND be
   given in one form (paper tags, short tags or JSON): answers that disagree, or a
   judgement given in two forms (e.g. ``<a>true</a>`` and ``{"answer": true}``), leave no
   judgement. If the reply has answers but none is readable, there is no judgement: the
   free text is not consulted.
5. Untagged judgement (no answer tag and no JSON answer at all): the reply, tag marks and
   Markdown emphasis removed, is split into sentences; questions, hedged or conditional
   sentences (``whether``, ``cannot``, ``unclear``, ``if ...``) and sentences offering both
   options (``true or false``, ``yes/no``, ``pass/fail``) are skipped. In each remaining
   sentence only verdict forms count: a leading bare word (``No.``, ``Yes,``, ``No — ...``,
   ``Correct:``, ``Therefore, false.``; ``PASS``, ``Fail.``, but not ``Passed: ...``, a
   checklist item), optionally with a check or cross mark (``PASS ✅ —``, ``❌ Fail``; a
   mark of the other polarity makes the sentence ambiguous), a mark standing alone
   (``✅``, ``❌ — ...``; not ``✅ Hexagon``, a checklist item), a labelled answer
   (``Answer: false``, ``the verdict is yes``, ``Verdict: FAIL``), satisfaction
   phrases (``satisfies`` / ``does not satisfy`` / ``fails to meet the instruction``), truth
   predicates (``is true``, ``is not true``, ``not true``) and correctness predicates of the
   image as a whole (``the image is incorrect``, ``it is not correct``). A part of the image
   being "correct" is not a verdict. Negation flips a form. The first sentence whose verdict
   forms all agree gives the judgement; a sentence with both polarities is ambiguous and
   skipped. No such sentence: no judgement.
6. Explanation: for a JSON answer, its object's explanation; for tags, the explanation
   block after the chosen answer (else the nearest one before it; else the first). A reply
   without explanation block and without any answer: its whole remaining text, tag marks
   removed.
7. Edit: chosen the same way, kept only when the judgement is false; an edit given with a
   true judgement is ignored (and noted). Free text outside an edit block or key is never
   taken as the edit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sci_tasks.metrics.reply import json_objects, key_of

__all__ = ["Block", "VerifyParse", "blocks", "parse_verification", "read_answer_value",
           "read_judgement"]  # fmt: skip

TAGS = ("answer", "explanation", "edit", "think")
_FIELD_OF_SHORT = {"a": "answer", "ex": "explanation", "ed": "edit"}
# JSON keys of each field, in order of preference; the answer may also be given as the
# verdict a chat model names itself ("judgement", "verdict", "satisfies", ...)
JSON_KEYS = {
    "answer": ("answer", "a", "judgement", "judgment", "verdict", "satisfies", "satisfied",
               "satisfies_instruction", "meets_instruction", "is_correct", "pass", "passed"),
    "explanation": ("explanation", "ex", "reason", "reasoning", "rationale", "justification"),
    "edit": ("edit", "ed", "suggested_edit", "correction", "fix"),
}  # fmt: skip
# how a judgement was given (``VerifyParse.form``)
TAGS_FORM, SHORT_TAGS, JSON_FORM, FREE_TEXT = "tags", "short tags", "json", "free text"


@dataclass(frozen=True)
class Block:
    name: str  # answer / explanation / edit (a short tag's field name)
    start: int  # position of the opening tag
    content: str
    closed: bool
    short: bool = False  # written as <a>, <ex>, <ed>

    @property
    def form(self) -> str:
        return SHORT_TAGS if self.short else TAGS_FORM


@dataclass(frozen=True)
class VerifyParse:
    judgement: bool | None  # None: no unambiguous judgement
    explanation: str | None
    edit: str | None  # only with a false judgement
    tagged: bool  # the reply has answer tags (<answer> or <a>)
    note: str  # how the reply was read, or why nothing was read
    form: str = ""  # tags / short tags / json / free text; "" when there is no judgement

    @property
    def parsed(self) -> bool:
        return self.judgement is not None


# --- tags --------------------------------------------------------------------------------------

_TAG = re.compile(r"<\s*(?:(/)\s*)?(answer|explanation|edit|think|a|ex|ed)\s*>", re.IGNORECASE)


def blocks(text: str) -> list[Block]:
    """Answer, explanation and edit blocks (either spelling) in order of appearance."""
    marks = list(_TAG.finditer(text))
    found = []
    for i, mark in enumerate(marks):
        closing, tag = bool(mark.group(1)), mark.group(2).lower()
        if closing or tag == "think":
            continue
        name = _FIELD_OF_SHORT.get(tag, tag)
        nxt = marks[i + 1] if i + 1 < len(marks) else None
        end = nxt.start() if nxt else len(text)
        closed = (
            nxt is not None
            and bool(nxt.group(1))
            and _FIELD_OF_SHORT.get(nxt.group(2).lower(), nxt.group(2).lower()) == name
        )
        content = text[mark.end() : end].strip()
        found.append(Block(name, mark.start(), content, closed, tag in _FIELD_OF_SHORT))
    return found


# --- free-text judgements ----------------------------------------------------------------------

_WORD_VALUES = {
    "true": True, "yes": True, "correct": True, "pass": True, "passed": True,
    "false": False, "no": False, "incorrect": False, "fail": False, "failed": False,
}  # fmt: skip
# check and cross marks: a verdict alone, or decorating a verdict word ("PASS ✅", "✅ Yes")
_MARKS = "✅✔✓☑❌✗✘❎"
_MARK_POLARITY = {"✅": True, "✔": True, "✓": True, "☑": True,
                  "❌": False, "✗": False, "✘": False, "❎": False}  # fmt: skip
_OPTION_PAIR = re.compile(
    r"\b(?:true|yes|correct|pass)\s*(?:/|\||\bor\b|\band\b|,)\s*(?:false|no|incorrect|fail)\b"
    r"|\b(?:false|no|incorrect|fail)\s*(?:/|\||\bor\b|\band\b|,)\s*(?:true|yes|correct|pass)\b"
)
_HEDGE = re.compile(
    r"\b(?:whether|cannot|can't|can ?not|unable|unclear|uncertain|unsure|not sure|"
    r"hard to (?:say|tell)|impossible to (?:say|tell))\b|^(?:if|unless)\b"
)
_ADV = r"(?:(?:fully|completely|entirely|quite|really|actually|strictly|clearly)\s+)?"
_VERB_NEG = r"(?:does|do|did|can|could|would|will|should)\s*(?:not|n't)\s+"
_SUBJECT = (
    r"(?:the\s+)?(?:(?:candidate|generated|given|edited|final|resulting|whole|overall|output)\s+)?"
    r"(?:image|figure|diagram|picture|drawing|plot|graph|map|illustration|sketch|answer|"
    r"statement|result|it|this|that)"
)
# (pattern, polarity); a pattern whose polarity is None takes it from the captured word,
# flipped when the optional negation group matched.
_CUES: list[tuple[re.Pattern[str], bool | None]] = [
    # a leading bare word, optionally after a connective and with a check or cross mark:
    # "No.", "Therefore, false.", "PASS ✅ —", "❌ Fail" (pass / fail not before a colon:
    # "Passed: hexagon" is a checklist item)
    (
        re.compile(
            r"^(?:(?:so|thus|hence|therefore|overall|in conclusion|in summary|in short|"
            rf"final answer|conclusion)\s*[,:]?\s*)?(?:(?P<mark>[{_MARKS}])\ufe0f?\s*)?(?P<neg>)"
            r"(?:(?P<word>true|false|yes|no|correct|incorrect)(?=\s*(?:[,.!:;)\-–—]|$)"
            rf"|\s*(?P<mark2>[{_MARKS}]))|(?P<word3>pass|passed|fail|failed)"
            rf"(?=\s*(?:[,.!;)\-–—]|$)|\s*(?P<mark3>[{_MARKS}])))"
        ),
        None,
    ),
    # a check or cross mark standing alone: "✅", "❌ —" (not "✅ Hexagon", a checklist item)
    (re.compile(rf"^(?P<mark>[{_MARKS}])\ufe0f?(?=\s*(?:[.!:;\-–—]|$))"), None),
    # a labelled answer: "Answer: false", "the final verdict is yes"
    (
        re.compile(
            r"\b(?:final\s+)?(?:answer|verdict|judge?ment|conclusion|decision|label|result|"
            r"output)(?:\s*(?:is|:|=|-|–))+\s*[\"'(\[]?\s*(?P<neg>not\s+)?(?P<word>true|false|"
            r"yes|no|correct|incorrect|pass|passed|fail|failed)\b"
        ),
        None,
    ),
    # satisfaction phrases
    (
        re.compile(
            rf"\b{_VERB_NEG}{_ADV}(?:satisfy|meet|fulfil|fulfill|follow|comply with|adhere to|"
            rf"match)\b|\bfails?\s+to\s+{_ADV}(?:satisfy|meet|fulfil|fulfill|follow|comply|"
            rf"adhere|match)\b|(?:\bnot|n't)\s+{_ADV}(?:satisfied|met|fulfilled|followed)\b|"
            rf"\b(?:unsatisfied|dissatisfied)\b"
        ),
        False,
    ),
    (
        re.compile(
            r"\b(?:satisfies|satisfy|satisfied|fulfils|fulfills|fulfilled|complies with|"
            r"adheres to)\b|\b(?:meets|follows|matches)\s+(?:all\s+)?(?:of\s+)?(?:the\s+|its\s+|"
            r"every\s+)?(?:instruction|requirement|request|prompt|specification|constraint)s?\b"
        ),
        True,
    ),
    # truth predicates: "is true", "isn't true", "not true"
    (
        re.compile(
            rf"\b(?:is|are|was|were|be)(?P<neg>\s+not|n't)?\s+{_ADV}(?P<word>true|false)\b"
            rf"|(?P<neg2>\bnot)\s+{_ADV}(?P<word2>true|false)\b"
        ),
        None,
    ),
    # correctness of the image as a whole: "the image is incorrect", "it is not correct"
    (
        re.compile(
            rf"\b{_SUBJECT}\s+(?:is|looks|seems|appears)(?:\s+to\s+be)?(?P<neg>\s+not|n't)?\s+"
            rf"{_ADV}(?P<word>correct|incorrect|accurate|inaccurate|valid|invalid|right|wrong)\b"
        ),
        None,
    ),
]
_WORD_POLARITY = {
    "true": True, "yes": True, "correct": True, "accurate": True, "valid": True, "right": True,
    "pass": True, "passed": True,
    "false": False, "no": False, "incorrect": False, "inaccurate": False, "invalid": False,
    "wrong": False, "fail": False, "failed": False,
}  # fmt: skip
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+")
# a bullet's indent is horizontal space only: "^\s*" ran over every following newline from
# each line start (quadratic on a reply of blank lines)
_MARKUP = re.compile(r"\*\*|__|`+|^#+\s*|^[^\S\n]*[-*>]\s+", re.MULTILINE)


def _sentences(text: str) -> list[str]:
    text = _MARKUP.sub("", _TAG.sub(" ", text)).replace("’", "'").lower()
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def _sentence_polarities(sentence: str) -> set[bool]:
    """The polarities of the verdict forms of one sentence (overlapping forms count once:
    earlier patterns, e.g. "does not satisfy", win over later ones, e.g. "satisfy")."""
    taken: list[tuple[int, int]] = []
    found: set[bool] = set()
    for pattern, polarity in _CUES:
        for m in pattern.finditer(sentence):
            if any(m.start() < end and start < m.end() for start, end in taken):
                continue
            taken.append((m.start(), m.end()))
            if polarity is not None:
                found.add(polarity)
                continue
            groups = m.groupdict()
            word = groups.get("word") or groups.get("word2") or groups.get("word3")
            negated = bool(groups.get("neg") or groups.get("neg2"))
            if word:
                found.add(_WORD_POLARITY[word] != negated)
            # a mark on its own or around the word ("❌ Yes" has both polarities)
            for mark in ("mark", "mark2", "mark3"):
                if groups.get(mark):
                    found.add(_MARK_POLARITY[groups[mark]])
    return found


def read_judgement(text: str) -> tuple[bool | None, str]:
    """Rule 5: the first unambiguous verdict sentence of free text, and a note."""
    ambiguous = 0
    for sentence in _sentences(text):
        if sentence.endswith("?") or _HEDGE.search(sentence):
            continue
        if _OPTION_PAIR.search(sentence):
            ambiguous += 1
            continue
        polarities = _sentence_polarities(sentence)
        if len(polarities) == 1:
            (value,) = polarities
            return value, f"untagged: {sentence[:80]!r}"
        ambiguous += len(polarities) > 1
    if ambiguous:
        return None, f"no unambiguous judgement ({ambiguous} ambiguous sentence(s))"
    return None, "no judgement found"


def read_answer_value(content: str) -> bool | None:
    """Rule 4: an answer's value, or None (placeholder / unreadable / both)."""
    word = re.sub(r"[\s\"'`*_.!,:;()\[\]]+", " ", content).strip().lower()
    if word in _WORD_VALUES:
        return _WORD_VALUES[word]
    value, _ = read_judgement(content)
    return value


# --- the whole reply ---------------------------------------------------------------------------


def _pick(found: list[Block], name: str, anchor: int | None) -> Block | None:
    """The ``name`` block after ``anchor`` (else the nearest before it; else the first)."""
    candidates = [b for b in found if b.name == name]
    if not candidates:
        return None
    if anchor is not None:
        after = [b for b in candidates if b.start > anchor]
        if after:
            return after[0]
        return candidates[-1]
    return candidates[0]


@dataclass(frozen=True)
class _Answer:
    """One answer of a reply: a tag block or a JSON object with an answer key."""

    form: str
    start: int
    value: bool | None  # None: a placeholder / unreadable
    block: Block | None = None
    obj: dict[str, Any] | None = None


def _json_text(obj: dict[str, Any], field: str) -> str | None:
    key = key_of(obj, JSON_KEYS[field])
    value = obj.get(key) if key is not None else None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    return (value.strip() or None) if isinstance(value, str) else None


def json_answer_value(value: Any) -> bool | None:
    """Rule 3: a JSON answer's value (a boolean, or text read like a tag's content)."""
    if isinstance(value, bool):
        return value
    return read_answer_value(value) if isinstance(value, str) else None


def _answers(text: str, found: list[Block]) -> list[_Answer]:
    answers = [
        _Answer(b.form, b.start, read_answer_value(b.content), block=b)
        for b in found
        if b.name == "answer"
    ]
    for start, obj in json_objects(text):
        key = key_of(obj, JSON_KEYS["answer"])
        if key is not None:
            answers.append(_Answer(JSON_FORM, start, json_answer_value(obj[key]), obj=obj))
    return sorted(answers, key=lambda a: a.start)


def parse_verification(response: str | None) -> VerifyParse:
    """Judgement, explanation and edit of a normalised reply (rule 1: reasoning is gone)."""
    text = response or ""
    found = blocks(text)
    answers = _answers(text, found)
    tagged = any(a.block is not None for a in answers)
    notes: list[str] = []

    judgement: bool | None
    if not answers:
        judgement, note = read_judgement(text)
        notes.append(note)
        block = _pick(found, "explanation", None)
        whole = re.sub(r"\s+", " ", _TAG.sub(" ", text)).strip()
        explanation = (block.content if block else whole) or None
        edit_block = _pick(found, "edit", None)
        edit = (edit_block.content or None) if edit_block else None
        form = FREE_TEXT if judgement is not None else ""
        return _finish(judgement, explanation, edit, tagged, notes, form)

    values = [a for a in answers if a.value is not None]
    forms = sorted({a.form for a in values})
    chosen = values[0] if values else answers[0]
    if not values:
        judgement = None
        notes.append(f"{len(answers)} answer(s), none reads as true or false")
    elif len(forms) > 1:
        judgement = None
        notes.append(f"judgement given in more than one form ({', '.join(forms)})")
    elif len({a.value for a in values}) > 1:
        judgement = None
        notes.append(f"conflicting answers ({forms[0]})")
    else:
        judgement = chosen.value
        ignored = len(answers) - len(values)
        notes.append(
            f"{chosen.form}: {judgement}"
            + (f" ({ignored} placeholder answer(s) ignored)" if ignored else "")
            + (" (unclosed answer tag)" if chosen.block and not chosen.block.closed else "")
        )
    if chosen.obj is not None:
        explanation = _json_text(chosen.obj, "explanation")
        edit = _json_text(chosen.obj, "edit")
    else:
        block = _pick(found, "explanation", chosen.start)
        explanation = (block.content or None) if block else None
        edit_block = _pick(found, "edit", chosen.start)
        edit = (edit_block.content or None) if edit_block else None
    return _finish(
        judgement, explanation, edit, tagged, notes, forms[0] if judgement is not None else ""
    )


def _finish(
    judgement: bool | None,
    explanation: str | None,
    edit: str | None,
    tagged: bool,
    notes: list[str],
    form: str,
) -> VerifyParse:
    if edit is not None and judgement is not False:
        notes.append(f"edit ignored: the judgement is {judgement}")
        edit = None
    return VerifyParse(judgement, explanation, edit, tagged, "; ".join(notes), form)
