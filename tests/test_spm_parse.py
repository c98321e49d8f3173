"""SPM-Bench answer parser on tricky replies: what is read, and what is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sci_tasks.benchmarks.spm_bench.parse import (
    ParsedAnswer,
    label_list,
    parse_confidence,
    parse_response,
)
from sci_tasks.metrics.reply import NormaliseReply, normalise_reply

ABCD = ["A", "B", "C", "D"]
CASES = Path(__file__).parent / "cases"


def read(reply: str | None, options: list[str]) -> ParsedAnswer:
    """What scoring reads: the parser on the reply as the task's filter leaves it."""
    return parse_response(normalise_reply(reply or ""), options)


@pytest.mark.parametrize(
    ("reply", "labels", "how"),
    [
        # labels in prose, without an Answer: line
        ("I think A and C are correct.", ("A", "C"), "prose"),
        ("After comparing the images, the correct options are B and D.", ("B", "D"), "prose"),
        ("The answer is B.", ("B",), "prose"),
        ("I choose A, C and D.", ("A", "C", "D"), "prose"),
        ("Option A is wrong; the correct options are B and D.", ("B", "D"), "prose"),
        # the whole reply is a list
        ("A and C", ("A", "C"), "bare list"),
        ("A, C", ("A", "C"), "bare list"),
        ("a, c", ("A", "C"), "bare list"),
        ("(B)", ("B",), "bare list"),
        # explicit Answer: lines
        ("Reasoning...\nAnswer: A, C", ("A", "C"), "answer line"),
        ("Answer: AC", ("A", "C"), "answer line"),
        ("Answer: A and C", ("A", "C"), "answer line"),
        ("answer: a, c", ("A", "C"), "answer line"),
        ("Answer: C, A, A", ("A", "C"), "answer line"),  # order and repeats do not matter
        ("**Answer:** (A), (C)", ("A", "C"), "answer line"),
        ("**Final answer**: [A; D]", ("A", "D"), "answer line"),
        ("Answer:\n  B, C\nConfidence: 0.5", ("B", "C"), "answer line"),  # list on the next line
        ("Answer: A. The lattice is hexagonal.", ("A",), "answer line"),  # explanation after
        ("Answer: B, D (both describe the step)", ("B", "D"), "answer line"),
        ("Answer: both A and C", ("A", "C"), "answer line"),
        ("Answer: A and C are correct", ("A", "C"), "answer line"),  # prose inside the line
        # JSON
        ('{"answer": ["A","C"], "confidence": 0.7}', ("A", "C"), "json"),
        ('```json\n{"answer": "B, D", "confidence": "60%"}\n```', ("B", "D"), "json"),
        ('{"reasoning": "see image 2", "Answer": ["c"]}', ("C",), "json"),
        # the last explicit statement wins
        (
            "Answer: A\nOn reflection the vacancy matters too.\nAnswer: A, B",
            ("A", "B"),
            "answer line",
        ),
        ('Answer: A\n{"answer": ["B"]}', ("B",), "json"),
        ('{"answer": ["B"]}\nFinal answer: D', ("D",), "answer line"),
        # reasoning blocks are not read
        ("<think>Answer: A</think>\nAnswer: C", ("C",), "answer line"),
    ],
)
def test_readable_replies(reply: str, labels: tuple[str, ...], how: str) -> None:
    parsed = read(reply, ABCD)
    assert (parsed.labels, parsed.parsed, parsed.how) == (labels, True, how), parsed.note


