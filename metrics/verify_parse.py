"""Read a SciGen-Verify verifier reply: judgement, explanation and edit.

The verifier is asked for
``<think>...</think><answer>true|false</answer><explanation>...</explanation><edit>...</edit>``
(``<edit>`` only when the answer is false). The rules, in order (documented in the sample
README; every rule has a case in ``tests/test_scigen_verify_parse.py``):

1. Reasoning is never read: complete ``<think>...</think>`` blocks are removed; text before a
   ``</think>`` that has no opening tag is reasoning too; an unclosed ``<think>`` (a reply
   cut off while thinking) removes everything after it.
2. Tags are matched ignoring case and spaces inside the brackets (``< ANSWER >``). A block
   runs to its closing tag or, when that is missing (a truncated reply), to the next tag or
   the end of the reply. Blocks may come in any order.
3. Tagged judgement: each ``<answer>`` block is read as a bare word (true / false, yes / no,
   correct / incorrect) or, failing that, with the free-text rules below. Blocks that read
   as nothing (``true|false``, ``...``, empty) are placeholders and ignored. The readable
   blocks must agree; if they disagree there is no judgement. If the reply has ``<answer>``
   blocks but none is readable, there is no judgement: the free text is not consulted.
4. Untagged judgement (no ``<answer>`` block at all): the reply, tag marks and Markdown
   emphasis removed, is split into sentences; questions, hedged or conditional sentences
   (``whether``, ``cannot``, ``unclear``, ``if ...``) and sentences offering both options
   (``true or false``, ``yes/no``) are skipped. In each remaining sentence only verdict
   forms count: a leading bare word (``No.``, ``Yes,``, ``Correct:``, ``Therefore, false.``),
   a labelled answer (``Answer: false``, ``the verdict is yes``), satisfaction phrases
   (``satisfies`` / ``does not satisfy`` / ``fails to meet the instruction``), truth
   predicates (``is true``, ``is not true``, ``not true``) and correctness predicates of the
   image as a whole (``the image is incorrect``, ``it is not correct``). A part of the image
   being "correct" is not a verdict. Negation flips a form. The first sentence whose verdict
   forms all agree gives the judgement; a sentence with both polarities is ambiguous and
   skipped. No such sentence: no judgement.
5. Explanation: the ``<explanation>`` block after the chosen ``<answer>`` (else the nearest
   one before it; else the first). A reply without ``<explanation>`` block and without
   ``<answer>`` block: its whole remaining text, tag marks removed.
6. Edit: the ``<edit>`` block chosen the same way, kept only when the judgement is false; an
   edit given with a true judgement is ignored (and noted). Free text outside an ``<edit>``
   block is never taken as the edit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

TAGS = ("answer", "explanation", "edit", "think")


@dataclass(frozen=True)
class Block:
    name: str
    start: int  # position of the opening tag
    content: str
    closed: bool


@dataclass(frozen=True)
class VerifyParse:
    judgement: bool | None  # None: no unambiguous judgement
    explanation: str | None
    edit: str | None  # only with a false judgement
    tagged: bool  # the judgement came from <answer> blocks
    note: str  # how the reply was read, or why nothing was read

    @property
    def parsed(self) -> bool:
        return self.judgement is not None

    def as_dict(self) -> dict[str, object]:
        return {
            "judgement": self.judgement,
            "explanation": self.explanation,
            "edit": self.edit,
            "tagged": self.tagged,
            "note": self.note,
        }


# --- tags --------------------------------------------------------------------------------------

_TAG = re.compile(r"<\s*(/)?\s*(answer|explanation|edit|think)\s*>", re.IGNORECASE)
_THINK_BLOCK = re.compile(r"<\s*think\s*>.*?<\s*/\s*think\s*>", re.IGNORECASE | re.DOTALL)
_THINK_OPEN = re.compile(r"<\s*think\s*>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"<\s*/\s*think\s*>", re.IGNORECASE)


def strip_reasoning(text: str) -> tuple[str, str]:
    """The reply without reasoning, and a note when a rule of step 1 applied."""
    note = ""
    text = _THINK_BLOCK.sub(" ", text)
    close = list(_THINK_CLOSE.finditer(text))
    if close:  # an unopened </think>: what precedes it is reasoning
        text = text[close[-1].end() :]
        note = "text before an unopened </think> dropped"
    opened = _THINK_OPEN.search(text)
    if opened:  # cut off while thinking
        text = text[: opened.start()]
        note = "unclosed <think>: the rest of the reply is reasoning"
    return text, note


def blocks(text: str) -> list[Block]:
    """``<answer>``, ``<explanation>`` and ``<edit>`` blocks in order of appearance."""
    marks = list(_TAG.finditer(text))
    found = []
    for i, mark in enumerate(marks):
        closing, name = bool(mark.group(1)), mark.group(2).lower()
        if closing or name == "think":
            continue
        nxt = marks[i + 1] if i + 1 < len(marks) else None
        end = nxt.start() if nxt else len(text)
        closed = nxt is not None and bool(nxt.group(1)) and nxt.group(2).lower() == name
        found.append(Block(name, mark.start(), text[mark.end() : end].strip(), closed))
    return found


# --- free-text judgements ----------------------------------------------------------------------

_WORD_VALUES = {
    "true": True, "yes": True, "correct": True,
    "false": False, "no": False, "incorrect": False,
}  # fmt: skip
_OPTION_PAIR = re.compile(
    r"\b(?:true|yes|correct)\s*(?:/|\||\bor\b|\band\b|,)\s*(?:false|no|incorrect)\b"
    r"|\b(?:false|no|incorrect)\s*(?:/|\||\bor\b|\band\b|,)\s*(?:true|yes|correct)\b"
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
    # a leading bare word, optionally after a connective: "No.", "Therefore, false."
    (
        re.compile(
            r"^(?:(?:so|thus|hence|therefore|overall|in conclusion|in summary|in short|"
            r"final answer|conclusion)\s*[,:]?\s*)?(?P<neg>)(?P<word>true|false|yes|no|"
            r"correct|incorrect)(?=\s*(?:[,.!:;)\-–—]|$))"
        ),
        None,
    ),
    # a labelled answer: "Answer: false", "the final verdict is yes"
    (
        re.compile(
            r"\b(?:final\s+)?(?:answer|verdict|judge?ment|conclusion|decision|label|result|"
            r"output)(?:\s*(?:is|:|=|-|–))+\s*[\"'(\[]?\s*(?P<neg>not\s+)?(?P<word>true|false|"
            r"yes|no|correct|incorrect)\b"
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
    "false": False, "no": False, "incorrect": False, "inaccurate": False, "invalid": False,
    "wrong": False,
}  # fmt: skip
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+")
_MARKUP = re.compile(r"\*\*|__|`+|^#+\s*|^\s*[-*>]\s+", re.MULTILINE)


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
            word = groups.get("word") or groups.get("word2") or ""
            negated = bool(groups.get("neg") or groups.get("neg2"))
            found.add(_WORD_POLARITY[word] != negated)
    return found


def read_judgement(text: str) -> tuple[bool | None, str]:
    """Rule 4: the first unambiguous verdict sentence of free text, and a note."""
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
    """Rule 3: an ``<answer>`` block's value, or None (placeholder / unreadable / both)."""
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


