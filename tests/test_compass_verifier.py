"""SciMIF correctness graded by CompassVerifier, a judge role of its own.

* The prompt is CompassVerifier's documented one, character for character: the rendered
  templates are compared with facts written down from open-compass/CompassVerifier
  ``src/prompts.py`` (commit c5d6700ae5a820ed1232c847a57e7060d130b7df), filled by
  ``str.format`` with question "Q", gold answer "G" and response "R".
* The verifier's free-text reply is read as the SciMIF authors' correctness script reads it;
  A = 1, B = C = 0, an unreadable reply is unscored with its reason.
* Against real OpenAI-compatible servers on loopback (a stdlib HTTP server scripted to answer
  as the verifier does, and one answering as the model under test): on stock ``lm_eval``,
  ``sci-eval`` and ``sci-score``, no JSON schema, tools or system message reach the
  verifier, and ``correct`` with CF / CV / IF / IV, phi, Jaccard and chi-square come out as
  computed by hand below.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

import sci_tasks
from sci_tasks.benchmarks.scimif.metrics import crossing, grade_correctness, read_verifier_reply
from sci_tasks.benchmarks.scimif.report import correctness_table, read_samples
from sci_tasks.metrics import judge as judges
from sci_tasks.metrics.judge import JudgeClient, JudgeConfig
from sci_tasks.metrics.judge.client import ReplyError
from sci_tasks.prompts import render, version

from .commands import run_ok
from .helpers import console_script, judge_settings
from .misbehaving import Reply, completion, refused_url, scripted_server
from .servers import KATAN_KEY, katan

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

READ = [  # reply -> (grade, how it was read)
    ("\\boxed{A}", "A", "\\boxed{A}"),
    ("\\boxed{A} - CORRECT", "A", "\\boxed{A}"),
    ("\\boxed{b}", "B", "\\boxed{B}"),  # upper-cased before reading
    ("Final Judgment: \\boxed{C} - INCOMPLETE", "C", "\\boxed{C}"),
    # CoT: the analysis names options; the last box decides
    (
        "The standard answer is option A. (2) ...\nFinal Judgment: \\boxed{B} - INCORRECT",
        "B",
        "\\boxed{B}",
    ),
    ("\\boxed{A} first, then \\boxed{C} - REPETITIVE", "C", "\\boxed{C}"),
    ("A", "A", "letter A"),
    ("B", "B", "letter B"),
    ("C", "C", "letter C"),
    ("A: CORRECT", "A", "letter A"),
    ("c - INVALID", "C", "letter C"),
    ("INCORRECT", "B", "negative keyword 'incorrect'"),
    ("The answer is correct.", "A", "positive keyword 'correct'"),
    ("No.", "B", "negative keyword 'no'"),
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


def gold_of(payload: dict[str, Any]) -> str:
    prompt = payload["messages"][-1]["content"]
    block = prompt.split("<Standard Answer Begin>", 1)[1].split("<Standard Answer End>", 1)[0]
    return block.lstrip(":").strip()


def as_verifier(payload: dict[str, Any]) -> Reply:
    reply = FORMS[gold_of(payload)][0]
    return 200, "application/json", completion(reply, payload["model"])


def assert_free_text(requests: list[dict[str, Any]]) -> None:
    """What reached the verifier: one user message, no system prompt, nothing structured."""
    assert requests
    for payload in requests:
        assert not {"response_format", "tools", "tool_choice", "functions"} & set(payload)
        (message,) = payload["messages"]
        assert message["role"] == "user" and isinstance(message["content"], str)
        assert "<Original Question Begin>" in message["content"]
        assert payload["temperature"] == 0.0


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


# --- 5. end to end: stock lm_eval, sci-eval, sci-score --------------------------------------

# Eight records; the model follows the instruction (all capitals) or not, and the verifier
# grades each answer in one of its forms. (follows, verifier reply, score)
RECORDS = [
    (True, "\\boxed{A}", 1.0),  # CF
    (True, "A", 1.0),  # CF
    (True, "Final Judgment: \\boxed{B} - INCORRECT", 0.0),  # IF
    (True, "C", 0.0),  # IF
    (False, "\\boxed{A} - CORRECT", 1.0),  # CV
    (False, "B", 0.0),  # IV
    (False, "\\boxed{C} - INCOMPLETE", 0.0),  # IV
    (False, "I cannot tell.", None),  # unscored: out of `correct` and of the crossing
]
# By hand, over the 7 graded samples: CF = 2, CV = 1, IF = 2, IV = 2.
#   correct = 3/7; phi = (2*2 - 1*2) / sqrt(3 * 4 * 4 * 3) = 2/12 = 1/6;
#   Jaccard = 2 / (2 + 1 + 2) = 0.4; chi2 = n phi^2 = 7/36; p = erfc(sqrt(chi2 / 2)) (1 dof)
EXPECTED = {
    "n": 7,
    "CF": 2 / 7,
    "CV": 1 / 7,
    "IF": 2 / 7,
    "IV": 2 / 7,
    "phi": 1 / 6,
    "jaccard": 0.4,
    "p_value": math.erfc(math.sqrt(7 / 36 / 2)),
}
CORRECT = 3 / 7


def scimif_records(root: Path) -> Path:
    rows = [
        {
            "id": i,
            "task": "Open_Ended",
            "original_question": f"Name compound R{i}.",
            "edit_question": f"Name compound R{i}. Write the whole response in capital letters.",
            "answer": f"compound-{i}",
            "instruction_list": [
                {
                    "instruction_name": "general_all_uppercase",
                    "source": "added_general",
                    "required_parameters": None,
                }
            ],
        }
        for i in range(1, len(RECORDS) + 1)
    ]
    root.mkdir(parents=True, exist_ok=True)
    (root / "chemistry.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


def model_reply(payload: dict[str, Any]) -> Reply:
    """The model under test: record i's answer, in capitals when it follows."""
    asked = json.dumps(payload["messages"])
    i = next(i for i in range(len(RECORDS), 0, -1) if f"compound R{i}." in asked)
    text = f"The compound is compound-{i}."
    return 200, "application/json", completion(text.upper() if RECORDS[i - 1][0] else text.lower())