@pytest.mark.parametrize(
    ("reply", "note"),
    [
        ("", "no answer found"),
        (None, "no answer found"),
        ("ATOM", "no answer found"),  # "A" inside a word is not a label
        ("A vacancy is visible near the centre.", "no answer found"),  # the article
        ("The film has a grain size of about a micrometre.", "no answer found"),  # article "a"
        ("Neither A nor C is correct.", "no answer found"),  # negated
        ("A is not correct.", "no answer found"),
        ("Options A or C could both fit.", "no answer found"),  # hedging is no selection
        # labels outside the option set make the answer unparsed
        ("Answer: A, E", "label(s) E not among the options A, B, C, D"),
        ('{"answer": ["A", "F"]}', "label(s) F not among the options A, B, C, D"),
        ("I think A and E are correct.", "label(s) E not among the options A, B, C, D"),
        # an unreadable LAST statement is not replaced by an earlier one
        ("Answer: A, C\nAnswer: I am not sure", "last answer line unreadable: 'I am not sure'"),
        ("Answer: <the labels of all options you select>", "last answer line unreadable"),
        ("Answer: ACE", "last answer line unreadable"),  # not a run of option labels A-D
        ('{"answer": 3}', "last json unreadable"),
        ("Answer: none of them", "last answer line unreadable"),
        ("<think>Answer: A, C</think>", "no answer found"),  # only inside the reasoning
    ],
)
def test_unreadable_replies_are_empty_and_unparsed(reply: str | None, note: str) -> None:
    parsed = read(reply, ABCD)
    assert parsed.labels == () and not parsed.parsed
    assert parsed.note.startswith(note), parsed.note


def test_options_beyond_d_are_labels() -> None:
    six = ["A", "B", "C", "D", "E", "F"]
    assert read("Answer: A, E", six).labels == ("A", "E")
    assert read("Answer: ACE", six).labels == ("A", "C", "E")


# (reply, confidence, note): how a stated confidence is read, and what is not one; each
# row of the case file says why (its "why")
CONFIDENCES = [
    (row["reply"], row["confidence"], row["note"])
    for row in map(json.loads, (CASES / "spm_confidences.jsonl").read_text().splitlines())
]


@pytest.mark.parametrize(("reply", "confidence", "note"), CONFIDENCES)
def test_confidence(reply: str, confidence: float | None, note: str) -> None:
    parsed = read(reply, ABCD)
    assert parsed.confidence == (pytest.approx(confidence) if confidence is not None else None)
    assert parsed.confidence_note == note


def test_confidence_is_read_even_when_the_answer_is_not() -> None:
    parsed = read("Answer: ???\nConfidence: 0.4", ABCD)
    assert not parsed.parsed and parsed.confidence == 0.4
    assert parse_confidence("nothing") == (None, "missing")


def test_helpers() -> None:
    assert normalise_reply("<think>x</think> A") == "A"
    assert normalise_reply("half-open reasoning </think> Answer: B") == "Answer: B"
    # in prose mode only capital single letters are labels
    assert label_list("a, c", ABCD, lenient=False) is None
    assert label_list("A, C", ABCD, lenient=False) == ("A", "C")
    assert label_list("AC", ABCD, lenient=False) is None


# --- the output forms shared with SciGen-Verify: tags, JSON, reasoning ----------------------

# (reply, labels, how, confidence); labels () = unparsed
FORMS: list[tuple[str, tuple[str, ...], str, float | None]] = [
    # answer tags, the paper spelling and the short one, with a confidence tag
    ("<answer>A, C</answer>", ("A", "C"), "answer tag", None),
    ("<think>Step edges run along B.</think><answer>B</answer><confidence>0.9</confidence>",
     ("B",), "answer tag", 0.9),
    ("<a>a, c</a><confidence>75%</confidence>", ("A", "C"), "answer tag", 0.75),
    ("< ANSWER >AC</ANSWER>", ("A", "C"), "answer tag", None),
    ("<answer>B, D", ("B", "D"), "answer tag", None),  # truncated after the list
    ("<answer>(A) and (D)</answer><explanation>Both show the moire.</explanation>",
     ("A", "D"), "answer tag", None),
    # the JSON reply {"answer": [...], "confidence": ...}, bare or fenced
    ('```json\n{"answer": ["B", "D"], "confidence": 0.65}\n```', ("B", "D"), "json", 0.65),
    ('{"answer": "A, C", "confidence": "80%"}', ("A", "C"), "json", 0.8),
    ('{"a": ["c"], "confidence": 0.5}', ("C",), "json", 0.5),
    # the last statement wins across forms (a revised answer)
    ("Answer: A\nOn reflection the terraces rule it out.\n<answer>C</answer>", ("C",),
     "answer tag", None),
    # text before an unclosed <think> is the answer; after it, reasoning
    ("Answer: A, C\nConfidence: 0.6\n<think>double-check", ("A", "C"), "answer line", 0.6),
    # unparsed: only inside reasoning, closed or cut off (an unclosed <think>)
    ("<think>The answer is A, C.\nAnswer: A, C\nConfidence: 0.9", (), "", None),
    ('<think>Draft: {"answer": ["A"], "confidence": 0.9}', (), "", None),
    ("<think>So <answer>B</answer>", (), "", None),
    # unparsed: an unreadable or out-of-set last statement
    ("<answer>the first and third</answer>", (), "", None),
    ("<answer>A, E</answer>", (), "", None),
    ('<answer>A</answer> {"answer": []}', (), "", None),
    ('{"answer": [1, 2], "confidence": 0.3}', (), "", 0.3),
]  # fmt: skip


