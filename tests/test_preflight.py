"""One pre-flight for every command: sci-lm-eval checks ``--limit`` and the judge it will
ask (key, server) before lm-eval starts, in one line, as sci-eval does."""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
from pathlib import Path

import pytest

import sci_tasks
from sci_tasks.cli import UsageError, include_our_tasks, output_folder, parse, preflight
from sci_tasks.run.preflight import limit_problem

from .helpers import must_fail
from .misbehaving import refused_url

RUN = ["run", "--model", "hf", "--model_args", "pretrained=x", "--tasks", "scimif_chem"]


@pytest.mark.parametrize(
    ("limit", "problem"),
    [
        (None, None), (3, None), (0.5, None), (1.0, None),
        (0, "0 is not positive (a sample count >= 1, or a fraction such as 0.1)"),
        (-1, "-1 is not positive (a sample count >= 1, or a fraction such as 0.1)"),
        ("abc", "'abc' is not a number"), (True, "True is not a number"),
        (1.5, "1.5 is neither a whole sample count nor a fraction below 1"),
    ],
)  # fmt: skip
def test_limit_problem(limit: object, problem: str | None) -> None:
    assert limit_problem(limit) == problem


def parsed(argv: list[str]) -> argparse.Namespace:
    """``argv`` as sci-lm-eval reads it: by lm-eval's own CLI (HarnessCLI)."""
    return parse(argv)[1]


def test_sci_lm_eval_refuses_a_bad_limit_and_an_unusable_judge_in_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for key in ("SCI_TASKS_JUDGE_MODEL", "SCI_TASKS_JUDGE_BASE_URL", "NOPE_KEY"):
        monkeypatch.delenv(key, raising=False)
    preflight(parsed([*RUN, "--limit", "2"]))  # no judge: nothing else to check
    with pytest.raises(UsageError, match=r"^--limit -1: -1 is not positive"):
        preflight(parsed([*RUN, "--limit", "-1"]))
    with pytest.raises(UsageError, match=r"^--limit 1.5: 1.5 is neither a whole sample count"):
        preflight(parsed([*RUN, "--limit", "1.5"]))
    remote = {
        "model": "gpt-4.1",
        "base_url": "https://api.openai.com/v1",
        "api_key_env": "NOPE_KEY",
    }
    with pytest.raises(UsageError) as refused:
        preflight(parsed([*RUN, "--metadata", json.dumps({"judge": remote})]))
    assert str(refused.value) == (
        "judge.api_key_env: NOPE_KEY is not set (the key for https://api.openai.com/v1); "
        "export it or name another variable"
    )
    url = refused_url()
    monkeypatch.setenv("SCI_TASKS_JUDGE_MODEL", "grader")
    monkeypatch.setenv("SCI_TASKS_JUDGE_BASE_URL", url)
    with pytest.raises(
        UsageError, match=rf"^cannot reach the judge server at {url} \(connection refused\)"
    ):
        preflight(parsed(RUN))
    preflight(parsed([*RUN, "--predict_only"]))  # nothing is scored: the judge is never asked
    preflight(parsed(["ls", "tasks"]))


# --- sci-lm-eval gets sci-eval's pre-flight (issue 31) --------------------------------------


def sci_lm_eval_fails(tmp_path: Path, *args: str, **env: str) -> str:
    """sci-lm-eval's whole output (stdout and stderr); it must exit non-zero, before lm-eval
    built a model or wrote anything."""
    argv = ["sci-lm-eval", *args, "--output_path", str(tmp_path / "out")]
    output = must_fail(tmp_path, argv, timeout=300, **env)
    assert not (tmp_path / "out").exists()
    return output.strip()


MODEL = ["--model", "hf", "--model_args", "pretrained=never-loaded"]


