"""Scoring as its own stage: re-score saved lm-eval outputs without touching the model.

    sci-score run_dir=sci-eval-runs/2026-11-30_10-00-00 judge=local_api judge.model=qwen2.5-7b

Reads every ``results_<ts>.json`` under ``run_dir`` with its ``samples_<task>_<ts>.jsonl``
files (written with ``--log_samples``, also from ``--predict_only`` runs), re-runs each
sci-tasks task's own scorer and aggregations (lm-eval's task and group objects, built
through ``TaskManager``) on the saved documents and responses, with the run's settings as
the results record them (the task's ``configs`` metadata: image budget, scorer parameters)
and the chosen judges in place of the run's (``sci_tasks.run_settings.RunSettings``, handed
to the scorer beside each document, as ``sci_tasks.task.SciTask`` does), and writes results
and samples files in lm-eval's format under ``<run_dir>/scores/<judge>/``. Another judge
writes next to it.
Standard lm-eval tasks in the same run are carried over unchanged and marked so.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

import sci_tasks
import sci_tasks.resolvers
from sci_tasks import manifest, registry, run_folder
from sci_tasks.data.jsonl import read_logged
from sci_tasks.data.locate import samples_dir
from sci_tasks.metrics import judge as judges
from sci_tasks.metrics.judge import CorrectnessJudge, JudgeConfig
from sci_tasks.metrics.judge import usage as judge_usage
from sci_tasks.outputs import write_json, write_jsonl
from sci_tasks.run_config import task_metadata
from sci_tasks.run_judges import RunJudges
from sci_tasks.run_settings import RunSettings
from sci_tasks.scoring import Scorer, score_all

log = logging.getLogger("sci_tasks.score")


@dataclass(frozen=True)
class TaskScoring:
    """What lm-eval uses to score a task: the task's own scorer (the YAML's
    ``process_results``, called with the settings), the settings, its aggregations."""

    scorer: Scorer
    settings: RunSettings
    aggregations: dict[str, Callable[[list[Any]], float]]
    higher_is_better: dict[str, bool]

    def process_results(self, doc: dict[str, Any], results: list[Any]) -> dict[str, Any]:
        return self.scorer(doc, results, self.settings)


@lru_cache(maxsize=1)
def our_names() -> frozenset[str]:
    """The tasks, groups and tags of every registered benchmark's task folder."""
    from lm_eval.tasks import TaskManager

    return frozenset(
        TaskManager(include_path=sci_tasks.task_folders(), include_defaults=False).all_tasks
    )


# a re-score's metadata without judges (``task_metadata`` of a config naming none): every
# role None, the environment not asked
NO_JUDGES = RunJudges().metadata()