@pytest.mark.parametrize(("reply", "labels", "how", "confidence"), FORMS)
def test_tags_json_and_reasoning(
    reply: str, labels: tuple[str, ...], how: str, confidence: float | None
) -> None:
    parsed = read(reply, ABCD)
    assert (parsed.labels, parsed.parsed, parsed.how) == (labels, bool(labels), how), parsed.note
    assert parsed.confidence == (pytest.approx(confidence) if confidence is not None else None)


def test_an_answer_inside_an_unclosed_think_is_no_answer() -> None:
    """The bug this fixes: ``<think>`` without ``</think>`` (a reply cut off while thinking)
    used to be read as if it were the final text, so its draft answer scored."""
    reply = "<think>Hexagonal lattice, so A; the step height gives C.\nAnswer: A, C"
    parsed = read(reply, ABCD)
    assert not parsed.parsed and parsed.labels == () and parsed.note == "no answer found"
    assert normalise_reply(reply) == ""
    assert normalise_reply("Answer: B <think>more") == "Answer: B"
    # the parser itself no longer strips: it reads what the filter left
    assert parse_response(reply, ABCD).labels == ("A", "C")
    # the task's filter, as lm-eval applies it after take_first
    assert NormaliseReply().apply([reply, " Answer: B "], [{}, {}]) == ["", "Answer: B"]


# --- forms strong chat models write (each rule: readings and counter-examples) --------------

ABCDE = ["A", "B", "C", "D", "E"]
TABLE = "| Option | Supported? |\n|---|---|\n"