def test_sci_lm_eval_a_task_typo_is_one_line_with_the_closest_names(tmp_path: Path) -> None:
    assert sci_lm_eval_fails(tmp_path, "run", *MODEL, "--tasks", "scimif_chm,arc_easy") == (
        "sci-lm-eval: --tasks: no such task: scimif_chm (did you mean scimif_chem or "
        "scimif_phy or scimif_mat?) (sci-lm-eval ls tasks lists them all)"
    )


def test_sci_lm_eval_bad_data_is_one_line_naming_file_and_line(tmp_path: Path) -> None:
    data = tmp_path / "scimif"
    shutil.copytree(Path(sci_tasks.__file__).parent / "benchmarks" / "scimif" / "samples", data)
    lines = (data / "chemistry.jsonl").read_text().splitlines()
    lines[2] = '{"id": 7, "task": '
    (data / "chemistry.jsonl").write_text("\n".join(lines) + "\n")
    meta = json.dumps({"SCIMIF_DATA_DIR": str(data)})
    # the legacy form (no subcommand) is lm-eval's run too
    assert sci_lm_eval_fails(tmp_path, *MODEL, "--tasks", "scimif_chem", "--metadata", meta) == (
        f"sci-lm-eval: --tasks scimif_chem: DataError: {data}/chemistry.jsonl:3: invalid JSON: "
        "Expecting value (column 19)"
    )


def test_sci_lm_eval_a_backend_without_its_extra_is_one_line(tmp_path: Path) -> None:
    assert importlib.util.find_spec("vllm") is None  # a GPU extra, not installed with [dev]
    out = sci_lm_eval_fails(
        tmp_path, "run", "--model", "vllm", "--model_args", "pretrained=x", "--tasks", "scimif_chem"
    )
    assert out == (
        "sci-lm-eval: --model vllm needs the package vllm: pip install 'sci-tasks[vllm]' on a "
        "GPU machine, or choose another backend"
    )


def test_sci_lm_eval_an_unreachable_hub_is_one_line(tmp_path: Path) -> None:
    hub = refused_url().removesuffix("/v1")
    meta = json.dumps({"SCIMIF_DATA_DIR": "nobody/no-such-data"})
    out = sci_lm_eval_fails(
        tmp_path, "run", *MODEL, "--tasks", "scimif_chem", "--metadata", meta, HF_ENDPOINT=hub,
        HF_HUB_OFFLINE="0", HF_DATASETS_OFFLINE="0",
    )  # fmt: skip
    assert out == (
        f"sci-lm-eval: cannot reach the Hugging Face Hub at {hub} (connection refused): check "
        "the network, or set SCIMIF_DATA_DIR (run settings) to a local folder"
    )


def test_sci_lm_eval_reads_its_command_line_with_lm_evals_own_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """HarnessCLI reads the line (the legacy form without ``run`` too); our task folder is
    its --include_path unless the same folder is given; another folder is one line."""
    legacy = parsed(RUN[1:])
    assert legacy.command == "run" and legacy.tasks == ["scimif_chem"]
    include_our_tasks(legacy)
    assert legacy.include_path == str(Path(sci_tasks.include_path()).resolve())
    again = parsed([*RUN, "--include_path", sci_tasks.include_path(), "-o", "out/r.json"])
    include_our_tasks(again)
    assert again.include_path == sci_tasks.include_path()
    assert output_folder(again) == Path("out")  # a .json path names a file in the folder
    listed = parsed(["ls", "tasks"])
    include_our_tasks(listed)
    assert listed.include_path == legacy.include_path
    with pytest.raises(UsageError, match=r"^sci-lm-eval adds its own --include_path .* so "
                       rf"--include_path {tmp_path} cannot be added"):  # fmt: skip
        include_our_tasks(parsed([*RUN, "--include_path", str(tmp_path)]))
    with pytest.raises(SystemExit) as refused:  # lm-eval's own parser error, as lm_eval says it
        parsed([*RUN, "--limit", "x"])
    assert refused.value.code == 2
    assert "argument --limit/-L: invalid float value: 'x'" in capsys.readouterr().err
