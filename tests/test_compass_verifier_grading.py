"""SciMIF correctness graded by CompassVerifier, a judge role of its own: the prompt and
the reading of its reply (its runs through stock ``lm_eval``, ``sci-eval`` and ``sci-score``:
test_compass_verifier.py).

* The prompt is CompassVerifier's documented one, character for character: the rendered
  templates are compared with facts written down from open-compass/CompassVerifier
  ``src/prompts.py`` (commit c5d6700ae5a820ed1232c847a57e7060d130b7df), filled by
  ``str.format`` with question "Q", gold answer "G" and response "R".
* The verifier's free-text reply is read as the SciMIF authors' correctness script reads it;
  A = 1, B = C = 0, an unreadable reply is unscored with its reason.
* Against a real OpenAI-compatible server on loopback (a stdlib HTTP server scripted to
  answer as the verifier does): A / B / C grade 1 / 0 / 0, no JSON schema, tools or system
  message reach the verifier, and a grade is read from the verifier's own words.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from sci_tasks.benchmarks.scimif.metrics import grade_correctness, read_verifier_reply
from sci_tasks.metrics import judge as judges
from sci_tasks.metrics.judge import JudgeClient, JudgeConfig
from sci_tasks.metrics.judge.client import ReplyError
from sci_tasks.prompts import render, version

from .compass_verifier_helpers import assert_free_text, gold_of
from .helpers import judge_settings
from .misbehaving import Reply, completion, scripted_server

# --- 1. the prompt, compared with the source ------------------------------------------------

# Facts about CV_PROMPT / CV_COT_PROMPT .format(question="Q", gold_answer="G", llm_response="R"),
# written down from the source file: length, SHA-256, first and last characters.
SOURCE_FACTS = {
    "compass_verifier": {
        "length": 2671,
        "sha256": "6b4c19737126514a2384315cd1e5a76be7c56475b6ed7c2f0682f2cf2e3d9c97",
        "starts": "\nPlease as a grading expert, judge whether the final answers given by the "
        "candidates below are consistent with the standard answers, that is, whether the "
        "candidates answered correctly. \n",
        "ends": "<Original Question Begin>:\nQ\n<Original Question End>\n"
        "<Standard Answer Begin>:\nG\n<Standard Answer End>\n"
        "<Candidate's Answer Begin>: \nR\n<Candidate's Answer End>\n"
        "Judging the correctness of the candidate's answer:\n",
        "boxed": 2,  # "\boxed{}" twice in criterion 5 (doubled braces in the source)
    },
    "compass_verifier_cot": {
        "length": 3484,
        "sha256": "8b5b102c48eff7b2e9993648251935a79f986a89a64adf8c380182b295953eb3",
        "starts": "As a grading expert, your task is to determine whether the candidate's final "
        "answer matches the provided standard answer.",
        "ends": "Here is your task.\n<Original Question Begin>\nQ\n<Original Question End>\n\n"
        "<Standard Answer Begin>\nG\n<Standard Answer End>\n\n"
        "<Candidate's Answer Begin>\nR\n<Candidate's Answer End>\n\n"
        "Analysis step by step and Final Judgment:\n",
        "boxed": 6,
    },
}
MARKERS = (
    "<Original Question Begin>",
    "<Original Question End>",
    "<Standard Answer Begin>",
    "<Standard Answer End>",
    "<Candidate's Answer Begin>",
    "<Candidate's Answer End>",
)


@pytest.mark.parametrize("protocol", sorted(SOURCE_FACTS))
def test_the_prompt_is_compass_verifiers_own_character_for_character(protocol: str) -> None:
    facts = SOURCE_FACTS[protocol]
    text = render(
        f"judge/{protocol}.jinja", {"question": "Q", "gold_answer": "G", "llm_response": "R"}
    )
    assert text.startswith(facts["starts"]) and text.endswith(facts["ends"])
    assert len(text) == facts["length"]
    assert hashlib.sha256(text.encode()).hexdigest() == facts["sha256"]
    # each block marker once, in the documented order; str.format's escapes resolved
    positions = [text.index(m) for m in MARKERS]
    assert positions == sorted(positions) and all(text.count(m) == 1 for m in MARKERS)
    assert text.count("\\boxed{") == facts["boxed"] and "{{" not in text and "\\\\" not in text


def test_fields_are_filled_as_they_are() -> None:
    """As str.format fills them: nothing trimmed, Jinja-looking text in a response is text."""
    response = "  {{ not a variable }} {% neither %}\n\\boxed{42}\n"
    text = render(
        "judge/compass_verifier.jinja",
        {"question": " Q? ", "gold_answer": "", "llm_response": response},
    )
    assert f"<Candidate's Answer Begin>: \n{response}\n<Candidate's Answer End>" in text
    assert "<Original Question Begin>:\n Q? \n<Original Question End>" in text
    assert "<Standard Answer Begin>:\n\n<Standard Answer End>" in text


# --- 2. reading the verifier's reply --------------------------------------------------------

CASES = Path(__file__).parent / "cases"
# reply -> (grade, how it was read), as the authors' script reads CompassVerifier's replies
# (boxed letters, the last box deciding, a bare letter, keywords): data in the case file
READ = [
    (row["reply"], row["grade"], row["read_as"])
    for row in map(json.loads, (CASES / "verifier_replies.jsonl").read_text().splitlines())
]
UNREADABLE = ["", "   ", "I am not sure.", "Grade: ?", "DDD"]


@pytest.mark.parametrize(("reply", "grade", "read_as"), READ)
def test_the_reply_is_read_as_the_authors_script_reads_it(
    reply: str, grade: str, read_as: str
) -> None:
    got = read_verifier_reply(reply)
    assert (got["grade"], got["read_as"]) == (grade, read_as)


@pytest.mark.parametrize("reply", UNREADABLE)
def test_a_reply_with_no_grade_is_unreadable(reply: str) -> None:
    with pytest.raises(ReplyError, match="no \\\\boxed\\{A\\|B\\|C\\}, letter or verdict word"):
        read_verifier_reply(reply)


# --- 3. a real server answering as the verifier ---------------------------------------------

# gold answer -> the verifier's reply; every form it documents, with and without the type word
FORMS = {
    "gold-1": ("\\boxed{A}", "A", 1.0),
    "gold-2": ("Analysis step by step: ...\nFinal Judgment: \\boxed{A} - CORRECT", "A", 1.0),
    "gold-3": ("A", "A", 1.0),
    "gold-4": ("\\boxed{B}", "B", 0.0),
    "gold-5": ("Final Judgment: \\boxed{B} - INCORRECT", "B", 0.0),
    "gold-6": ("B", "B", 0.0),
    "gold-7": ("\\boxed{C} - INCOMPLETE", "C", 0.0),
    "gold-8": ("C", "C", 0.0),
    "gold-9": ("I cannot tell.", None, None),  # unreadable: retried, then unscored
}


def as_verifier(payload: dict[str, Any]) -> Reply:
    reply = FORMS[gold_of(payload)][0]
    return 200, "application/json", completion(reply, payload["model"])


@pytest.mark.parametrize("protocol", ["compass_verifier", "compass_verifier_cot"])
def test_a_real_server_grades_a_b_c_as_1_0_0_and_an_unreadable_reply_unscored(
    tmp_path: Path, protocol: str
) -> None:
    with scripted_server(as_verifier) as server:
        config = JudgeConfig.from_mapping(
            judge_settings("verifier", server.base_url, tmp_path, max_tokens=2048)
        )
        client = JudgeClient(config)
        for gold, (_, grade, score) in FORMS.items():
            doc = {"edit_question": f"What is {gold}?", "answer": gold}
            graded = grade_correctness(doc, f"It is {gold}.", client, protocol)
            assert (graded["grade"], graded["score"]) == (grade, score), (gold, graded)
            assert graded["protocol"] == protocol
            assert graded["prompt_version"] == version(f"judge/{protocol}.jinja")
            assert graded["judge"] == f"verifier / {graded['prompt_version']}"
            if score is None:
                assert graded["reason"] == (
                    "unparseable reply: no \\boxed{A|B|C}, letter or verdict word in the "
                    "verifier's reply: 'I cannot tell.' (after 3 attempts)"
                )
            else:
                assert graded["reason"].startswith("read as ")
        assert_free_text(server.requests)
        # 8 readable replies once each, the unreadable one asked max_attempts (3) times
        assert len(server.requests) == 8 + 3 == client.calls
        first = server.requests[0]["messages"][0]["content"]
        assert first == render(
            f"judge/{protocol}.jinja",
            {
                "question": "What is gold-1?",
                "gold_answer": "gold-1",
                "llm_response": "It is gold-1.",
            },
        )
        assert server.requests[0]["max_tokens"] == 2048

        # cached: the same questions again make no request and reach the same grades
        again = JudgeClient(config)
        doc = {"edit_question": "What is gold-5?", "answer": "gold-5"}
        assert grade_correctness(doc, "It is gold-5.", again, protocol)["score"] == 0.0
        assert again.calls == 0


def test_no_reference_answer_is_unscored_without_asking(tmp_path: Path) -> None:
    with scripted_server(as_verifier) as server:
        client = JudgeClient(
            JudgeConfig.from_mapping(judge_settings("v", server.base_url, tmp_path))
        )
        graded = grade_correctness(
            {"edit_question": "Q", "answer": None}, "R", client, "compass_verifier"
        )
        assert (graded["score"], graded["reason"]) == (None, "no reference answer")
        assert server.requests == []


# --- 4. the role: settings, documents, Hydra ------------------------------------------------


def test_the_role_is_resolved_from_metadata_or_the_environment() -> None:
    settings = {"protocol": "compass_verifier", "model": "cv", "base_url": "http://127.0.0.1:9/v1"}
    role = judges.resolve_correctness({"correctness_judge": settings}, environ={})
    assert role is not None and role.protocol == "compass_verifier" and role.judge.model == "cv"
    assert judges.resolve_correctness({"correctness_judge": None}, environ={}) is None
    assert judges.resolve_correctness({"correctness_judge": {"protocol": "same"}}) is None
    environ = {
        "SCI_TASKS_CORRECTNESS_JUDGE_PROTOCOL": "compass_verifier_cot",
        "SCI_TASKS_CORRECTNESS_JUDGE_MODEL": "cv",
        "SCI_TASKS_CORRECTNESS_JUDGE_BASE_URL": "http://127.0.0.1:9/v1",
        "SCI_TASKS_CORRECTNESS_JUDGE_MAX_TOKENS": "2048",
        "SCI_TASKS_CORRECTNESS_JUDGE_API_KEY": "sk-never-read",
    }
    role = judges.resolve_correctness({}, environ=environ)
    assert role is not None and (role.protocol, role.judge.max_tokens) == (
        "compass_verifier_cot",
        2048,
    )
    assert "sk-never-read" not in json.dumps(role.public())
    with pytest.raises(ValueError, match="protocol must be one of json_grade, compass_verifier"):
        judges.resolve_correctness(
            {"correctness_judge": {"protocol": "boxed", "model": "m", "base_url": "u"}}
        )
    with pytest.raises(ValueError, match=r"judge settings \(max_tokens\) need a model"):
        judges.resolve_correctness(
            {"correctness_judge": {"protocol": "compass_verifier", "max_tokens": 9}}
        )

    # a task's settings hold both roles; without a correctness judge the judge grades
    from sci_tasks.run_settings import RunSettings

    judge = JudgeConfig("constraint-judge", "http://127.0.0.1:8/v1")
    both = RunSettings(judge, judges.CorrectnessJudge.from_mapping(settings))
    protocol, config = both.grader()
    assert (protocol, config.model) == ("compass_verifier", "cv")
    assert RunSettings(judge).grader() == ("json_grade", judge)
    # a protocol without a model: the constraint judge's server answers it
    no_model = judges.CorrectnessJudge.from_mapping({"protocol": "compass_verifier"})
    assert RunSettings(judge, no_model).grader() == ("compass_verifier", judge)
    # the settings as the --metadata of a run give the same roles
    metadata = {"judge": judge.public(), "correctness_judge": no_model.settings()}
    assert RunSettings.of_task(metadata, {}).grader() == ("compass_verifier", judge)


def test_the_grade_is_read_from_the_verifiers_own_words_never_from_the_prompts_blocks(
    tmp_path: Path,
) -> None:
    """A chain-of-thought reply that quotes the graded response (with its own \\boxed{C})
    after its verdict: the verdict is the verifier's \\boxed{A}, not the quoted box."""
    response = "After checking every step, the final answer is \\boxed{C} for this one."
    replies = {
        "quotes": "Analysis: the candidate's final answer names the same compound as the "
        "standard answer.\nFinal Judgment: \\boxed{A} - CORRECT\n"
        f"The candidate wrote: {response}",
        "half": "Judgment: THE STANDARD ANSWER IS ALWAYS CORRECT AND THE QUESTION IS VALID.",
    }

    def answer(payload: dict[str, Any]) -> Reply:
        return 200, "application/json", completion(replies[gold_of(payload)], payload["model"])

    with scripted_server(answer) as server:
        config = JudgeConfig.from_mapping(judge_settings("v", server.base_url, tmp_path))
        client = JudgeClient(config)
        quoted = grade_correctness(
            {"edit_question": "Q?", "answer": "quotes"}, response, client, "compass_verifier"
        )
        assert (quoted["grade"], quoted["score"]) == ("A", 1.0)
        assert quoted["reason"].startswith("read as \\boxed{A}")
        # mostly the prompt's own criterion ("... ALWAYS CORRECT ..."): an echo, no keyword
        half = grade_correctness(
            {"edit_question": "Q?", "answer": "half"}, response, client, "compass_verifier"
        )
        assert (half["score"], half["grade"]) == (None, None)
        assert half["reason"].startswith("echoed the prompt (")