# (reply, labels, how); labels () = unparsed, as a careful reader leaves it
CHAT_FORMS: list[tuple[str, tuple[str, ...], str]] = [
    # \boxed{} is an answer statement; TeX spacing, \text{} and braces are ignored
    ("Cracks, no cracks, ~10 µm.\n\n$$\\boxed{A,\\,B,\\,D}$$", ("A", "B", "D"), "boxed"),
    ("Confidence: 0.8\n\n$$\\boxed{\\text{A, B}}$$", ("A", "B"), "boxed"),
    ("\\boxed{ABC}", ("A", "B", "C"), "boxed"),
    ("$\\boxed{\\textbf{C}}$", ("C",), "boxed"),
    ("\\boxed{x = y}", (), ""),  # a boxed formula, not an answer: the last statement fails
    # a boxed quantity is no selection, so it does not replace the answer before it
    ("Answer: A, C\n\nThe spacing is $\\boxed{0.2\\text{ nm}}$.", ("A", "C"), "answer line"),
    ("Answer: A\n\\boxed{A, F}", (), ""),  # F is not an option
    # "only" around the list
    ("Only option A is correct.\n\n**Answer: A only**", ("A",), "answer line"),
    ("Answer: only B", ("B",), "answer line"),
    ("Answer: A only if the step is real", (), ""),  # a condition, not a list
    # labelled lists: "Correct options:", "Selected:" (not "Incorrect options:")
    ("**Correct Options: A, B**\n\n**Incorrect Options:**\n* **C:** too large", ("A", "B"),
     "answer line"),
    ("Selected options: B, D", ("B", "D"), "answer line"),
    ("Incorrect answers: C, D", (), ""),  # what was rejected is no selection
    ("Rejected options: A\nThe correct options are B and C.", ("B", "C"), "prose"),
    # a label with nothing after it: the labels of the bullet list that follows
    ("**Selected:**\n- (A) Lower terrace left.\n- (B) Edge state.\n- (C) Dark terraces.\n\n"
     "**Rejected:** D (uniform) and E (boundary).", ("A", "B", "C"), "answer line"),
    ("Correct statements:\n* **B:** the step\n* **D:** the vacancy", ("B", "D"), "answer line"),
    ("Selected:\n- A: the lattice\n- the step edge as well", (), ""),  # an item without label
    # items that carry marks: the ones marked positive (an evaluation, not a list of picks)
    ("**Answer:**\n- A: True\n- B: False — no step\n- C: ✓ supported", ("A", "C"),
     "answer line"),
    ("Answer:\n- A: correct\n- B: the step edge", (), ""),  # marked and unmarked items
    ("Answer:\n- (A) ✗\n- (B) ✗", (), ""),  # nothing selected
    # a "Final Answer" heading whose next line reads as an answer
    ("**B is wrong.**\n\n### Final Answer\nThe correct options are **A, B, and C**.",
     ("A", "B", "C"), "answer line"),
    ("**Final Answer**\n**B, D**", ("B", "D"), "answer line"),
    # ... and one whose next line does not read is no statement: the table below decides
    ("## Answer\n" + TABLE + "| A | ✓ |\n| B | ✗ |\n| C | ✓ |\n| D | ✗ |", ("A", "C"), "table"),
    # asides in brackets after labels
    ("Answer: A (cubic habit with sharp edges), C (edge length ≈ 1 µm)", ("A", "C"),
     "answer line"),
    ("Answer: (A), (C)", ("A", "C"), "answer line"),
    ("Answer: A (and maybe C)", ("A",), "answer line"),  # the aside is not a selection
    # ranges of labels
    ("Answer: A–C", ("A", "B", "C"), "answer line"),
    ("Answer: B through D", ("B", "C", "D"), "answer line"),
    ("Answer: C to A", (), ""),  # not an increasing range
    # the complement within the options
    ("Answer: all of the options except D and E.", ("A", "B", "C"), "answer line"),
    ("Answer: all of them", ("A", "B", "C", "D", "E"), "answer line"),
    ("Answer: all of the options except D and F.", (), ""),  # F is not an option
    ("Answer: none of the options", (), ""),
    # JSON answer keys besides "answer"
    ('```json\n{"selected": ["A", "B"], "confidence": 0.9}\n```', ("A", "B"), "json"),
    ('{"selection": "A, C"}', ("A", "C"), "json"),
    ('{"choices": ["B"]}', ("B",), "json"),
    ('{"correct_options": ["A", "D"]}', ("A", "D"), "json"),
    ('{"labels": ["c", "e"]}', ("C", "E"), "json"),
    ('{"selected": ["A", "F"]}', (), ""),  # F is not an option
    ('{"rejected": ["A"]}', (), ""),  # not an answer key
    # "answer" wins over "choices" in one object (the options echoed beside the answer)
    ('{"choices": ["A", "B", "C", "D"], "answer": ["B"]}', ("B",), "json"),
    # prose: Markdown emphasis ignored, "supported", ranges
    ("The answer is **A, B, C**.", ("A", "B", "C"), "prose"),
    ("Statements A and C are supported by the image; B and D are not.", ("A", "C"), "prose"),
    ("Options A through C are supported; D and E are not.", ("A", "B", "C"), "prose"),
    ("Statements A and C are not supported.", (), ""),
    ("Neither A nor C is supported.", (), ""),
    ("Options A-C are correct.", ("A", "B", "C"), "prose"),
    # options judged one by one: all those judged correct, unless one is taken back
    ("* Two fringe sets → **A is correct**.\n* 0.2 nm → **B is correct**, **E is incorrect**."
     "\n* Spots → **C is correct**.\n* No rings, so **D is incorrect**.", ("A", "B", "C"),
     "prose"),
    ("A is correct. Actually, B is correct.", ("B",), "prose"),
    ("A is correct. The answer is A and B. C is correct.", ("C",), "prose"),  # last phrase

    ("The answer is A - B is wrong.", (), ""),  # a spaced dash is no range
    # a table with one row per option and a column of marks
    (TABLE + "| A | ✅ Yes |\n| B | ✅ Yes |\n| C | ❌ No |\n| D | ✅ Yes |\n| E | ❌ No |",
     ("A", "B", "D"), "table"),
    ("| Option | Evaluation |\n|---|---|\n| A | True — round textures |\n"
     "| B | True — 80 nm |\n| C | False — no stripes |\n| D | False — ordered |",
     ("A", "B"), "table"),
    ("| | Correct? | Why |\n|:-:|:-:|---|\n| **(A)** | ✓ | fringes |\n| **(B)** | ✗ | 0.5 nm |",
     ("A",), "table"),
    ("| A | Supported |\n| B | Not supported |\n| C | Supported |", ("A", "C"), "table"),
    (TABLE + "| A | ✓ |\n| B | Partially |\n| C | ✗ |", (), ""),  # a row without a mark
    (TABLE + "| A | ✗ |\n| B | ✗ |", (), ""),  # nothing selected is no answer
    (TABLE + "| A | ✓ |\n| F | ✓ |", (), ""),  # F is not an option
    ("| Option | Spacing |\n|---|---|\n| A | 0.2 nm |\n| B | 1 nm |", (), ""),  # no marks
    ("| Feature | Seen? |\n|---|---|\n| fringes | ✓ |\n| rings | ✗ |", (), ""),  # no labels
    # the last answer wins: a table, then a reconsidered prose answer, and the reverse
    (TABLE + "| A | ✓ |\n| B | ✗ |\n\nOn reflection, the correct options are A and B.",
     ("A", "B"), "prose"),
    ("A is correct.\n\n" + TABLE + "| A | ✓ |\n| B | ✓ |", ("A", "B"), "table"),
]  # fmt: skip


