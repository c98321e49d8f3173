"""The hf backend on a machine without a GPU: ``sci-eval model=hf`` and the README's
``simple_evaluate`` snippet run on the CPU with a fixed batch size (real SmolLM2 weights,
the embedded default's converted folder)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import sci_tasks
from sci_tasks import manifest

from . import smollm2
from .helpers import console_script, loopback_env

pytestmark = pytest.mark.e2e
converted_smollm2 = smollm2.converted_smollm2  # the session's converted weights (a fixture)
README = Path(__file__).resolve().parents[1] / "README.md"
README_MODEL = "Qwen/Qwen2.5-0.5B-Instruct"  # what the README's snippet names


def test_model_hf_runs_on_the_cpu_with_its_fixed_batch(
    tmp_path: Path, converted_smollm2: Path
) -> None:
    out = subprocess.run(
        [console_script("sci-eval"), "model=hf", f"model.args.pretrained={converted_smollm2}",
         "tasks=scimif_chem", "limit=2", "+model.gen_kwargs.max_gen_toks=32", "hydra.run.dir=r"],
        capture_output=True, text=True, cwd=tmp_path, env=loopback_env(tmp_path), timeout=900,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    assert "  backend: hf on cpu\n" in out.stdout
    recorded = manifest.read(tmp_path / "r")
    assert recorded.status == "done"
    assert recorded.config["model"]["batch_size"] == 8  # conf/model/hf.yaml
    (results,) = (tmp_path / "r").rglob("results_*.json")
    config = json.loads(results.read_text(encoding="utf-8"))["config"]
    assert config["device"] == "cpu" and str(config["batch_size"]) == "8"
    # batch_size=auto is for GPUs: refused on the cpu in one line, before the model loads
    out = subprocess.run(
        [console_script("sci-eval"), "model=hf", f"model.args.pretrained={converted_smollm2}",
         "tasks=scimif_chem", "model.batch_size=auto", "hydra.run.dir=auto"],
        capture_output=True, text=True, cwd=tmp_path, env=loopback_env(tmp_path), timeout=300,
    )  # fmt: skip
    assert out.returncode == 1
    assert out.stderr.strip() == (
        "sci-eval: model.batch_size=auto (model/hf.yaml) on cpu: lm-eval's search for the "
        "largest batch is for GPUs; give a number, e.g. model.batch_size=8"
    )
    assert not (tmp_path / "auto").exists()


def readme_snippet() -> str:
    (snippet,) = [
        block
        for block in re.findall(r"^```python\n(.*?)^```", README.read_text("utf-8"), re.S | re.M)
        if "simple_evaluate" in block
    ]
    return snippet


def test_the_readme_snippet_runs_on_the_cpu(tmp_path: Path, converted_smollm2: Path) -> None:
    """As written, with the local model for the hub id, a copy of the bundled samples for
    its data folder, and a limit (what test_readme adds to the sweep)."""
    data = tmp_path / "SciMIF"
    shutil.copytree(Path(sci_tasks.__file__).parent / "benchmarks" / "scimif" / "samples", data)
    snippet = readme_snippet()
    assert README_MODEL in snippet and '"/data/SciMIF"' in snippet
    code = (
        snippet.replace(README_MODEL, str(converted_smollm2))
        .replace('"/data/SciMIF"', repr(str(data)))
        .replace(
            'tasks=["scimif_chem"],',
            'tasks=["scimif_chem"], limit=2, gen_kwargs="max_gen_toks=32",',
        )
    )
    shown = "results['n-samples']['scimif_chem']['effective'], results['config']['device']"
    code += f"\nprint('N', {shown})\n"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
        env=loopback_env(tmp_path), timeout=900,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "N 2 cpu"
