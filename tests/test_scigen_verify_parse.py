"""The SciGen-Verify reply parser on tricky verifier outputs, each with the parse a person
expects: (judgement, explanation, edit, tagged)."""

from __future__ import annotations

import pytest

from sci_tasks.benchmarks.scigen_verify.parse import (
    VerifyParse,
    blocks,
    parse_verification,
    read_answer_value,
    read_judgement,
)
from sci_tasks.metrics.reply import normalise_reply
from sci_tasks.prompts import render


def read(reply: str | None) -> VerifyParse:
    """What scoring reads: the parser on the reply as the task's filter leaves it."""
    return parse_verification(normalise_reply(reply or ""))


def fields(reply: str | None, *names: str) -> tuple[object, ...]:
    return tuple(getattr(read(reply), name) for name in names)


# (reply, judgement, explanation, edit, tagged)
CASES: list[tuple[str | None, bool | None, str | None, str | None, bool]] = [
    # 1. the full template
    (
        "<think>N points down.</think><answer>false</answer>"
        "<explanation>N points down.</explanation><edit>Point N up.</edit>",
        False, "N points down.", "Point N up.", True,
    ),
    # 2. uppercase tags, spaces inside the brackets and around the value
    (
        "< ANSWER >  True \n</ANSWER><Explanation>\n  All three double bonds are there.\n"
        "</Explanation>",
        True, "All three double bonds are there.", None, True,
    ),
    # 3. tags in the wrong order: explanation and edit before the answer
    (
        "<edit>Add the third double bond.</edit><explanation>Only two double bonds."
        "</explanation><answer>false</answer>",
        False, "Only two double bonds.", "Add the third double bond.", True,
    ),
    # 4. an <edit> on a positive answer is ignored
    (
        "<answer>true</answer><explanation>Fine.</explanation><edit>Make the arrows thicker."
        "</edit>",
        True, "Fine.", None, True,
    ),
    # 5. truncated inside the explanation: judgement kept, explanation up to the cut, no edit
    (
        "<think>ok</think><answer>false</answer><explanation>The ring has only",
        False, "The ring has only", None, True,
    ),
    # 6. truncated while thinking: nothing to read
    ("<think>Let me compare the hypotenuse with sqrt(3^2 + 4^2) = 5, so it is", None, None,
     None, False),
    # 7. truncated inside the answer tag: an unclosed but complete value still counts
    ("<answer>false", False, None, None, True),
    # 8. truncated mid-word: unreadable
    ("<answer>fal", None, None, None, True),
    # 9. both values in the answer tag (the prompt's placeholder repeated)
    ("<answer>true|false</answer><explanation>see above</explanation>", None, "see above",
     None, True),
    # 10. two answer tags that disagree
    ("<answer>true</answer> Wait, no. <answer>false</answer>", None, None, None, True),
    # 11. two answer tags that agree; the placeholder one is ignored
    ("<answer>true or false</answer> ... <answer>FALSE</answer><edit>Move Cairo north.</edit>",
     False, None, "Move Cairo north.", True),
    # 12. answer tag with a sentence inside, negated
    ("<answer>It is not true.</answer>", False, None, None, True),
    # 13. answer tag with a Markdown-bold value and punctuation
    ("<answer>**Yes.**</answer>", True, None, None, True),
    # 14. answer tag without a value: the free text is NOT consulted
    ("<answer></answer> The image does not satisfy the instruction.", None, None, None, True),
    # 15. no tags: a leading "No."
    ("No. The benzene ring has only two double bonds.", False,
     "No. The benzene ring has only two double bonds.", None, False),
    # 16. no tags: a leading "Yes,"
    ("Yes, the diagram shows both forces correctly.", True,
     "Yes, the diagram shows both forces correctly.", None, False),
    # 17. no tags: "correct" about a part is not a verdict; the verdict comes later
    ("The weight arrow is correct. However, the image does not satisfy the instruction.", False,
     "The weight arrow is correct. However, the image does not satisfy the instruction.", None,
     False),
    # 18. no tags: "does not satisfy" with a contraction and an adverb
    ("The map doesn't fully satisfy the instruction: Cairo is misplaced.", False,
     "The map doesn't fully satisfy the instruction: Cairo is misplaced.", None, False),
    # 19. no tags: "not true" negation
    ("That the hypotenuse is 7 is not true.", False, "That the hypotenuse is 7 is not true.",
     None, False),
    # 20. no tags: both "true" and "false" mentioned as options, then a verdict
    ("Should the answer be true or false? The answer is false.", False,
     "Should the answer be true or false? The answer is false.", None, False),
    # 21. no tags: both polarities in the only verdict sentence: ambiguous, none
    ("It is correct that the ring is a hexagon, but the image is incorrect.", None,
     "It is correct that the ring is a hexagon, but the image is incorrect.", None, False),
    # 22. no tags: "correct" / "incorrect" as a leading word
    ("Incorrect: the normal force must point up.", False,
     "Incorrect: the normal force must point up.", None, False),
    # 23. no tags: Markdown label
    ("**Answer:** True\n\nThe legs are 3 and 4 and the hypotenuse 5.", True,
     "**Answer:** True The legs are 3 and 4 and the hypotenuse 5.", None, False),
    # 24. no tags: hedged and conditional sentences are skipped; nothing else: none
    ("I cannot tell whether the label is correct. If the arrow pointed up, it would be right.",
     None, "I cannot tell whether the label is correct. If the arrow pointed up, it would be "
     "right.", None, False),
    # 25. no tags: "true north" is not a verdict, "not satisfied" is
    ("The map shows true north at the top. The instruction is not satisfied.", False,
     "The map shows true north at the top. The instruction is not satisfied.", None, False),
    # 26. no tags, but an explanation block: the explanation is that block
    ("<explanation>The graph shows speed, not velocity; it does not satisfy the instruction."
     "</explanation><edit>Draw one straight line.</edit>",
     False, "The graph shows speed, not velocity; it does not satisfy the instruction.",
     "Draw one straight line.", False),
    # 27. reasoning outside <think>, closed by an unopened </think>: only what follows counts
    ("I think it is true... </think>\n<answer>false</answer><explanation>Two bonds."
     "</explanation><edit>Add one.</edit>",
     False, "Two bonds.", "Add one.", True),
    # 28. a verdict only inside <think> does not count
    ("<think>The answer is true.</think>", None, None, None, False),
    # 29. empty and missing replies
    ("", None, None, None, False),
    (None, None, None, None, False),
    # 30. whitespace only
    ("   \n\t ", None, None, None, False),
]  # fmt: skip


