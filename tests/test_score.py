"""Judging as its own stage (`sci-score`) on real lm-eval outputs, and no key in any output.

The model is an OpenAI-compatible server on loopback (llm-katan, echo backend) driven by
stock lm-eval's `local-chat-completions`; a second llm-katan serves as the judge. The plain
run (no judge, its data folder deleted after it) is made once for the module; each test
that re-scores it works on its own copy."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

import sci_tasks
from sci_tasks.metrics.constraints import registry
from sci_tasks.metrics.constraints.registry import Kind

from .commands import run_ok as run
from .servers import Katan

MODEL_KEY = "sk-FAKEMODELKEY-0123456789abcdefghij"
JUDGE_KEY = "sk-FAKEJUDGEKEY-9876543210zyxwvutsrq"
API_ARGS = "num_concurrent=2,max_retries=1,tokenized_requests=False"


def base_env() -> dict[str, str]:
    return {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "OPENAI_API_KEY": MODEL_KEY,
        "SCI_TASKS_JUDGE_API_KEY": JUDGE_KEY,
    }


@pytest.fixture()
def env() -> dict[str, str]:
    return base_env()


def lm_eval_run(model: Katan, out: Path, env: dict[str, str], *extra: str) -> None:
    run(
        "lm_eval", "run", "--model", "local-chat-completions",
        "--model_args", f"model={model.model},base_url={model.chat_url},{API_ARGS}",
        "--tasks", "scimif_chem,scimif_bio", "--include_path", sci_tasks.include_path(),
        "--apply_chat_template", "--limit", "4", "--log_samples", "--output_path", str(out), *extra,
        cwd=out.parent, env=env,
    )  # fmt: skip


def judge_args(judge: Katan, name: str, mode: str, cache: Path) -> list[str]:
    return [
        "judge=local_api",
        f"judge.model={judge.model}",
        f"judge.base_url={judge.base_url}",
        f"judge.name={name}",
        f"judge.structured_output={mode}",
        f"judge.cache_dir={cache}",
        "judge.max_attempts=2",
        "judge.backoff_initial=0.05",
    ]


def judged_constraints(samples_files: list[Path]) -> int:
    count = 0
    for path in samples_files:
        for line in path.read_text().splitlines():
            for item in json.loads(line)["doc"]["instruction_list"]:
                c = registry.resolve(item["instruction_name"])
                count += c is not None and c.kind is Kind.JUDGE
    return count


def rescored(folder: Path) -> dict[str, Any]:
    (path,) = list(folder.rglob("results_*.json"))
    return json.loads(path.read_text())


@pytest.fixture(scope="module")
def plain_run(tmp_path_factory: pytest.TempPathFactory, model: Katan) -> tuple[Path, Path]:
    """Stock lm-eval on a copy of the bundled SciMIF samples, no judge, limit 4; the copy
    is deleted afterwards: (the run's output folder, where its data was)."""
    from sci_tasks.data.locate import samples_dir

    tmp = tmp_path_factory.mktemp("plain-run")
    data = tmp / "data"
    shutil.copytree(samples_dir("scimif"), data)
    lm_eval_run(model, tmp / "run", {**base_env(), "SCIMIF_DATA_DIR": str(data)})
    shutil.rmtree(data)
    return tmp / "run", data


def copy_of(plain_run: tuple[Path, Path], tmp_path: Path) -> Path:
    """This test's own copy of the plain run (its re-scores never meet another test's)."""
    return Path(shutil.copytree(plain_run[0], tmp_path / "run"))


def test_rescoring_with_two_judges_side_by_side_and_no_new_calls(
    tmp_path: Path, env: dict[str, str], plain_run: tuple[Path, Path], judge: Katan
) -> None:
    run_dir = copy_of(plain_run, tmp_path)
    asked = judge.requests_received()  # before this test (the judge serves the module)
    originals = sorted(run_dir.rglob("samples_*.jsonl"))
    assert len(originals) == 2
    expected_calls = judged_constraints(originals)
    assert expected_calls >= 2

    cache = tmp_path / "judge-cache"
    out = run(
        "sci-score",
        f"run_dir={run_dir}",
        *judge_args(judge, "katan-tool", "tool", cache),
        cwd=tmp_path,
        env=env,
    )
    assert "scimif_chem" in out.stdout or "SciMIF chemistry" in out.stdout
    first = rescored(run_dir / "scores" / "katan-tool")
    assert first["rescored"]["judge"]["model"] == "judge-model"
    # one call per judged constraint, plus extraction calls where a rule found no span
    calls = first["rescored"]["judge_calls"]
    assert judge.requests_received() - asked == calls >= expected_calls
    assert sorted(first["rescored"]["tasks"]) == ["scimif_bio", "scimif_chem"]
    # stderr from lm-eval where it has one (CSR: nanmean, bootstrapped), else N/A as lm-eval
    chem = first["results"]["scimif_chem"]
    assert isinstance(chem["csr_stderr,none"], float) and chem["csr_stderr,none"] >= 0
    assert chem["drfr_stderr,none"] == "N/A"  # a ratio of sums: no stderr in lm-eval

    # every judged constraint now has a verdict from the judge, with its provenance
    seen = 0
    for path in (run_dir / "scores" / "katan-tool").rglob("samples_*.jsonl"):
        for line in path.read_text().splitlines():
            for v in json.loads(line)["record"]["constraints"]:
                c = registry.resolve(v["name"])
                if c is not None and c.kind is Kind.JUDGE:
                    seen += 1
                    assert v["score"] is not None, v
                    assert v["judge"].startswith("judge-model / judge/scimif_")
    assert seen == expected_calls

    # the original run's unscored count drops by exactly the judged constraints
    (own,) = [p for p in run_dir.rglob("results_*.json") if "scores" not in p.parts]
    original = json.loads(own.read_text())  # the run's own results, not the re-score's
    before = sum(original["results"][t]["unscored,none"] for t in ("scimif_chem", "scimif_bio"))
    after = sum(first["results"][t]["unscored,none"] for t in ("scimif_chem", "scimif_bio"))
    assert before - after == expected_calls

    # re-scoring the same outputs with the same judge: zero new calls, same numbers
    run(
        "sci-score",
        f"run_dir={run_dir}",
        *judge_args(judge, "katan-tool", "tool", cache),
        cwd=tmp_path,
        env=env,
    )
    assert judge.requests_received() - asked == calls
    again = sorted((run_dir / "scores" / "katan-tool").rglob("results_*.json"))[-1]
    assert json.loads(again.read_text())["results"] == first["results"]

    # a second judge writes beside the first; its unparseable replies are unscored, counted
    run(
        "sci-score",
        f"run_dir={run_dir}",
        *judge_args(judge, "katan-echo", "json_schema", cache),
        cwd=tmp_path,
        env=env,
    )
    second = rescored(run_dir / "scores" / "katan-echo")
    assert (
        sum(second["results"][t]["unscored,none"] for t in ("scimif_chem", "scimif_bio")) == before
    )
    assert (run_dir / "scores" / "katan-tool").is_dir()


def test_predict_only_outputs_are_scored_later(
    tmp_path: Path, env: dict[str, str], model: Katan
) -> None:
    run_dir = tmp_path / "run"
    lm_eval_run(model, run_dir, env, "--predict_only")
    run("sci-score", f"run_dir={run_dir}", cwd=tmp_path, env=env)  # judge=none
    results = rescored(run_dir / "scores" / "none")
    for task in ("scimif_chem", "scimif_bio"):
        metrics = results["results"][task]
        assert 0.0 <= metrics["drfr,none"] <= 1.0 and metrics["unscored,none"] >= 1
        assert metrics["sample_len"] == 4


def test_no_key_reaches_any_output_snapshot_or_log(
    tmp_path: Path, env: dict[str, str], model: Katan, judge: Katan
) -> None:
    asked = judge.requests_received()  # before this test (the judge serves the module)
    logs = []
    eval_out = run(
        "sci-eval", "model=local_api", f"model.args.model={model.model}",
        f"model.args.base_url={model.chat_url}", "limit=2", "hydra.run.dir=eval",
        *judge_args(judge, "katan-tool", "tool", tmp_path / "cache"),
        cwd=tmp_path, env=env,
    )  # fmt: skip
    logs += [eval_out.stdout, eval_out.stderr]
    echo_judge = judge_args(judge, "katan-echo", "json_schema", tmp_path / "cache")
    score_out = run("sci-score", f"run_dir={tmp_path / 'eval'}", *echo_judge, cwd=tmp_path, env=env)
    logs += [score_out.stdout, score_out.stderr]
    assert judge.requests_received() > asked  # the judge was really used, with the key
    files = [p for p in (tmp_path / "eval").rglob("*") if p.is_file()]
    assert any(p.name == "config.yaml" and p.parent.name == ".hydra" for p in files)
    assert any(p.name.startswith("samples_") for p in files)
    assert any("scores" in p.parts for p in files)
    for key in (MODEL_KEY, JUDGE_KEY):
        for path in files:
            assert key not in path.read_text(errors="replace"), path
        for text in logs:
            assert key not in text


def test_stock_lm_eval_takes_the_judge_from_metadata(
    tmp_path: Path, env: dict[str, str], model: Katan, judge: Katan
) -> None:
    asked = judge.requests_received()  # before this test (the judge serves the module)
    settings = {
        "model": judge.model,
        "base_url": judge.base_url,
        "api_key_env": "SCI_TASKS_JUDGE_API_KEY",
        "structured_output": "tool",
        "cache": False,
    }
    metadata = json.dumps({"judge": settings})
    lm_eval_run(model, tmp_path / "run", env, "--metadata", metadata)
    assert judge.requests_received() > asked
    verdicts = [
        v
        for path in (tmp_path / "run").rglob("samples_*.jsonl")
        for line in path.read_text().splitlines()
        for v in json.loads(line)["record"]["constraints"]
    ]
    judged = [v for v in verdicts if v["judge"]]
    assert judged and all(v["judge"].startswith("judge-model / judge/") for v in judged)
    results = json.loads(next((tmp_path / "run").rglob("results_*.json")).read_text())
    recorded = results["configs"]["scimif_chem"]["metadata"]["judge"]
    assert recorded["api_key_env"] == "SCI_TASKS_JUDGE_API_KEY" and JUDGE_KEY not in json.dumps(
        results
    )


def test_rescoring_needs_no_data_location_and_gives_the_run_s_numbers(
    tmp_path: Path, env: dict[str, str], plain_run: tuple[Path, Path]
) -> None:
    """Scoring reads the logged documents: the run's data folder may be gone (or a hub id
    unreachable offline) when sci-score runs, and without a judge it scores as the run did."""
    run_dir, data = copy_of(plain_run, tmp_path), plain_run[1]
    assert not data.exists()  # the run's data folder is gone, its variable still names it
    env = {**env, "SCIMIF_DATA_DIR": str(data)}
    run("sci-score", f"run_dir={run_dir}", cwd=tmp_path, env=env)  # judge=none
    (original,) = [p for p in run_dir.rglob("results_*.json") if "scores" not in p.parts]
    before = json.loads(original.read_text())["results"]
    after = rescored(run_dir / "scores" / "none")["results"]
    for task in ("scimif_chem", "scimif_bio"):
        for metric in ("csr,none", "isr,none", "drfr,none", "unscored,none"):
            assert after[task][metric] == before[task][metric], (task, metric)
