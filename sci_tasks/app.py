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

Before any model is loaded, ``preflight`` checks what a run needs and prints a header
(model, backend, data source per benchmark, limit, judge): the config has no missing option,
every selected task's data loads (the task objects are built first and handed to lm-eval,
so every data file and image is read once, before the model), the judge settings are valid,
and the model and judge servers accept connections. A problem ends the run in one line
naming the file, option or URL; ``--verbose`` or ``HYDRA_FULL_ERROR=1`` adds the traceback.
"""

from __future__ import annotations

import os
import signal
import sys
import traceback
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig

from sci_tasks import manifest, models
from sci_tasks import resolvers as _resolvers  # noqa: F401  (registers the configs' resolvers)
from sci_tasks.config_errors import one_line_errors
from sci_tasks.metrics.judge import usage as judge_usage
from sci_tasks.run import jobs
from sci_tasks.run.evaluate import cached_responses, evaluate
from sci_tasks.run.header import header, limit_line
from sci_tasks.run.interrupts import (
    Interrupted,
    close_progress_bars,
    interrupted_line,
    interrupting_signal,
    terminated,
)
from sci_tasks.run.jobs import remove_if_unused, report_outcome, write_snapshot
from sci_tasks.run.preflight import (
    VERBOSE_ENV,
    ConfigError,
    check_correctness_judge,
    check_data_locations,
    check_judge,
    check_limit,
    check_servers,
    explain,
    preflight,
    resolved_config,
    verbose,
)
from sci_tasks.run.replay import replay_arguments
from sci_tasks.run.results_table import results_table
from sci_tasks.run_config import data_metadata

__all__ = ["main", "run"]  # the console entry


@hydra.main(config_path="pkg://sci_tasks.conf", config_name="config", version_base="1.3")
def run(cfg: DictConfig) -> None:
    hydra_cfg = HydraConfig.get()
    job_dir = Path(hydra_cfg.runtime.output_dir)
    overrides = list(hydra_cfg.overrides.task)
    choices = {str(k): v for k, v in hydra_cfg.runtime.choices.items()}
    sweep = hydra_cfg.mode == RunMode.MULTIRUN
    try:
        check_limit({"limit": cfg.get("limit")})  # before resolving (a GGUF conversion)
        data_problem = False
        try:
            check_data_locations(cfg)  # where the data is: before resolving too
        except ConfigError:
            if not sweep:
                raise
            data_problem = True  # a sweep job records it in its manifest (preflight says it)
        with models.paths_only() if data_problem else nullcontext():
            config = resolved_config(cfg, choices)  # nothing converted for a failing job
    except ConfigError as exc:  # nothing written yet: no folder to record it in
        if verbose():
            traceback.print_exc()
        remove_if_unused(job_dir)
        if not sweep:
            raise SystemExit(f"sci-eval: {exc}") from None
        print(f"FAILED {job_dir}: {exc}", file=sys.stderr)
        jobs.failed.append(f"{job_dir.name}: {exc}")
        report_outcome(job_dir, "failed", str(exc))
        return
    try:  # RefuseSecrets did so already, before Hydra wrote anything
        manifest.refuse_secrets(config, overrides)
    except manifest.SecretInConfig as exc:
        remove_if_unused(job_dir)
        raise SystemExit(f"sci-eval: {exc}") from None  # Hydra would echo the overrides
    metadata = data_metadata(cfg)  # where each benchmark's data is: fingerprinted
    data = manifest.data_fingerprints(metadata)
    where = manifest.place(job_dir, manifest.inputs(config, data))
    folder = where.folder
    if where.why:
        print(where.why)
    if where.skip:
        remove_if_unused(job_dir)
        report_outcome(folder, "skipped", "unchanged since it finished")
        return

    ledger = judge_usage.start()  # what the judges cost in this job (manifest usage.judge)

    def record(status: str, results: Any = None, error: str | None = None) -> None:
        built = manifest.build(config, overrides, results, metadata, status, error, data)
        built.usage = {"judge": ledger.summary()}
        manifest.write(folder, built)

    if sweep:  # a sweep keeps a record of every job, a failed pre-flight included
        write_snapshot(cfg, hydra_cfg, folder)
        record("running")
    checked = None
    started = False
    before: int | None = None  # the model's cached responses when this run began
    try:
        checked = preflight(cfg, config, choices)  # before any model is loaded
        print(header(config, checked, folder), flush=True)
        check_servers(config, checked.judge)
        check_correctness_judge(checked.correctness)
        for other in checked.roles.values():  # SciGen's roles, where given
            check_judge(other)
        if not sweep:  # a single run's folder is written once its pre-flight passed
            write_snapshot(cfg, hydra_cfg, folder)
            record("running")
        started = True
        before = cached_responses(cfg)
        results = evaluate(cfg, folder, checked)
    except (KeyboardInterrupt, Exception) as exc:
        signal_name = interrupting_signal(exc)
        if signal_name is not None:  # Ctrl-C, or SIGTERM (a time limit): see main()
            kept = cached_responses(cfg)
            if started or sweep:
                record("interrupted", error=f"interrupted by {signal_name}")
            else:
                remove_if_unused(folder)
            report_outcome(folder, "interrupted", f"by {signal_name}")
            line = interrupted_line(signal_name, folder, kept, started or sweep, before)
            raise Interrupted(line) from None
        # one job's failure is recorded, never lost in a sweep
        error = explain(exc, config)
        if verbose():
            traceback.print_exc()
        if not started and not sweep:  # a failed pre-flight of a single run: nothing left
            remove_if_unused(folder)
            shown = error.removeprefix(f"{ConfigError.__name__}: ")  # the option says it all
            raise SystemExit(f"sci-eval: {shown}") from None
        (folder / "traceback.txt").write_text(traceback.format_exc(), encoding="utf-8")
        record("failed", error=error)
        close_progress_bars()  # the failure's line is not followed by a redrawn bar
        print(f"FAILED {folder}: {error}", file=sys.stderr)
        jobs.failed.append(f"{folder.name}: {error}")
        report_outcome(folder, "failed", error)
        return
    record("done", results)
    report_outcome(folder, "done", "")
    if results:
        print(results_table(results, judged=checked.judge is not None))
        for line in judge_usage.summary_lines(ledger.summary()):
            print(line)
        if cfg.get("limit") is not None:
            print(limit_line(cfg.limit))
        print(f"results, samples and manifest: {folder}")


USAGE = """\
usage: sci-eval [--verbose] [-m] [overrides]
       sci-eval --replay RUN_DIR_OR_MANIFEST [--verbose] [overrides]

  --replay RUN   run again with the overrides RUN's manifest.json recorded (RUN: a run or
                 sweep-job folder, or the manifest itself); overrides given after it win
  --verbose      print tracebacks on the console (as HYDRA_FULL_ERROR=1 does)
  -m             a sweep: every combination of comma-separated override values