def parse_verification(response: str | None) -> VerifyParse:
    text, think_note = strip_reasoning(response or "")
    found = blocks(text)
    answers = [b for b in found if b.name == "answer"]
    notes = [think_note] if think_note else []

    judgement: bool | None
    if not answers:
        judgement, note = read_judgement(text)
        notes.append(note)
        block = _pick(found, "explanation", None)
        whole = re.sub(r"\s+", " ", _TAG.sub(" ", text)).strip()
        explanation = (block.content if block else whole) or None
        return _finish(judgement, explanation, _pick(found, "edit", None), False, notes)

    readable = [(b, read_answer_value(b.content)) for b in answers]
    values = [(b, v) for b, v in readable if v is not None]
    chosen: Block | None = values[0][0] if values else None
    if not values:
        judgement = None
        notes.append(f"{len(answers)} <answer> block(s), none reads as true or false")
    elif len({v for _, v in values}) > 1:
        judgement = None
        notes.append("conflicting <answer> blocks")
    else:
        judgement = values[0][1]
        ignored = len(answers) - len(values)
        notes.append(
            f"tagged: {judgement}"
            + (f" ({ignored} placeholder <answer> block(s) ignored)" if ignored else "")
            + ("" if values[0][0].closed else " (unclosed <answer>)")
        )
    anchor = chosen.start if chosen else None
    block = _pick(found, "explanation", anchor)
    explanation = (block.content or None) if block else None
    return _finish(judgement, explanation, _pick(found, "edit", anchor), True, notes)


def _finish(
    judgement: bool | None,
    explanation: str | None,
    edit_block: Block | None,
    tagged: bool,
    notes: list[str],
) -> VerifyParse:
    edit = (edit_block.content or None) if edit_block else None
    if edit is not None and judgement is not False:
        notes.append(f"<edit> ignored: the judgement is {judgement}")
        edit = None
    return VerifyParse(judgement, explanation, edit, tagged, "; ".join(notes))
