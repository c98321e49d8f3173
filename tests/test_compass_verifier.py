"""SciMIF correctness graded by CompassVerifier through stock ``lm_eval``, ``sci-eval`` and
``sci-score`` against real OpenAI-compatible servers on loopback (a stdlib HTTP server
scripted to answer as the verifier does, one answering as the model under test, and an echo
server): no JSON schema, tools or system message reach the verifier, and ``correct`` with
CF / CV / IF / IV, phi, Jaccard and chi-square come out as computed by hand below; a
verifier it cannot use stops ``sci-eval`` before the model; an echo is never graded (the
prompt and the reading of replies: test_compass_verifier_grading.py).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

import sci_tasks
from sci_tasks.benchmarks.scimif.metrics import crossing
from sci_tasks.benchmarks.scimif.report import correctness_table, read_samples
from sci_tasks.prompts import version

from .commands import run_ok
from .compass_verifier_helpers import assert_free_text, gold_of
from .helpers import console_script, judge_settings
from .misbehaving import Reply, completion, refused_url, scripted_server
from .servers import KATAN_KEY, katan

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
