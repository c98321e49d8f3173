"""``sci-eval``: the Hydra app that composes a model backend with a task set and runs lm-eval.

    sci-eval                                   # embedded default: SmolLM2 on CPU, bundled samples
    sci-eval tasks=scimif_chem limit=3
    sci-eval model=hf model.args.pretrained=Qwen/Qwen2.5-0.5B-Instruct
    sci-eval -m model=smollm2_cpu,local_api tasks=scimif_chem,scimif_bio   # cross product
    sci-eval --replay sci-eval-runs/<run>                                  # same run again

Results land in the run folder exactly as lm-eval's CLI writes them
(``<model>/results_*.json`` and ``samples_<task>_*.jsonl``), next to Hydra's ``.hydra/``
config snapshot and ``manifest.json``, and a results table is printed. A sweep's job
folders are named by their overrides; re-running a sweep skips a finished job only when its
inputs are unchanged (``manifest.place``), and a multirun ends with each job's outcome.

No job error ends a sweep: a failed job's manifest says ``failed`` with the one-line error
(the traceback goes to ``traceback.txt`` in its folder), the other jobs run, and the
command exits non-zero at the end. Hydra's own snapshot writing is off
(``hydra.output_subdir: null``): the job writes ``.hydra/`` itself once it knows its folder,
so a job re-run into a fresh folder never overwrites the snapshot of finished results.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import sqlite3
import sys
import traceback
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.experimental.callback import Callback
from omegaconf import DictConfig, OmegaConf

import sci_tasks
from sci_tasks import manifest
from sci_tasks.metrics import judge as judges
from sci_tasks.resolvers import safe_name
from sci_tasks.score import judge_config
from sci_tasks.text import make_safe_in_place

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


OUTCOMES_ENV = "SCI_TASKS_MULTIRUN_ID"  # set by the multirun: where jobs report outcomes
_failed: list[str] = []  # jobs of this process (and, after a multirun, of the sweep) that failed


@hydra.main(config_path="pkg://sci_tasks.conf", config_name="config", version_base="1.3")
def run(cfg: DictConfig) -> None:
    hydra_cfg = HydraConfig.get()
    job_dir = Path(hydra_cfg.runtime.output_dir)
    overrides = list(hydra_cfg.overrides.task)
    config = plain(cfg)
    try:  # RefuseSecrets did so already, before Hydra wrote anything
        manifest.refuse_secrets(config, overrides)
    except manifest.SecretInConfig as exc:
        raise SystemExit(f"sci-eval: {exc}") from None  # Hydra would echo the overrides
    metadata = run_metadata(cfg)
    data = manifest.data_fingerprints(metadata)
    where = manifest.place(job_dir, manifest.inputs(config, data))
    folder = where.folder
    if where.why:
        print(where.why)
    if where.skip:
        report_outcome(folder, "skipped", "unchanged since it finished")
        return
    write_snapshot(cfg, hydra_cfg, folder)
    manifest.write(folder, manifest.build(config, overrides, None, metadata, "running", data=data))
    try:
        results = evaluate(cfg, folder)
    except Exception as exc:  # one job's failure is recorded, never lost in a sweep
        error = manifest.one_line(exc)
        (folder / "traceback.txt").write_text(traceback.format_exc(), encoding="utf-8")
        manifest.write(
            folder, manifest.build(config, overrides, None, metadata, "failed", error, data)
        )
        print(f"FAILED {folder}: {error}", file=sys.stderr)
        _failed.append(f"{folder.name}: {error}")
        report_outcome(folder, "failed", error)
        return
    manifest.write(folder, manifest.build(config, overrides, results, metadata, "done", data=data))
    report_outcome(folder, "done", "")
    if results:
        print(results_table(results))
        print(f"results, samples and manifest: {folder}")


def write_snapshot(cfg: DictConfig, hydra_cfg: Any, folder: Path) -> None:
    """Hydra's ``.hydra/`` snapshot (config, hydra, overrides), written by the job into the
    folder it decided on (``hydra.output_subdir`` is null, so Hydra writes none)."""
    out = folder / ".hydra"
    out.mkdir(parents=True, exist_ok=True)
    parts = {
        "config.yaml": cfg,
        "hydra.yaml": OmegaConf.create({"hydra": hydra_cfg}),
        "overrides.yaml": hydra_cfg.overrides.task,
    }
    for name, node in parts.items():
        (out / name).write_text(OmegaConf.to_yaml(node), encoding="utf-8")


def report_outcome(folder: Path, outcome: str, detail: str) -> None:
    """Inside a multirun: one small file per job (jobs may be other processes or nodes)."""
    multirun = os.environ.get(OUTCOMES_ENV)
    if not multirun:
        return
    out = folder.parent / ".outcomes" / multirun  # job folders sit in the sweep folder
    out.mkdir(parents=True, exist_ok=True)
    record = {"job": str(folder), "outcome": outcome, "detail": detail}
    (out / f"{folder.name}.json").write_text(json.dumps(record), encoding="utf-8")


class SweepSummary(Callback):
    """Prints each job's outcome when a multirun ends (the jobs' own reports)."""

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        os.environ[OUTCOMES_ENV] = f"{datetime.now():%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:6]}"

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        multirun = os.environ.pop(OUTCOMES_ENV, "")
        folder = Path(str(config.hydra.sweep.dir)) / ".outcomes" / multirun
        records = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]
        _failed.clear()
        print(f"\nsweep {config.hydra.sweep.dir}: {len(records)} job(s)")
        for r in records:
            detail = f": {r['detail']}" if r["detail"] else ""
            print(f"  {r['outcome']:<8} {Path(r['job']).name}{detail}")
            if r["outcome"] == "failed":
                _failed.append(f"{Path(r['job']).name}: {r['detail']}")


def main(argv: list[str] | None = None) -> None:
    """``sci-eval [overrides]`` or ``sci-eval --replay RUN_DIR_OR_MANIFEST [overrides]``: the
    latter runs again with the overrides a manifest recorded (later overrides win). Exits
    non-zero when a job failed."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--replay"]:
        if len(args) < 2:
            raise SystemExit("usage: sci-eval --replay RUN_DIR_OR_MANIFEST [overrides]")
        recorded = manifest.read(Path(args[1]))
        args = [*recorded["overrides"], *args[2:]]
    sys.argv = [sys.argv[0], *args]
    _failed.clear()
    run()
    if _failed:
        raise SystemExit(f"sci-eval: {len(_failed)} job(s) failed")


if __name__ == "__main__":
    main()