def verifier_reply(payload: dict[str, Any]) -> Reply:
    i = int(gold_of(payload).split("-")[1])
    return 200, "application/json", completion(RECORDS[i - 1][1], payload["model"])


@pytest.fixture()
def env(tmp_path: Path) -> dict[str, str]:
    out = {
        **os.environ,
        "OPENAI_API_KEY": "loopback-key",
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "SCI_TASKS_CACHE": str(tmp_path / "cache"),
    }
    for key in [
        k for k in out if k.startswith(("SCI_TASKS_JUDGE_", "SCI_TASKS_CORRECTNESS_JUDGE_"))
    ]:
        out.pop(key)
    return out


def logged(out: Path) -> list[dict[str, Any]]:
    (path,) = list(out.rglob("samples_scimif_chem_*.jsonl"))
    return sorted(
        (json.loads(line) for line in path.read_text().splitlines()), key=lambda s: s["doc"]["id"]
    )


def assert_graded(run: Path, verifier_model: str) -> None:
    """Every sample graded as RECORDS says, by the verifier; the crossing as computed above."""
    samples = logged(run)
    assert [s["doc"]["id"] for s in samples] == list(range(1, len(RECORDS) + 1))
    for sample, (follows, _, score) in zip(samples, RECORDS, strict=True):
        graded = sample["record"]["correctness"]
        assert graded["protocol"] == "compass_verifier"
        assert graded["judge"] == f"{verifier_model} / {version('judge/compass_verifier.jinja')}"
        assert graded["score"] == score, graded
        assert sample["isr"] == (1.0 if follows else 0.0)
        if score is None:
            assert sample["correct"] is None or math.isnan(sample["correct"])
            assert graded["reason"].startswith("unparseable reply: no \\boxed{A|B|C}")
    # sci-report's correctness table (paper Table 14) over the run's samples
    header, row = correctness_table(read_samples(run))
    got = dict(zip(header[1:], row[1:], strict=True))
    assert got["n"] == EXPECTED["n"]
    for key in ("CF", "CV", "IF", "IV", "phi"):
        assert got[key] == pytest.approx(EXPECTED[key], abs=1e-12), key
    assert got["Jaccard"] == pytest.approx(EXPECTED["jaccard"], abs=1e-12)
    assert got["chi2 p-value"] == pytest.approx(EXPECTED["p_value"], abs=1e-12)
    pairs = [(s["record"]["correctness"]["score"], s["isr"]) for s in samples]
    assert crossing(pairs)["chi2"] == pytest.approx(7 / 36, abs=1e-12)