"""


def main(argv: list[str] | None = None) -> None:
    """``sci-eval [--verbose] [overrides]`` or ``sci-eval --replay RUN_DIR_OR_MANIFEST
    [overrides]``: the latter runs again with the overrides and data a manifest recorded
    (later overrides win). Exits non-zero when a job failed; 130 / 143 when SIGINT / SIGTERM
    ended it (one line, the manifest says ``interrupted``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if "--help" in args or "-h" in args:  # our own flags, then Hydra's help
        print(USAGE)
    if "--verbose" in args:  # tracebacks on the console, as HYDRA_FULL_ERROR=1 gives
        args.remove("--verbose")
        os.environ[VERBOSE_ENV] = "1"
    if args[:1] == ["--replay"]:
        if len(args) < 2:
            raise SystemExit("usage: sci-eval --replay RUN_DIR_OR_MANIFEST [overrides]")
        try:
            args = replay_arguments(Path(args[1]).expanduser(), args[2:])
        except ValueError as exc:
            raise SystemExit(f"sci-eval --replay: {exc}") from None
    sys.argv = [sys.argv[0], *args]
    jobs.failed.clear()
    previous = signal.signal(signal.SIGTERM, terminated)  # what SLURM sends at a time limit
    try:
        with one_line_errors("sci-eval", "config", args):
            run()
    except Interrupted as exc:
        close_progress_bars()
        print(f"\n{exc.line}", file=sys.stderr)  # below the progress bar the signal cut short
        raise SystemExit(143 if "SIGTERM" in exc.line else 130) from None
    except KeyboardInterrupt as exc:  # before or after a job (Hydra composing, imports)
        name = exc.args[0] if exc.args else "SIGINT"
        print(f"\nsci-eval: interrupted by {name} before a run started", file=sys.stderr)
        raise SystemExit(143 if name == "SIGTERM" else 130) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
    if jobs.failed:
        raise SystemExit(f"sci-eval: {len(jobs.failed)} job(s) failed")


if __name__ == "__main__":
    main()
