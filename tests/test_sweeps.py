"""sci-eval as the main job: composed lm-eval arguments (vLLM included), sweeps through real
launchers, manifests and replay, and resuming after a killed run. The model is a real
OpenAI-compatible server on loopback (llm-katan, echo backend: deterministic)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from hydra import compose, initialize_config_module

import sci_tasks
from sci_tasks import manifest
from sci_tasks.run.evaluate import lm_eval_arguments

from .helpers import console_script
from .servers import KATAN_KEY, Katan, katan

# bundled chemistry + biology records, counted from the files
SCIMIF_TEXT_SAMPLES = sum(
    len(
        (Path(sci_tasks.__file__).parent / "benchmarks" / "scimif" / "samples" / name)
        .read_text()
        .splitlines()
    )
    for name in ("chemistry.jsonl", "life.jsonl")
)


def compose_config(tmp_path: Path, *overrides: str) -> Any:
    """The composed sci-eval config (SCI_TASKS_CACHE points into tmp_path, see _cache)."""
    with initialize_config_module(config_module="sci_tasks.conf", version_base="1.3"):
        return compose(config_name="config", overrides=list(overrides))


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCI_TASKS_CACHE", str(tmp_path / "cache"))


def test_vllm_arguments_are_composed_for_lm_eval(tmp_path: Path) -> None:
    cfg = compose_config(
        tmp_path,
        "model=vllm",
        "model.args.pretrained=Qwen/Qwen2.5-7B-Instruct",
        "model.args.tensor_parallel_size=4",
        "model.args.data_parallel_size=2",
        "model.args.gpu_memory_utilization=0.85",
        "model.args.max_model_len=16384",
        "tasks=scimif",
    )
    args = lm_eval_arguments(cfg)
    assert args["model"] == "vllm"
    assert args["model_args"] == {
        "pretrained": "Qwen/Qwen2.5-7B-Instruct",
        "dtype": "auto",
        "tensor_parallel_size": 4,
        "data_parallel_size": 2,
        "gpu_memory_utilization": 0.85,
        "max_model_len": 16384,
        "seed": 1234,
        "download_dir": str(tmp_path / "cache" / "models" / "Qwen__Qwen2.5-7B-Instruct"),
    }
    assert args["tasks"] == ["scimif"] and args["batch_size"] == "auto"
    assert args["apply_chat_template"] is True and args["random_seed"] == 1234
    cache = Path(args["use_cache"])
    assert cache.parent == tmp_path / "cache" / "responses" / "Qwen__Qwen2.5-7B-Instruct"


def test_vllm_vlm_adds_the_image_limit(tmp_path: Path) -> None:
    cfg = compose_config(
        tmp_path,
        "model=vllm_vlm",
        "model.args.pretrained=Qwen/Qwen2.5-VL-7B-Instruct",
        "model.args.max_images=8",
        "tasks=spm_bench",
    )
    args = lm_eval_arguments(cfg)
    assert args["model"] == "vllm-vlm"
    assert args["model_args"]["max_images"] == 8
    assert args["model_args"]["tensor_parallel_size"] == 1
    assert args["model_args"]["download_dir"].endswith("models/Qwen__Qwen2.5-VL-7B-Instruct")
    other = lm_eval_arguments(compose_config(tmp_path, "model=vllm", "model.args.pretrained=a/b"))
    assert Path(other["use_cache"]).parent != cache_parent(args)  # one cache path per model


def cache_parent(args: dict[str, Any]) -> Path:
    return Path(args["use_cache"]).parent


def test_secrets_in_the_config_are_refused(tmp_path: Path) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "SCI_TASKS_CACHE": str(tmp_path / "c")}
    out = subprocess.run(
        [console_script("sci-eval"), "+model.args.api_key=sk-LITERAL0123456789", "hydra.run.dir=r"],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300,
    )  # fmt: skip
    assert out.returncode != 0
    assert "secret value(s) in the config at model.args.api_key" in out.stderr
    assert manifest.redact({"a": {"api_key": "x", "api_key_env": "NAME", "max_tokens": 5}}) == {
        "a": {"api_key": manifest.REDACTED, "api_key_env": "NAME", "max_tokens": 5}
    }


def sci_eval(tmp_path: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "OPENAI_API_KEY": KATAN_KEY,
        "SCI_TASKS_CACHE": str(tmp_path / "cache"),
    }
    out = subprocess.run(
        [console_script("sci-eval"), *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=900,
    )
    if check:
        assert out.returncode == 0, f"{out.stdout[-2000:]}\n{out.stderr[-3000:]}"
    return out


def api_model(server: Katan, **args: Any) -> list[str]:
    extra = [f"model.args.{k}={v}" for k, v in args.items()]
    return [
        "model=local_api",
        f"model.args.model={server.model}",
        f"model.args.base_url={server.chat_url}",
        *extra,
    ]


def results_of(folder: Path) -> dict[str, Any]:
    (path,) = sorted(folder.rglob("results_*.json"))[-1:]
    return json.loads(path.read_text())["results"]


def test_submitit_local_sweep_runs_jobs_and_resumes(tmp_path: Path) -> None:
    with katan(tmp_path, model="model-a") as server:
        args = [
            "-m", "hydra/launcher=submitit_local", "hydra.launcher.timeout_min=10",
            *api_model(server), "tasks=scimif_chem,scimif_bio", "limit=2", "sweep_name=s1",
        ]  # fmt: skip
        sci_eval(tmp_path, *args)
        sweep = tmp_path / "sci-eval-sweeps" / "s1"
        jobs = sorted(p for p in sweep.iterdir() if p.is_dir() and not p.name.startswith("."))
        assert [j.name.rsplit("__", 1)[0] for j in jobs] == [
            "model-a__scimif_bio",
            "model-a__scimif_chem",
        ]
        for job in jobs:
            assert manifest.read(job).status == "done"
            assert results_of(job)
        assert list((sweep / ".submitit").rglob("*_log.out")), "submitit ran the jobs as processes"
        sent = server.requests_received()
        assert sent == 4
        again = sci_eval(tmp_path, *args)  # a re-run of the finished sweep skips every job
        assert server.requests_received() == sent
        assert "already finished" in (
            again.stdout + "".join(p.read_text() for p in sweep.rglob("*_log.out"))
        )


def test_manifest_and_replay_reproduce_the_metrics(tmp_path: Path) -> None:
    with katan(tmp_path, model="model-a") as server:
        sci_eval(
            tmp_path,
            *api_model(server),
            "tasks=scimif_text",
            "limit=3",
            "use_cache=false",
            "hydra.run.dir=first",
        )
        recorded = manifest.read(tmp_path / "first")
        assert recorded.status == "done"
        assert recorded.seeds == {"random": 1234, "numpy": 1234, "torch": 1234, "fewshot": 1234}
        assert set(recorded.task_hashes) == {"scimif_chem", "scimif_bio"}
        assert recorded.data["scimif"]["source"].startswith("bundled scimif samples")
        assert len(recorded.data["scimif"]["sha256"]) == 64
        assert recorded.packages["lm-eval"] and recorded.packages["sci-tasks"]
        assert recorded.config["model"]["api_key_env"] == "OPENAI_API_KEY"
        sci_eval(tmp_path, "--replay", str(tmp_path / "first"), "hydra.run.dir=second")
        assert server.requests_received() == 2 * 6  # no cache: the replay asked the model again
        assert results_of(tmp_path / "second") == results_of(tmp_path / "first")
        assert manifest.read(tmp_path / "second").data == recorded.data


def cached_responses(cache_root: Path) -> int:
    (db,) = list((cache_root / "responses").rglob("*_rank0.db"))
    with sqlite3.connect(db) as con:
        return int(con.execute("SELECT COUNT(*) FROM unnamed").fetchone()[0])


def test_a_killed_run_resumes_from_its_cached_responses(tmp_path: Path) -> None:
    with katan(tmp_path, "--latency-ms", "400", model="model-a") as server:
        args = [*api_model(server, num_concurrent=1), "tasks=scimif_text", "hydra.run.dir=run"]
        env = {
            **os.environ,
            "HF_HUB_OFFLINE": "1",
            "OPENAI_API_KEY": KATAN_KEY,
            "SCI_TASKS_CACHE": str(tmp_path / "cache"),
        }
        proc = subprocess.Popen([console_script("sci-eval"), *args], cwd=tmp_path, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        deadline = time.monotonic() + 300
        while server.requests_received() < 6:
            assert proc.poll() is None and time.monotonic() < deadline, "the run ended too early"
            time.sleep(0.1)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        time.sleep(0.5)  # let the server finish logging an in-flight request
        answered = server.requests_received()
        kept = cached_responses(tmp_path / "cache")
        assert answered - 1 <= kept <= answered  # at most the one in flight at the kill is lost
        assert manifest.read(tmp_path / "run").status == "running"
        sci_eval(tmp_path, *args)
        assert server.requests_received() - answered == SCIMIF_TEXT_SAMPLES - kept
        assert manifest.read(tmp_path / "run").status == "done"
        assert set(results_of(tmp_path / "run")) == {"scimif_chem", "scimif_bio"}


def test_packaged_configs_are_reusable_from_a_users_config_folder(tmp_path: Path) -> None:
    """A lab's own folder adds a model next to ours (--config-dir) or builds its own primary
    config on ours through Hydra's pkg:// search path, as the README shows."""
    (tmp_path / "lab" / "model").mkdir(parents=True)
    (tmp_path / "lab" / "model" / "lab_server.yaml").write_text(
        "defaults:\n  - local_api\n  - _self_\nargs:\n  model: lab-model\n"
        "  base_url: http://127.0.0.1:9/v1/chat/completions\n"
    )
    (tmp_path / "lab" / "lab.yaml").write_text(
        "defaults:\n  - config\n  - override model: lab_server\n  - _self_\n"
        "hydra:\n  searchpath:\n    - pkg://sci_tasks.conf\n"
        "tasks:\n  name: lab_mix\n  names: [scimif_chem, spm_bench_stm]\n"
    )
    out = sci_eval(
        tmp_path, "--config-dir", "lab", "--config-name", "lab", "--cfg", "job", "--resolve"
    )
    assert "model: lab-model" in out.stdout and "backend: local-chat-completions" in out.stdout
    assert "- spm_bench_stm" in out.stdout and "judge:" in out.stdout