# The short tags and the JSON object of verifiers trained on the authors' data (the
# lmms-eval port's output forms), and replies mixing forms.
# (reply, judgement, explanation, edit, form)
FORM_CASES: list[tuple[str, bool | None, str | None, str | None, str]] = [
    # short tags, the full answer of a negative
    ("<think>N is drawn downward.</think><a>false</a><ex>N points down.</ex>"
     "<ed>Point N up.</ed>", False, "N points down.", "Point N up.", "short tags"),
    # short tags: the edit of a positive is dropped (never scored)
    ("<a>true</a><ex>Both forces right.</ex><ed>Make the arrows thicker.</ed>",
     True, "Both forces right.", None, "short tags"),
    # short tags: case, spaces in the brackets, a Markdown value
    ("< A > **True** </A>< EX >All three double bonds.</ EX >", True,
     "All three double bonds.", None, "short tags"),
    # short tags truncated inside the explanation
    ("<a>false</a><ex>The ring has only", False, "The ring has only", None, "short tags"),
    # short-tag placeholder: no judgement, and the free text is not consulted
    ("<a>true|false</a> The image does not satisfy the instruction.", None, None, None, ""),
    # paper answer tag with short explanation / edit tags: one judgement, one form
    ("<answer>false</answer><ex>Two double bonds.</ex><ed>Add the third.</ed>", False,
     "Two double bonds.", "Add the third.", "tags"),
    # a JSON object, bare
    ('{"answer": false, "explanation": "N points down.", "edit": "Point N up."}', False,
     "N points down.", "Point N up.", "json"),
    # a JSON object in a code fence after some prose; a null edit
    ('Checking the arrows.\n```json\n{"answer": true, "explanation": "Both forces right.", '
     '"edit": null}\n```', True, "Both forces right.", None, "json"),
    # JSON answer as a word, keys in another case, the port's short "ed" key
    ('{"Answer": "False", "explanation": "Cairo is misplaced.", "ed": "Move Cairo north."}',
     False, "Cairo is misplaced.", "Move Cairo north.", "json"),
    # JSON: the edit of a positive is dropped
    ('{"answer": true, "explanation": "Fine.", "edit": "Thicker arrows."}', True, "Fine.",
     None, "json"),
    # JSON placeholder answer: no judgement, the free text is not consulted
    ('{"answer": "true or false", "explanation": "..."} The image satisfies the instruction.',
     None, "...", None, ""),
    # JSON answer that is a number: unreadable
    ('{"answer": 1, "explanation": "ok"}', None, "ok", None, ""),
    # JSON only inside reasoning, closed or cut off: no answer
    ('<think>{"answer": true, "explanation": "ok"}</think>', None, None, None, ""),
    ('<think>Draft: {"answer": true, "explanation": "ok"}', None, None, None, ""),
    # the prompt's placeholder echoed, then a JSON answer: the JSON is the only judgement
    ('<answer>true or false</answer>\n{"answer": false, "explanation": "x", "edit": "y"}',
     False, "x", "y", "json"),
    # two JSON objects that agree (a restatement)
    ('{"answer": false, "explanation": "x", "edit": "y"} {"answer": "no"}', False, "x", "y",
     "json"),
    # mixed forms, even when they agree: no judgement
    ('<a>true</a><ex>ok</ex> {"answer": true, "explanation": "ok"}', None, "ok", None, ""),
    ("<answer>false</answer><a>false</a><ex>Two bonds.</ex>", None, "Two bonds.", None, ""),
    # contradictory answers within one form or across forms: no judgement
    ("<a>true</a><a>false</a>", None, None, None, ""),
    ('{"answer": true} {"answer": false}', None, None, None, ""),
    ('<answer>true</answer>{"answer": false, "edit": "Fix it."}', None, None, None, ""),
    # an HTML link is not a short tag: free text decides
    ('<a href="https://x.org">source</a> The image satisfies the instruction.', True,
     '<a href="https://x.org">source The image satisfies the instruction.', None,
     "free text"),
]  # fmt: skip


