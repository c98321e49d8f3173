"""Copying the question is not compliance (issue: an echoed prompt passed most method
constraints and some unit and wrap-up constraints, because the required names stand in the
question). Text a response copies from the question, in runs of six or more words, is
removed before any checker looks (``text.strip_copied``, applied once in the registry)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import sci_tasks
from sci_tasks.metrics.constraints.registry import CheckInput, evaluate, resolve
from sci_tasks.metrics.constraints.text import strip_copied

from .helpers import console_script
from .servers import katan

QUESTION = (
    "A 2.0 L vessel holds 0.50 mol of an ideal gas at 300 K. Calculate the pressure using the "
    "ideal gas law. Express the answer in kPa and wrap the final answer in \\boxed{}."
)


def test_a_restated_question_is_removed_and_own_work_kept() -> None:
    response = QUESTION + "\nUsing PV = nRT: P = 0.50 * 8.314 * 300 / 0.0020 = 623.6 kPa."
    own, removed = strip_copied(response, QUESTION)
    assert removed == len(QUESTION)
    assert own.strip() == "Using PV = nRT: P = 0.50 * 8.314 * 300 / 0.0020 = 623.6 kPa."
    # short overlaps (a unit, a method's name) are the response's own words
    assert strip_copied("by the ideal gas law, 623.6 kPa", QUESTION) == (
        "by the ideal gas law, 623.6 kPa",
        0,
    )


def test_an_echoed_question_satisfies_nothing_it_names() -> None:
    for name, params in (
        ("chemistry_method_constraint", "ideal gas law"),
        ("chemistry_unit_consistency", "kPa"),
        ("general_wrap_up", "\\boxed{}"),
    ):
        echoed = evaluate(name, CheckInput(f"User: {QUESTION}", params, QUESTION))
        assert echoed.score == 0.0, (name, echoed.reason)
        assert f"{len(QUESTION)} characters copied from the question" in echoed.reason
    own = CheckInput(
        f"{QUESTION}\nBy the ideal gas law, P = nRT/V = 623.6 kPa. \\boxed{{623.6 kPa}}",
        "\\boxed{}",
        QUESTION,
    )
    assert evaluate("general_wrap_up", own).score == 1.0


def test_an_echo_server_passes_no_method_unit_or_wrap_up_constraint(tmp_path: Path) -> None:
    """Stock lm_eval against llm-katan's echo backend, which answers with the prompt: over
    every text-only bundled sample, no constraint that names something the question also
    names (methods, units, wrappers) is passed by the echo."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "OPENAI_API_KEY": "x"}
    out = tmp_path / "run"
    with katan(tmp_path) as model:
        done = subprocess.run(
            [
                console_script("lm_eval"), "run", "--model", "local-chat-completions",
                "--model_args",
                f"model={model.model},base_url={model.chat_url},num_concurrent=4,"
                "max_retries=1,tokenized_requests=False",
                "--tasks", "scimif_chem,scimif_bio", "--include_path", sci_tasks.include_path(),
                "--apply_chat_template", "--log_samples", "--output_path", str(out),
            ],
            capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    checked = 0
    for path in out.rglob("samples_scimif_*.jsonl"):
        for line in path.read_text().splitlines():
            sample = json.loads(line)
            assert sample["resps"][0][0].startswith("[echo]")  # really the echoed prompt
            for verdict in sample["record"]["constraints"]:
                name = verdict["constraint"] or ""
                if verdict["group"] in ("Method", "Unit") or name == "general_wrap_up":
                    checked += 1
                    assert verdict["score"] != 1.0, (sample["doc"]["id"], verdict)
    assert checked == _named_constraints(("chemistry.jsonl", "life.jsonl")) > 0


def _named_constraints(files: tuple[str, ...]) -> int:
    """Method, unit and wrap-up constraints in the bundled sample files (from the files)."""
    folder = Path(sci_tasks.__file__).parent / "benchmarks" / "scimif" / "samples"
    count = 0
    for name in files:
        for line in (folder / name).read_text().splitlines():
            for item in json.loads(line)["instruction_list"]:
                found = resolve(item["instruction_name"])
                if found and (
                    found.group.value in ("Method", "Unit") or found.name == "general_wrap_up"
                ):
                    count += 1
    return count