def results_of(run: Path) -> dict[str, Any]:
    (path,) = [p for p in run.rglob("results_*.json")]
    return json.loads(path.read_text())["results"]["scimif_chem"]


def verifier_settings(server_url: str, tmp_path: Path, cache: str) -> dict[str, Any]:
    return {
        "protocol": "compass_verifier",
        **judge_settings("compass-verifier", server_url, tmp_path, max_attempts=2, max_tokens=2048),
        "cache_dir": str(tmp_path / cache),
    }


def test_stock_lm_eval_sci_eval_and_sci_score_grade_with_the_verifier(
    tmp_path: Path, env: dict[str, str]
) -> None:
    data = scimif_records(tmp_path / "scimif")
    with scripted_server(model_reply) as model, scripted_server(verifier_reply) as verifier:
        model_args = (
            f"model=model-under-test,base_url={model.chat_url},num_concurrent=1,"
            "max_retries=1,tokenized_requests=False,max_images=2"
        )
        # stock lm_eval: the role in --metadata, no constraint judge
        meta = {
            "SCIMIF_DATA_DIR": str(data),
            "judge": None,
            "correctness_judge": verifier_settings(verifier.base_url, tmp_path, "cv-lm-eval"),
        }
        run_ok(
            "lm_eval", "--model", "local-chat-completions", "--model_args", model_args,
            "--tasks", "scimif_chem", "--include_path", sci_tasks.include_path(),
            "--apply_chat_template", "--log_samples", "--output_path", str(tmp_path / "lm-eval"),
            "--metadata", json.dumps(meta), cwd=tmp_path, env=env,
        )  # fmt: skip
        assert_graded(tmp_path / "lm-eval", "compass-verifier")
        assert results_of(tmp_path / "lm-eval")["correct,none"] == pytest.approx(CORRECT)
        assert len(verifier.requests) == 7 + 2  # the unreadable reply asked twice
        assert_free_text(verifier.requests)

        # sci-eval: the Hydra group
        verifier.requests.clear()
        out = run_ok(
            "sci-eval", "model=local_api", "model.args.model=model-under-test",
            f"model.args.base_url={model.chat_url}", "tasks=scimif_chem",
            f"data.SCIMIF_DATA_DIR={data}", "hydra.run.dir=eval", "use_cache=false",
            "correctness_judge=compass_verifier", "correctness_judge.model=compass-verifier",
            f"correctness_judge.base_url={verifier.base_url}", "correctness_judge.max_attempts=2",
            f"correctness_judge.cache_dir={tmp_path / 'cv-sci-eval'}",
            cwd=tmp_path, env=env,
        )  # fmt: skip
        assert "  correct: compass_verifier (compass-verifier at" in out.stdout
        assert_graded(tmp_path / "eval", "compass-verifier")
        assert len(verifier.requests) == 9
        assert_free_text(verifier.requests)

        # sci-score: re-grade the stock run's outputs with the verifier (a fresh cache)
        verifier.requests.clear()
        run_ok(
            "sci-score", f"run_dir={tmp_path / 'lm-eval'}", "correctness_judge=compass_verifier",
            "correctness_judge.model=compass-verifier",
            f"correctness_judge.base_url={verifier.base_url}", "correctness_judge.max_attempts=2",
            f"correctness_judge.cache_dir={tmp_path / 'cv-sci-score'}",
            cwd=tmp_path, env=env,
        )  # fmt: skip
        rescored = tmp_path / "lm-eval" / "scores" / "none+compass-verifier"
        assert_graded(rescored, "compass-verifier")
        assert results_of(rescored)["correct,none"] == pytest.approx(CORRECT)
        assert len(verifier.requests) == 9
        assert_free_text(verifier.requests)
    # the model was asked once per record per run that generates (lm_eval, sci-eval)
    assert len(model.requests) == 2 * len(RECORDS)


