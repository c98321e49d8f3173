"""The run itself: lm-eval's arguments from the config, its response cache, and
``evaluate``, which runs ``simple_evaluate`` on the checked tasks and writes results and
samples (strict JSON, a bootstrap ± for the headline metrics) into the run folder."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from omegaconf import DictConfig

from sci_tasks.outputs import json_safe
from sci_tasks.quiet import quiet_git_lookup
from sci_tasks.resolvers import safe_name
from sci_tasks.run.preflight import Preflight, run_device
from sci_tasks.run_config import plain
from sci_tasks.text import make_safe_in_place

log = logging.getLogger("sci_tasks.app")


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
    for db in folder.glob(f"{digest}_rank*.db"):  # lm-eval's file name: <path>_rank<N>.db
        set_aside_if_corrupt(db)
    return str(folder / digest)


def set_aside_if_corrupt(db: Path) -> Path | None:
    """Move a response cache that sqlite cannot read out of the way (every later run would
    fail on it); the responses are generated again. Returns where it went."""
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
            check = con.execute("PRAGMA quick_check").fetchone()
        if check and check[0] == "ok":
            return None
        problem = str(check[0] if check else "no answer to a check")
    except sqlite3.DatabaseError as exc:
        problem = str(exc)
    aside = db.with_name(f"{db.name}.corrupt-{datetime.now():%Y%m%d-%H%M%S}")
    db.replace(aside)
    log.warning(
        "response cache %s is not a usable sqlite database (%s): moved aside to %s; "
        "its responses are generated again",
        db,
        problem,
        aside.name,
    )
    return aside


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
        "max_batch_size": model.get("max_batch_size"),  # the bound of batch_size=auto
        "device": run_device(model),
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
    threads = os.environ.get("OMP_NUM_THREADS", "")
    if "torch" in sys.modules and threads.isdigit() and int(threads) > 0:
        # torch read OMP_NUM_THREADS when it was imported (building the tasks imports it):
        # apply the chosen thread count now, or it keeps one thread per core
        sys.modules["torch"].set_num_threads(int(threads))
    key_env = model.get("api_key_env")
    if key_env and key_env != "OPENAI_API_KEY" and key_env in os.environ:
        # lm-eval's API backends read OPENAI_API_KEY; the key itself never enters the config
        os.environ["OPENAI_API_KEY"] = os.environ[key_env]


def evaluate(cfg: DictConfig, output_dir: Path, checked: Preflight) -> dict[str, Any]:
    """Run lm-eval on the checked tasks; write results and samples under ``output_dir``
    (results with ``null`` for NaN and a bootstrap standard error for every headline metric;
    the model folder named by ``model.name``)."""
    from lm_eval import simple_evaluate
    from lm_eval.loggers import EvaluationTracker

    from sci_tasks.run.stderr import fill_stderrs  # numpy's bootstrap: only once a run ends

    export_model_env(cfg)
    tracker = EvaluationTracker(output_path=str(output_dir))
    with quiet_git_lookup():  # outside a checkout git would print `fatal:`
        results = simple_evaluate(
            **{**lm_eval_arguments(cfg), "tasks": checked.tasks},  # built already: data read once
            evaluation_tracker=tracker,
            task_manager=checked.task_manager,
        )
    if results is None:  # non-zero ranks in distributed runs
        return {}
    samples = results.pop("samples", None)
    # lm-eval names the folder from `pretrained` / `model` (a converted-weights path for the
    # embedded default): the model's own name instead
    tracker.general_config_tracker.model_name_sanitized = safe_name(str(cfg.model.name))
    if samples:
        fill_stderrs(results, samples, checked.groups)  # the ± lm-eval left "N/A"
    results = json_safe(results)
    tracker.save_results_aggregated(results=results, samples=samples)
    if samples:
        for task_name in results["configs"]:
            # the boundary where replies leave for a UTF-8 file: lm-eval would drop every
            # sample from the first one holding a lone surrogate
            changed = make_safe_in_place(samples[task_name])
            if changed:
                log.warning(
                    "%s: %d string(s) in the samples held lone surrogates (not Unicode): "
                    "written with U+FFFD in their place",
                    task_name,
                    changed,
                )
            # strict JSON: a sample's NaN (a metric with no value) is written as null
            tracker.save_results_samples(task_name=task_name, samples=json_safe(samples[task_name]))
    return results


def cached_responses(cfg: DictConfig) -> int | None:
    """Responses in this model's response cache (lm-eval's sqlite file), None without one."""
    path = response_cache(cfg) if cfg.get("use_cache", False) else None
    if path is None:
        return None
    total = 0
    for db in Path(path).parent.glob(f"{Path(path).name}_rank*.db"):
        try:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
                total += con.execute("SELECT COUNT(*) FROM unnamed").fetchone()[0]
        except sqlite3.Error:
            continue
    return total