@pytest.mark.parametrize(("reply", "labels", "how"), CHAT_FORMS)
def test_forms_chat_models_write(reply: str, labels: tuple[str, ...], how: str) -> None:
    parsed = read(reply, ABCDE)
    assert (parsed.labels, parsed.parsed, parsed.how) == (labels, bool(labels), how), parsed.note


def test_label_list_ranges_and_only() -> None:
    assert label_list("A-C", ABCD, lenient=False) == ("A", "B", "C")
    assert label_list("B only", ABCD, lenient=True) == ("B",)
    assert label_list("D to B", ABCD, lenient=True) is None


GRAPHENE = [
    "The image shows a honeycomb lattice.",
    "The lattice constant is about 0.25 nm.",
    "The lattice constant is about 0.50 nm.",
    "The surface is reconstructed into a 7x7 cell.",
]


@pytest.mark.parametrize(
    ("reply", "labels", "how"),
    [
        # an Answer: line naming the options by their text, one piece per option
        (
            "Answer: a honeycomb lattice, and a lattice constant of about 0.25 nm",
            ("A", "B"),
            "answer line (option texts)",
        ),
        # one line per option, each marked
        (
            "- Honeycomb lattice — ✔ the hexagons are clear\n"
            "- Lattice constant about 0.25 nm — ✔ ten periods in 2.5 nm\n"
            "- Lattice constant about 0.50 nm — ✘ twice the measured period\n"
            "- 7x7 reconstruction — ✘ no large cell is visible",
            ("A", "B"),
            "marked list",
        ),
    ],
)
def test_options_named_by_their_text(reply: str, labels: tuple[str, ...], how: str) -> None:
    parsed = parse_response(normalise_reply(reply), ABCD, GRAPHENE)
    assert (parsed.labels, parsed.how) == (labels, how)