@pytest.mark.parametrize(("reply", "judgement", "explanation", "edit", "form"), FORM_CASES)
def test_short_tags_json_and_mixed_forms(
    reply: str, judgement: bool | None, explanation: str | None, edit: str | None, form: str
) -> None:
    expected = (judgement, explanation, edit, form)
    assert fields(reply, "judgement", "explanation", "edit", "form") == expected, read(reply).note


@pytest.mark.parametrize(("reply", "judgement", "explanation", "edit", "tagged"), CASES)
def test_reply_parses_as_expected(
    reply: str | None,
    judgement: bool | None,
    explanation: str | None,
    edit: str | None,
    tagged: bool,
) -> None:
    expected = (judgement, explanation, edit, tagged, judgement is not None)
    got = fields(reply, "judgement", "explanation", "edit", "tagged", "parsed")
    assert got == expected, read(reply).note


def test_notes_say_why() -> None:
    assert parse_verification("<answer>true</answer><answer>no</answer>").note == (
        "conflicting answers (tags)"
    )
    assert parse_verification('<a>true</a>{"answer": true}').note == (
        "judgement given in more than one form (json, short tags)"
    )
    assert "none reads as true or false" in parse_verification("<answer>maybe</answer>").note
    assert "edit ignored" in parse_verification("<answer>yes</answer><edit>x</edit>").note
    assert "edit ignored" in parse_verification('{"answer": true, "edit": "x"}').note
    # a reply cut off while thinking: the filter leaves nothing, so nothing is judged
    assert normalise_reply("<think>so, true") == "" and read("<think>so, true").judgement is None
    assert "1 placeholder" in parse_verification("<answer>true or false</answer><answer>no").note


@pytest.mark.parametrize(
    ("content", "value"),
    [
        ("true", True), ("FALSE", False), (" yes ", True), ("No.", False),
        ("correct", True), ("Incorrect", False), ('"false"', False),
        ("not true", False), ("The image satisfies the instruction", True),
        ("true or false", None), ("true/false", None), ("yes|no", None), ("...", None),
        ("", None), ("maybe", None),
    ],
)  # fmt: skip
def test_answer_block_values(content: str, value: bool | None) -> None:
    assert read_answer_value(content) is value


def test_free_text_first_unambiguous_sentence_wins() -> None:
    assert read_judgement("True. Actually, on reflection, false.")[0] is True
    assert read_judgement("Is it right? Yes.")[0] is True  # the question is skipped
    assert read_judgement("No mitochondria are drawn.")[0] is None  # "No" without a stop
    assert read_judgement("Therefore, false.")[0] is False
    assert read_judgement("The final verdict is yes.")[0] is True
    assert read_judgement("The image is not correct.")[0] is False
    assert read_judgement("It is wrong.")[0] is False
    assert read_judgement("The diagram fails to meet the requirement.")[0] is False
    assert read_judgement("The plot meets all the requirements.")[0] is True
    assert read_judgement("where the river meets the sea")[0] is None


def test_reasoning_and_blocks() -> None:
    assert normalise_reply("<think>a</think>b<THINK>c</THINK>d") == "b d"
    assert normalise_reply("x</think>y") == "y"  # before an unopened </think>: reasoning
    assert normalise_reply(normalise_reply(" a <think>b")) == "a"  # idempotent
    found = blocks("<answer>true</answer><explanation>e")
    assert [(b.name, b.content, b.closed) for b in found] == [
        ("answer", "true", True),
        ("explanation", "e", False),
    ]


