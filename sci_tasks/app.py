"""``sci-eval``: the Hydra app that composes a model backend with a task set and runs lm-eval.

    sci-eval                                   # embedded default: SmolLM2 on CPU, bundled samples
    sci-eval tasks=scimif_chem limit=3
    sci-eval model=hf model.args.pretrained=Qwen/Qwen2.5-0.5B-Instruct
    sci-eval -m model=smollm2_cpu,local_api tasks=scimif_chem,scimif_bio   # cross product
    sci-eval --replay sci-eval-runs/<run>                                  # same run again

Results land in the run folder exactly as lm-eval's CLI writes them
(``<model>/results_*.json`` and ``samples_<task>_*.jsonl``), next to Hydra's ``.hydra/``
config snapshot and ``manifest.json``, and a results table is printed. A sweep's job
folders are named by their overrides; re-running a sweep skips the finished jobs.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

import sci_tasks
from sci_tasks import manifest
from sci_tasks.metrics import judge as judges
from sci_tasks.resolvers import safe_name
from sci_tasks.score import judge_config

log = logging.getLogger("sci_tasks.app")


def plain(node: Any) -> dict[str, Any]:
    """A config mapping as a plain dict (an absent node is empty)."""
    if node is None:
        return {}
    data = OmegaConf.to_container(node, resolve=True)
    assert isinstance(data, dict)
    return {str(k): v for k, v in data.items()}


def run_metadata(cfg: DictConfig) -> dict[str, Any]:
    """Per-run data locations for the tasks (lm-eval ``metadata``); unset ones are left out."""
    return {k: v for k, v in plain(cfg.get("data")).items() if v not in (None, "")}


def is_ours(task: str) -> bool:
    """A task, group or tag defined in the sci-tasks task folder."""
    return str(task) in our_task_names()


@functools.cache
def our_task_names() -> frozenset[str]:
    from lm_eval.tasks import TaskManager

    return frozenset(
        TaskManager(include_path=sci_tasks.include_path(), include_defaults=False).all_tasks
    )


def response_cache(cfg: DictConfig) -> str | None:
    """lm-eval's response cache for this model: one path per model and model arguments, so
    models never share answers and a killed run reuses the responses it already has."""
    if not cfg.get("use_cache", False):
        return None
    model = cfg.model
    identity = json.dumps([model.backend, plain(model.args)], sort_keys=True, default=str)
    digest = hashlib.sha256(identity.encode()).hexdigest()[:12]
    folder = Path(str(cfg.cache_dir)).expanduser() / "responses" / safe_name(str(model.name))
    folder.mkdir(parents=True, exist_ok=True)
    return str(folder / digest)


def lm_eval_arguments(cfg: DictConfig) -> dict[str, Any]:
    """The keyword arguments of ``lm_eval.simple_evaluate`` this config composes (no task
    manager, tracker or judge: those are live objects)."""
    model = cfg.model
    seed = int(cfg.seed)
    return {
        "model": str(model.backend),
        "model_args": plain(model.args),
        "tasks": [str(t) for t in cfg.tasks.names],
        "batch_size": model.get("batch_size", 1),
        "device": model.get("device"),
        "limit": cfg.get("limit"),
        "gen_kwargs": plain(model.get("gen_kwargs")) or None,
        "apply_chat_template": bool(model.get("apply_chat_template", False)),
        "log_samples": bool(cfg.log_samples),
        "bootstrap_iters": int(cfg.get("bootstrap_iters", 0)),
        "use_cache": response_cache(cfg),
        "random_seed": seed,
        "numpy_random_seed": seed,
        "torch_random_seed": seed,
        "fewshot_random_seed": seed,
    }


def export_model_env(cfg: DictConfig) -> None:
    model = cfg.model
    for key, value in (model.get("env") or {}).items():
        os.environ.setdefault(str(key), str(value))
    key_env = model.get("api_key_env")
    if key_env and key_env != "OPENAI_API_KEY" and key_env in os.environ:
        # lm-eval's API backends read OPENAI_API_KEY; the key itself never enters the config
        os.environ["OPENAI_API_KEY"] = os.environ[key_env]


def evaluate(cfg: DictConfig, output_dir: Path) -> dict[str, Any]:
    """Run lm-eval as configured; write results and samples under ``output_dir``."""
    from lm_eval import simple_evaluate
    from lm_eval.loggers import EvaluationTracker

    export_model_env(cfg)
    judges.configure(judge_config(cfg))
    tracker = EvaluationTracker(output_path=str(output_dir))
    results = simple_evaluate(
        **lm_eval_arguments(cfg),
        evaluation_tracker=tracker,
        task_manager=sci_tasks.task_manager(
            metadata=run_metadata(cfg),
            # indexing lm-eval's own thousands of task files takes seconds: only when needed
            include_defaults=not all(is_ours(t) for t in cfg.tasks.names),
        ),
    )
    if results is None:  # non-zero ranks in distributed runs
        return {}
    samples = results.pop("samples", None)
    tracker.save_results_aggregated(results=results, samples=samples)
    if samples:
        for task_name in results["configs"]:
            tracker.save_results_samples(task_name=task_name, samples=samples[task_name])
    return results


def results_table(results: dict[str, Any]) -> str:
    from lm_eval.utils import make_table

    table = make_table(results)
    if results.get("groups"):
        table += "\n" + make_table(results, "groups")
    bundled = [
        name
        for name, metrics in results.get("results", {}).items()
        if metrics.get("bundled_samples,none", 0) > 0
    ]
    if bundled:
        table += (
            "\nNOTE: bundled sample data was used for "
            + ", ".join(sorted(bundled))
            + " (no data location set): these are not benchmark numbers.\n"
        )
    return table


@hydra.main(config_path="pkg://sci_tasks.conf", config_name="config", version_base="1.3")
def run(cfg: DictConfig) -> None:
    hydra_cfg = HydraConfig.get()
    output_dir = Path(hydra_cfg.runtime.output_dir)
    overrides = list(hydra_cfg.overrides.task)
    config = plain(cfg)
    leaked = manifest.secret_paths(config)
    if leaked:
        raise manifest.SecretInConfig(
            f"secret value(s) in the config at {', '.join(leaked)}: put the secret in an "
            "environment variable and give its NAME (e.g. api_key_env)"
        )
    if manifest.finished(output_dir):
        print(f"already finished, skipped: {output_dir}")
        return
    metadata = run_metadata(cfg)
    manifest.write(output_dir, manifest.build(config, overrides, None, metadata, "running"))
    results = evaluate(cfg, output_dir)
    manifest.write(output_dir, manifest.build(config, overrides, results, metadata, "done"))
    if results:
        print(results_table(results))
        print(f"results, samples and manifest: {output_dir}")


def main(argv: list[str] | None = None) -> None:
    """``sci-eval [overrides]`` or ``sci-eval --replay RUN_DIR_OR_MANIFEST [overrides]``: the
    latter runs again with the overrides a manifest recorded (later overrides win)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--replay"]:
        if len(args) < 2:
            raise SystemExit("usage: sci-eval --replay RUN_DIR_OR_MANIFEST [overrides]")
        recorded = manifest.read(Path(args[1]))
        args = [*recorded["overrides"], *args[2:]]
    sys.argv = [sys.argv[0], *args]
    run()


if __name__ == "__main__":
    main()
