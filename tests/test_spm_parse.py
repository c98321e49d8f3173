"""SPM-Bench answer parser on tricky replies: what is read, and what is refused."""

from __future__ import annotations

import pytest

from sci_tasks.metrics.reply import NormaliseReply, normalise_reply
from sci_tasks.metrics.spm_parse import ParsedAnswer, label_list, parse_confidence, parse_response

ABCD = ["A", "B", "C", "D"]


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


@pytest.mark.parametrize(
    ("reply", "confidence", "note"),
    [
        ("Answer: A\nConfidence: 0.8", 0.8, "stated"),
        ("Answer: A\nConfidence: .35", 0.35, "stated"),
        ("Answer: A\nConfidence: 80%", 0.8, "stated"),
        ("Answer: A\n**Confidence**: 1", 1.0, "stated"),
        ("Answer: A\nConfidence: 0", 0.0, "stated"),
        ("Answer: A\nconfidence level = 0.25.", 0.25, "stated"),
        ('{"answer": ["A"], "confidence": 0.7}', 0.7, "stated"),
        ('{"answer": ["A"], "confidence": "65%"}', 0.65, "stated"),
        ("Confidence: 0.2\nAnswer: A\nConfidence: 0.9", 0.9, "stated"),  # the last one wins
        ("Answer: A", None, "missing"),
        ("Answer: A\nConfidence: high", None, "missing"),
        ("Answer: A\nConfidence: 85", None, "out of range [0, 1]: 85"),  # not read as 85 %
        ("Answer: A\nConfidence: 1.2", None, "out of range [0, 1]: 1.2"),
        ("Answer: A\nConfidence: -0.1", None, "out of range [0, 1]: -0.1"),
        ("Answer: A\nConfidence: 120%", None, "out of range [0, 1]: 120%"),
        ('{"answer": ["A"], "confidence": true}', None, "not a number: True"),
        ('{"answer": ["A"], "confidence": "sure"}', None, "not a number: 'sure'"),
    ],
)
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