def test_a_reply_that_repeats_the_prompt_carries_no_judgement() -> None:
    """What an echo server sends back: the prompt's placeholder answer must not count."""
    doc = {"instruction": "Draw benzene.", "images": ["a.png"], "source_images": []}
    echo = "[echo] model=m\nUser: [image:image/png]" + render("scigen_verify.jinja", doc)
    parsed = read(echo)
    assert parsed.judgement is None and parsed.tagged
    assert parsed.edit is None


# Verdicts as chat models write them untagged, and JSON objects keyed by their own names.
# (reply, judgement, form); judgement None = no judgement, as a careful reader leaves it
CHAT_VERDICTS: list[tuple[str, bool | None, str]] = [
    # satisfaction phrases after a label, with or without Markdown
    ("**Verdict:** does not satisfy", False, "free text"),
    ("**Verdict: The image satisfies the instruction.**", True, "free text"),
    # a leading "No" / "Yes" before a dash
    ("No — Cairo is in the wrong place.", False, "free text"),
    ("Yes — it satisfies the instruction.", True, "free text"),
    # check and cross marks decorating a verdict, or alone
    ("✅ Satisfied\n\nBoth arrows start at the centre.", True, "free text"),
    ("❌ Not satisfied\n\n- Nucleus: drawn ✔\n- Mitochondria: missing ✘", False, "free text"),
    ("PASS ✅ — regular hexagon, alternating double bonds.", True, "free text"),
    ("❌ Fail", False, "free text"),
    ("✅", True, "free text"),
    ("❌ — only two double bonds.", False, "free text"),
    ("❌ Yes", None, ""),  # mark and word disagree
    # a checklist's marks are not the verdict; its conclusion is
    ("- ✅ Hexagon\n- ❌ Double bonds\n\nOverall: does not satisfy the instruction.", False,
     "free text"),
    ("- ✅ Hexagon drawn\n- ❌ Only two double bonds", None, ""),
    # pass / fail as a labelled verdict or a leading word
    ("Verdict: FAIL\nMissing: mitochondria (0 of the required 2 drawn).", False, "free text"),
    ("Result: pass", True, "free text"),
    ("Overall, fail.", False, "free text"),
    ("- Passed: hexagon drawn\n- Failed: only two double bonds", None, ""),  # checklist items
    ("PASS/FAIL: PASS", None, ""),  # offers both options
    ("The arrows fail to point up.", None, ""),  # "fail" about a part, not the verdict
    ("The test would pass if the arrow pointed up.", None, ""),
]  # fmt: skip


@pytest.mark.parametrize(("reply", "judgement", "form"), CHAT_VERDICTS)
def test_verdicts_chat_models_write(reply: str, judgement: bool | None, form: str) -> None:
    assert fields(reply, "judgement", "form") == (judgement, form), read(reply).note


# (reply, judgement, explanation, edit)
CHAT_JSON: list[tuple[str, bool | None, str | None, str | None]] = [
    ('{"judgement": "true", "reason": "Legs 3 and 4, hypotenuse 5."}', True,
     "Legs 3 and 4, hypotenuse 5.", None),
    ('{"satisfies": false, "reasoning": "Two double bonds.", "suggested_edit": "Add one."}',
     False, "Two double bonds.", "Add one."),
    ('```json\n{"verdict": "does not satisfy", "rationale": "N points down", "fix": "Flip N."}'
     "\n```", False, "N points down", "Flip N."),
    ('{"is_correct": true, "explanation": "Fine."}', True, "Fine.", None),
    ('{"verdict": "PASS"}', True, None, None),
    # a verdict key whose value reads as nothing: no judgement, the free text not consulted
    ('{"verdict": "see below"} The image satisfies the instruction.', None, None, None),
    # two verdicts in one form that disagree
    ('{"satisfies": true} {"judgement": false}', None, None, None),
    # keys that are not a verdict leave the free text to decide
    ('{"correct": ["legs"], "incorrect": ["hypotenuse"]}\nThe image does not satisfy the '
     "instruction.", False, '{"correct": ["legs"], "incorrect": ["hypotenuse"]} The image does '
     "not satisfy the instruction.", None),
]  # fmt: skip


@pytest.mark.parametrize(("reply", "judgement", "explanation", "edit"), CHAT_JSON)
def test_json_verdict_keys(
    reply: str, judgement: bool | None, explanation: str | None, edit: str | None
) -> None:
    got = fields(reply, "judgement", "explanation", "edit")
    assert got == (judgement, explanation, edit), read(reply).note


@pytest.mark.parametrize(
    ("content", "value"),
    [("pass", True), ("FAILED", False), ("✅", True), ("❌", False), ("pass or fail", None)],
)
def test_answer_block_pass_fail_and_marks(content: str, value: bool | None) -> None:
    assert read_answer_value(content) is value
