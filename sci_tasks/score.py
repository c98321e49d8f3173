"""Scoring as its own stage: re-score saved lm-eval outputs without touching the model.

    sci-score run_dir=sci-eval-runs/2026-11-30_10-00-00 judge=local_api judge.model=qwen2.5-7b

Reads every ``results_<ts>.json`` under ``run_dir`` with its ``samples_<task>_<ts>.jsonl``
files (written with ``--log_samples``, also from ``--predict_only`` runs), re-runs each
sci-tasks task's own ``process_results`` and aggregations (taken from its task YAML) on the
saved documents and responses, with the chosen judge, and writes results and samples files
in lm-eval's format under ``<run_dir>/scores/<judge>/``. Another judge writes next to it.
Standard lm-eval tasks in the same run are carried over unchanged and marked so.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

import sci_tasks
import sci_tasks.resolvers
from sci_tasks.data.jsonl import read_logged
from sci_tasks.metrics import judge as judges
from sci_tasks.metrics.judge import JudgeConfig

log = logging.getLogger("sci_tasks.score")
_RESULTS = re.compile(r"^results_(?P<ts>.+)\.json$")


@dataclass(frozen=True)
class TaskScoring:
    """What lm-eval would use to score a task: its hook and its metric aggregations."""

    process_results: Callable[[dict[str, Any], list[Any]], dict[str, Any]]
    aggregations: dict[str, Callable[[list[Any]], float]]
    higher_is_better: dict[str, bool]


@lru_cache(maxsize=1)
def _our_yaml_index() -> dict[str, Path]:
    from lm_eval.tasks._index import TaskIndex

    index = TaskIndex().build([Path(sci_tasks.include_path())])
    return {name: e.yaml_path for name, e in index.items() if e.yaml_path is not None}


def task_scoring(task: str) -> TaskScoring | None:
    """The scoring of one of our tasks, read from its YAML; None for other tasks."""
    from lm_eval.api.registry import get_aggregation
    from lm_eval.tasks._yaml_loader import load_yaml

    path = _our_yaml_index().get(task)
    if path is None:
        return None
    cfg = load_yaml(path, resolve_func=True)
    if "process_results" not in cfg:
        return None
    aggregations = {}
    higher = {}
    for metric in cfg.get("metric_list", []):
        agg = metric.get("aggregation", "mean")
        aggregations[metric["metric"]] = agg if callable(agg) else get_aggregation(agg)
        higher[metric["metric"]] = bool(metric.get("higher_is_better", True))
    return TaskScoring(cfg["process_results"], aggregations, higher)


def group_aggregations(group: str) -> list[dict[str, Any]]:
    from lm_eval.tasks._yaml_loader import load_yaml

    path = _our_yaml_index().get(group)
    return (
        list(load_yaml(path, resolve_func=False).get("aggregate_metric_list", [])) if path else []
    )


def rescore_run(run_dir: Path, out_dir: Path, judge: JudgeConfig | None) -> list[Path]:
    """Re-score every run found under ``run_dir``; returns the results files written."""
    client = judges.configure(judge)
    written = []
    results_files = sorted(  # the model's own runs, not earlier re-scores
        p for p in run_dir.rglob("results_*.json") if "scores" not in p.relative_to(run_dir).parts
    )
    if not results_files:
        raise FileNotFoundError(f"no lm-eval results_*.json under {run_dir}")
    for results_file in results_files:
        ts = _RESULTS.match(results_file.name)
        assert ts is not None
        original = json.loads(results_file.read_text(encoding="utf-8"))
        target = out_dir / results_file.parent.relative_to(run_dir)
        target.mkdir(parents=True, exist_ok=True)
        new = _rescore_one(results_file.parent, ts["ts"], original, target, client)
        path = target / f"results_{datetime.now().isoformat().replace(':', '-')}.json"
        path.write_text(
            json.dumps(new, indent=2, default=str, ensure_ascii=False), encoding="utf-8"
        )
        written.append(path)
    return written


def _rescore_one(
    folder: Path, ts: str, original: dict[str, Any], target: Path, client: judges.JudgeClient | None
) -> dict[str, Any]:
    results: dict[str, Any] = {}
    rescored, carried = [], []
    for task, metrics in original.get("results", {}).items():
        samples_file = folder / f"samples_{task}_{ts}.jsonl"
        scoring = task_scoring(task)
        if scoring is None or not samples_file.is_file():
            results[task] = metrics
            if task not in original.get("group_subtasks", {}):
                carried.append(task)
            continue
        results[task] = _rescore_task(task, samples_file, scoring, target, client)
        rescored.append(task)
    for group, subtasks in original.get("group_subtasks", {}).items():
        if subtasks and all(t in rescored for t in subtasks):
            results[group] = _group_values(group, subtasks, results, original)
    return {
        "results": results,
        "group_subtasks": original.get("group_subtasks", {}),
        "configs": original.get("configs", {}),
        "versions": original.get("versions", {}),
        "n-samples": original.get("n-samples", {}),
        "higher_is_better": original.get("higher_is_better", {}),
        "config": original.get("config", {}),
        "rescored": {
            "tasks": rescored,
            "carried_over_unchanged": carried,
            "judge": client.config.public() if client else None,
            "judge_calls": client.calls if client else 0,
            "source_results": str(folder / f"results_{ts}.json"),
        },
    }


def _rescore_task(
    task: str,
    samples_file: Path,
    scoring: TaskScoring,
    target: Path,
    client: judges.JudgeClient | None,
) -> dict[str, Any]:
    # the boundary where logged replies enter: a lone surrogate is made safe here, once
    samples, changed = read_logged(samples_file)
    if changed:
        log.warning(
            "%s: %d string(s) held lone surrogates (not Unicode): read with U+FFFD in their place",
            samples_file,
            changed,
        )

    def score(sample: dict[str, Any]) -> dict[str, Any]:
        return scoring.process_results(sample["doc"], list(sample["filtered_resps"]))

    # Samples in parallel: each one's judge calls run inside; the pool bounds concurrency.
    workers = client.config.concurrency if client else 1
    with ThreadPoolExecutor(max_workers=workers) as pool:
        per_sample = list(pool.map(score, samples))
    values: dict[str, list[Any]] = {m: [] for m in scoring.aggregations}
    for sample, metrics in zip(samples, per_sample, strict=True):
        for old in sample.get("metrics", []):
            sample.pop(old, None)
        sample["metrics"] = list(metrics)
        sample.update(metrics)
        for name, value in metrics.items():
            values.setdefault(name, []).append(value)
    with (target / samples_file.name).open("w", encoding="utf-8") as fh:
        for sample in samples:
            fh.write(json.dumps(sample, default=str, ensure_ascii=False) + "\n")
    out: dict[str, Any] = {"alias": task, "sample_len": len(samples)}
    for name, agg in scoring.aggregations.items():
        out[f"{name},none"] = agg(values.get(name, []))
        out[f"{name}_stderr,none"] = "N/A"
    return out


def _group_values(
    group: str, subtasks: list[str], results: dict[str, Any], original: dict[str, Any]
) -> dict[str, Any]:
    """Group metrics as lm-eval computes them: a (weighted or plain) mean over subtasks."""
    out: dict[str, Any] = {"alias": original["results"].get(group, {}).get("alias", group)}
    sizes = {t: results[t].get("sample_len", 0) for t in subtasks}
    for agg in group_aggregations(group):
        key = f"{agg['metric']},none"
        vals = [(results[t][key], sizes[t]) for t in subtasks if key in results[t]]
        if not vals:
            continue
        if agg.get("weight_by_size", True):
            total = sum(n for _, n in vals)
            out[key] = sum(v * n for v, n in vals) / total if total else float("nan")
        else:
            out[key] = sum(v for v, _ in vals) / len(vals)
        out[f"{agg['metric']}_stderr,none"] = "N/A"
    return out


def judge_config(cfg: DictConfig) -> JudgeConfig | None:
    settings = OmegaConf.to_container(cfg.judge, resolve=True) if cfg.get("judge") else None
    if not isinstance(settings, dict) or not settings.get("model"):
        return None
    return JudgeConfig.from_mapping({str(k): v for k, v in settings.items()})


@hydra.main(config_path="pkg://sci_tasks.conf", config_name="score", version_base="1.3")
def main(cfg: DictConfig) -> None:
    from lm_eval.utils import make_table

    run_dir = Path(cfg.run_dir).expanduser().resolve()
    out_dir = Path(HydraConfig.get().runtime.output_dir)
    written = rescore_run(run_dir, out_dir, judge_config(cfg))
    for path in written:
        results = json.loads(path.read_text(encoding="utf-8"))
        print(make_table(results))
        print(f"re-scored results: {path}")


if __name__ == "__main__":
    main()