@pytest.mark.parametrize(
    "reply",
    [
        # the number decides between B and C: a piece without it names neither
        "Answer: a honeycomb lattice, and a lattice constant of a few angstroms",
        # a line without a mark: the list is not read
        "- Honeycomb lattice — ✔\n- Lattice constant about 0.25 nm\n"
        "- Lattice constant about 0.50 nm — ✘\n- 7x7 reconstruction — ✘",
        # without the option texts the parser reads labels only (rule 7 needs them)
    ],
)
def test_option_texts_are_read_conservatively(reply: str) -> None:
    parsed = parse_response(normalise_reply(reply), ABCD, GRAPHENE)
    assert parsed.labels == () and not parsed.parsed


def test_option_texts_need_the_texts() -> None:
    reply = "Answer: a honeycomb lattice, and a lattice constant of about 0.25 nm"
    assert parse_response(reply, ABCD).labels == ()


@pytest.mark.parametrize(
    ("reply", "labels", "confidence"),
    [
        # a terse reply whose last line is only the labels, a confidence in brackets
        ("Honeycomb net, period ≈ 0.25 nm.\n\n**A, B** (confidence 0.8)", ("A", "B"), 0.8),
        # a list of option texts introduced as the selection
        (
            "From the image, these statements are correct:\n\n"
            "* The image shows a honeycomb lattice.\n* The lattice constant is about 0.25 nm.\n\n"
            "There is no 7x7 cell.",
            ("A", "B"),
            None,
        ),
        # a sentence naming the chosen options by their texts, quoted or not
        (
            "Hexagons everywhere, ten periods in 2.5 nm.\n\nThe statements supported by the "
            'image are therefore "The image shows a honeycomb lattice" and "The lattice '
            'constant is about 0.25 nm".',
            ("A", "B"),
            None,
        ),
        (
            "Ten periods in 2.5 nm — not 0.50 nm.\n\nSo the correct statements are: the image "
            "shows a honeycomb lattice, and the lattice constant is about 0.25 nm.",
            ("A", "B"),
            None,
        ),
        # an option text that shares most words with another (1.0 against 0.8 of them)
        (
            "Six-sided outlines.\n\nTherefore, the only statement supported by the image is that "
            "**the image shows a honeycomb lattice**.",
            ("A",),
            None,
        ),
        # "hold" as the predicate; "Final:" as the answer label; "8/10." ends a sentence
        (
            "Fringes at 0.25 nm.\n\nSo statements A and B hold, while C and D don't.",
            ("A", "B"),
            None,
        ),
        ("| A | True |\n\n**Final: A and B.** Confidence: 8/10.", ("A", "B"), 0.8),
        # ... but not when the sentence names what is NOT supported
        ("The incorrect statements are: the lattice constant is about 0.50 nm.", (), None),
        # "A and B are the ones supported" is an assessment like "A and B are supported"
        ("Options A and B are the ones supported by the image.", ("A", "B"), None),
        # a loose list (blank lines between the items), each item an option's quoted text
        # and why
        (
            'The following statements are supported:\n\n1. "The image shows a honeycomb '
            'lattice." — six-fold rings.\n\n2. "The lattice constant is about 0.25 nm." '
            "— ten periods in 2.5 nm.\n\nThe 7x7 cell is not seen.",
            ("A", "B"),
            None,
        ),
        # the same list introduced as what is NOT supported: not a selection
        (
            "From the image, these statements are not supported:\n\n"
            "* The lattice constant is about 0.50 nm.\n* The surface is reconstructed into a "
            "7x7 cell.",
            (),
            None,
        ),
    ],
)
def test_closing_lines_and_introduced_lists(
    reply: str, labels: tuple[str, ...], confidence: float | None
) -> None:
    parsed = parse_response(normalise_reply(reply), ABCD, GRAPHENE)
    assert parsed.labels == labels
    assert parsed.confidence == (pytest.approx(confidence) if confidence is not None else None)