# --- 6. the role's pre-flight (sci_tasks.app.check_correctness_judge) -----------------------


@pytest.mark.parametrize(
    ("overrides", "said"),
    [
        (
            [f"correctness_judge.base_url={refused_url()}"],
            "cannot reach the correctness judge server at http://127.0.0.1:",
        ),
        (
            [
                "correctness_judge.base_url=https://verifier.example.invalid/v1",
                "correctness_judge.api_key_env=SCI_TASKS_TEST_NO_SUCH_KEY",
            ],
            "correctness_judge.api_key_env: SCI_TASKS_TEST_NO_SUCH_KEY is not set",
        ),
        (
            ["correctness_judge.protocol=boxed"],
            "sci-eval: correctness_judge (correctness_judge/compass_verifier.yaml): "
            "protocol must be one of json_grade, compass_verifier, compass_verifier_cot",
        ),
    ],
)
def test_sci_eval_refuses_a_correctness_judge_it_cannot_use_before_the_model(
    tmp_path: Path, env: dict[str, str], overrides: list[str], said: str
) -> None:
    with scripted_server(model_reply) as model:
        out = subprocess.run(
            [
                console_script("sci-eval"), "model=local_api", "model.args.model=m",
                f"model.args.base_url={model.chat_url}", "tasks=scimif_chem",
                f"data.SCIMIF_DATA_DIR={scimif_records(tmp_path / 'scimif')}",
                "hydra.run.dir=run", "correctness_judge=compass_verifier", *overrides,
            ],
            capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300,
        )  # fmt: skip
        assert model.requests == []  # nothing generated
    assert out.returncode != 0
    assert said in out.stderr, out.stderr[-2000:]
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr[-2000:]


# --- 7. an echo is never graded (issue 31) ---------------------------------------------------


def test_an_echo_server_as_the_verifier_leaves_correct_unscored_as_echoed(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """llm-katan's echo backend answers with the prompt it got. Read as the authors' script
    reads it, the echo's last standalone letter (from the prompt's own "A: CORRECT ..."
    lines or the graded response) was a grade; here nothing is read from an echo."""
    data = scimif_records(tmp_path / "scimif")
    with scripted_server(model_reply) as model, katan(tmp_path, model="echo-verifier") as echo:
        out = run_ok(
            "sci-eval", "model=local_api", "model.args.model=model-under-test",
            f"model.args.base_url={model.chat_url}", "tasks=scimif_chem",
            f"data.SCIMIF_DATA_DIR={data}", "hydra.run.dir=eval", "use_cache=false",
            "correctness_judge=compass_verifier", "correctness_judge.model=echo-verifier",
            f"correctness_judge.base_url={echo.base_url}", "correctness_judge.max_attempts=2",
            "correctness_judge.api_key_env=SCI_TASKS_TEST_JUDGE_KEY",
            f"correctness_judge.cache_dir={tmp_path / 'cv-echo'}",
            cwd=tmp_path, env={**env, "SCI_TASKS_TEST_JUDGE_KEY": KATAN_KEY},
        )  # fmt: skip
        assert echo.requests_received() == 2 * len(RECORDS)  # each asked max_attempts times
    assert "  correct: compass_verifier (echo-verifier at" in out.stdout
    for sample in logged(tmp_path / "eval"):
        graded = sample["record"]["correctness"]
        assert (graded["score"], graded["grade"]) == (None, None), graded
        assert graded["reason"].startswith("echoed the prompt (")
        assert graded["reason"].endswith("characters repeat it) (after 2 attempts)")
        assert sample["correct"] is None
    assert results_of(tmp_path / "eval")["correct,none"] is None  # no sample graded


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