def load_ours(names: list[str], metadata: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """lm-eval's task and group objects for ``names`` (``TaskManager.load``: ``tasks``,
    ``groups``), built with the re-score's ``metadata`` (``run_config.task_metadata``: its
    judges).

    Scoring reads the logged documents and the run's logged settings (``scoring_of``), so
    the task objects are built over the bundled samples: re-scoring never needs the run's
    data location (a hub id offline, a folder on another machine) to be reachable."""
    bundled = {  # a plugin without bundled samples finds its own data (its loader's default)
        b.data_key: str(folder)
        for b in registry.all_benchmarks()
        if (folder := samples_dir(b.name)).is_dir()
    }
    manager = sci_tasks.task_manager(
        metadata={**bundled, **(NO_JUDGES if metadata is None else metadata)},
        include_defaults=False,
    )
    return manager.load(names)


def scoring_of(
    task: Any,
    logged_metadata: Mapping[str, Any] | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> TaskScoring:
    """A task's scoring with the settings of the run that logged it (its task config's
    ``metadata`` in the results: image budget, scorer parameters), the re-score's
    ``metadata`` (``run_config.task_metadata``: its judges) over them; no logged metadata:
    the task's own. The settings come from ``RunSettings.of_task``, as a run's do."""
    from sci_tasks.task import SciTask

    metadata = NO_JUDGES if metadata is None else metadata
    if not isinstance(task, SciTask):  # a plugin's plain lm-eval task: (doc, results), no settings
        plain = task.config.process_results
        return TaskScoring(
            lambda doc, results, _: plain(doc, results),
            # the re-score's judges: how many samples are scored at once
            RunSettings.of_task(metadata),
            task.aggregation(),
            task.higher_is_better(),
        )
    if logged_metadata is None:
        settings = task.settings
    else:
        # the re-score's judges, every role: none of the run's logged ``judges`` is kept
        logged = {k: v for k, v in logged_metadata.items() if k != "judges"}
        settings = RunSettings.of_task({**logged, **metadata})
    from sci_tasks.task import setting_metrics

    # the re-score's own settings (a logged cascade, a jury) may add metrics the task lacks
    added = setting_metrics(task.config.process_results, settings)
    return TaskScoring(
        task.config.process_results,
        settings,
        {**task.aggregation(), **added},
        {**task.higher_is_better(), **dict.fromkeys(added, True)},
    )


def task_scoring(task: str) -> TaskScoring | None:
    """The scoring of one of our tasks, from its lm-eval task object; None for other tasks."""
    if task not in our_names():
        return None
    return scoring_of(load_ours([task])["tasks"][task])


def rescore_run(
    run_dir: Path, out_dir: Path, judges: RunJudges, metadata: Mapping[str, Any]
) -> list[Path]:
    """Re-score every run found under ``run_dir`` with ``judges`` (``metadata``: the
    re-score's task metadata, ``run_config.task_metadata``); returns the results files."""
    written = []
    results_files = run_folder.results_files(run_dir)  # the model's own, not re-scores
    if not results_files:
        raise FileNotFoundError(f"no lm-eval results_*.json under {run_dir}")
    for results_file in results_files:
        original = json.loads(results_file.read_text(encoding="utf-8"))
        target = out_dir / results_file.parent.relative_to(run_dir)
        target.mkdir(parents=True, exist_ok=True)
        stamp = run_folder.stamp_of(results_file)
        new = _rescore_one(results_file.parent, stamp, original, target, judges, metadata)
        path = target / f"results_{datetime.now().isoformat().replace(':', '-')}.json"
        written.append(write_json(path, new))
    return written


def _rescore_one(
    folder: Path,
    ts: str,
    original: dict[str, Any],
    target: Path,
    run_judges: RunJudges,
    metadata: Mapping[str, Any],
) -> dict[str, Any]:
    judge, correctness = run_judges.judge, run_judges.correctness
    client = judges.client_for(judge)
    calls_before = client.calls if client else 0
    subtasks_of = original.get("group_subtasks", {})
    ours = [
        task
        for task in original.get("results", {})
        if task in our_names()
        and task not in subtasks_of
        and run_folder.samples_file(folder, task, ts).is_file()
    ]
    groups = [g for g in subtasks_of if g in our_names()]
    loaded: dict[str, Any] = load_ours(groups, metadata) if groups else {"tasks": {}, "groups": {}}
    alone = [t for t in ours if t not in loaded["tasks"]]
    if alone:
        loaded["tasks"] = {
            **loaded["tasks"],
            **load_ours(alone, metadata)["tasks"],
        }
    bootstrap_iters = int(original.get("config", {}).get("bootstrap_iters", 100000) or 0)
    results: dict[str, Any] = {}
    rescored, carried = [], []
    for task, metrics in original.get("results", {}).items():
        samples_file = run_folder.samples_file(folder, task, ts)
        task_obj = loaded["tasks"].get(task)
        if task_obj is None or task in subtasks_of or not samples_file.is_file():
            results[task] = metrics
            if task not in subtasks_of:
                carried.append(task)
            continue
        logged = (original.get("configs", {}).get(task) or {}).get("metadata")
        scoring = scoring_of(task_obj, logged or {}, metadata)
        results[task] = _rescore_task(
            task, samples_file, scoring, target, judge, bootstrap_iters, correctness
        )
        rescored.append(task)
    for name, group in loaded["groups"].items():
        leaves = [t.task_name for t in group.get_all_tasks()]
        if name in results and leaves and all(t in rescored for t in leaves):
            # lm-eval's own group aggregation: (size-weighted) mean and pooled stderr
            results[name] = {**group.aggregate(results), "alias": results[name].get("alias", name)}
    return {
        "results": results,
        "group_subtasks": subtasks_of,
        "configs": original.get("configs", {}),
        "versions": original.get("versions", {}),
        "n-samples": original.get("n-samples", {}),
        "higher_is_better": original.get("higher_is_better", {}),
        "config": original.get("config", {}),
        "rescored": {
            "tasks": rescored,
            "carried_over_unchanged": carried,
            "judge": judge.public() if judge else None,
            "correctness_judge": correctness.public() if correctness else None,
            "judge_calls": (client.calls - calls_before) if client else 0,
            "source_results": str(run_folder.results_file(folder, ts)),
        },
    }


def _rescore_task(
    task: str,
    samples_file: Path,
    scoring: TaskScoring,
    target: Path,
    judge: JudgeConfig | None,
    bootstrap_iters: int,
    correctness: CorrectnessJudge | None = None,
) -> dict[str, Any]:
    from lm_eval.api.metrics import stderr_for_metric

    # the boundary where logged replies enter: a lone surrogate is made safe here, once
    samples, changed = read_logged(samples_file)
    if changed:
        log.warning(
            "%s: %d string(s) held lone surrogates (not Unicode): read with U+FFFD in their place",
            samples_file,
            changed,
        )

    # the pass a task's scoring makes in a run (SciTask): each sample once, concurrently
    # within the judges' limits
    pairs = [(sample["doc"], list(sample["filtered_resps"])) for sample in samples]
    per_sample = score_all(scoring.scorer, scoring.settings, pairs)
    values: dict[tuple[str, str], list[Any]] = {}
    for sample, metrics in zip(samples, per_sample, strict=True):
        for old in sample.get("metrics", []):
            sample.pop(old, None)
        sample["metrics"] = list(metrics)
        sample.update(metrics)
        for name, value in metrics.items():
            values.setdefault((name, sample.get("filter", "none")), []).append(value)
    write_jsonl(target / samples_file.name, samples)
    out: dict[str, Any] = {"alias": task, "sample_len": len(samples)}
    for (name, filter_key), items in values.items():
        agg = scoring.aggregations.get(name)
        if agg is None:
            continue
        out[f"{name},{filter_key}"] = agg(items)
        # as lm-eval's evaluator: a closed form or bootstrap where lm-eval has one, else N/A
        stderr = stderr_for_metric(agg, bootstrap_iters)
        out[f"{name}_stderr,{filter_key}"] = stderr(items) if stderr and len(items) > 1 else "N/A"
    return out


def score_manifest(
    overrides: list[str],
    run_dir: Path,
    written: list[Path],
    judge: JudgeConfig | None,
    correctness: CorrectnessJudge | None,
    usage: dict[str, Any],
) -> manifest.Manifest:
    """sci-score's own ``manifest.json`` (in its output folder): what re-scored which run,
    with which judges, and what the judges cost (``usage.judge``, per role). Its ``config``
    is the re-scored run's (its sci-eval manifest's, when it has one) with the re-scoring
    judges in place: what readers of the nearest manifest (sci-view) show for these scores."""
    source: dict[str, Any] = {}
    try:
        source = manifest.read(run_dir).config
    except ValueError:  # an lm_eval output folder: no sci-eval manifest
        pass
    config = {
        **source,
        "judge": judge.public() if judge else None,
        "correctness_judge": correctness.public() if correctness else None,
    }
    return manifest.Manifest(
        kind="sci-score",
        status="done",
        written=datetime.now().astimezone().isoformat(timespec="seconds"),
        command=["sci-score", *overrides],
        overrides=overrides,
        run_dir=str(run_dir),
        results_files=[str(p) for p in written],
        config=manifest.redact(config),
        judge=config["judge"],
        correctness_judge=config["correctness_judge"],
        usage={"judge": usage},
    )


def preflight(cfg: DictConfig, out_dir: Path) -> RunJudges:
    """sci-eval's checks before any work (``run.preflight.judge_preflight``): no option left unset,
    the judges' settings valid, their keys present and their servers reachable. A failure
    is one line, and the output folder Hydra made for the re-score is removed."""
    from sci_tasks.run.jobs import remove_if_unused
    from sci_tasks.run.preflight import (
        ConfigError,
        ServerUnreachable,
        judge_preflight,
        resolved_config,
        run_judges,
    )

    choices = {str(k): v for k, v in HydraConfig.get().runtime.choices.items()}
    try:
        resolved_config(cfg, choices)  # an unset option, named with its config file
        judges = run_judges(cfg, choices)  # each role's settings, named with its config file
        judge_preflight(judges.judge, judges.correctness)
        for other in judges.roles.values():
            judge_preflight(other)
    except (ConfigError, ServerUnreachable) as exc:
        remove_if_unused(out_dir, snapshot=True)  # Hydra's .hydra/ and score.log only
        raise SystemExit(f"sci-score: {exc}") from None
    return judges


@hydra.main(config_path="pkg://sci_tasks.conf", config_name="score", version_base="1.3")
def rescore(cfg: DictConfig) -> None:
    from sci_tasks.run.results_table import results_table

    run_dir = Path(cfg.run_dir).expanduser().resolve()
    out_dir = Path(HydraConfig.get().runtime.output_dir)
    judges = preflight(cfg, out_dir)
    ledger = judge_usage.start()  # what the judges cost in this re-score
    # what every re-scored task receives: the one conversion, as sci-eval's tasks get theirs
    written = rescore_run(run_dir, out_dir, judges, task_metadata(cfg, judges))
    usage = ledger.summary()
    overrides = [str(o) for o in HydraConfig.get().overrides.task]
    built = score_manifest(overrides, run_dir, written, judges.judge, judges.correctness, usage)
    manifest.write(out_dir, built)
    for path in written:  # sci-eval's table (strict JSON: a NaN is read back as null)
        results = json.loads(path.read_text(encoding="utf-8"))
        print(results_table(results, judged=judges.judge is not None))
        print(f"re-scored results: {path}")
    for line in judge_usage.summary_lines(usage):
        print(line)


USAGE = "usage: sci-score RUN_DIR [judge=...] [overrides]   (or run_dir=RUN_DIR)"


def main(argv: list[str] | None = None) -> None:
    """``sci-score RUN_DIR judge=...`` or ``sci-score run_dir=RUN_DIR judge=...``: the
    folder (a run, a sweep job, a sweep, an lm_eval output folder) is read before Hydra
    parses the overrides, so ``=`` and spaces in it need no quoting (``sci_tasks.paths``)."""
    import sys

    from sci_tasks.paths import path_override

    args, raw = path_override(list(sys.argv[1:] if argv is None else argv), "run_dir")
    shows_only = any(a in args for a in ("--help", "-h", "--cfg", "-c", "--info", "-i"))
    secrets = manifest.secret_overrides(args)  # first, as RefuseSecrets does: never echoed
    if secrets:
        raise SystemExit(f"sci-score: {manifest.refusal(secrets)}")
    if raw is None and not shows_only:
        raise SystemExit(f"sci-score: which run? {USAGE}")
    if raw is not None and not shows_only:  # --cfg / --help compose, they score nothing
        folder = Path(raw).expanduser()
        if not folder.is_dir():
            raise SystemExit(f"sci-score: run_dir {raw} is not a folder")
        if not run_folder.results_files(folder):
            raise SystemExit(
                f"sci-score: no lm-eval results_*.json under {raw} (a run written with "
                "--log_samples, e.g. by sci-eval or lm_eval --output_path)"
            )
    sys.argv = [sys.argv[0], *args]
    from sci_tasks.config_errors import one_line_errors

    with one_line_errors("sci-score", "score", args):
        rescore()


if __name__ == "__main__":
    main()
