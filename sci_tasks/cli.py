"""``sci-lm-eval``: stock ``lm_eval`` with the sci-tasks task folder included.

The command line is lm-eval's: read by lm-eval's own CLI (``HarnessCLI``: ``run``, ``ls``,
``validate``, the legacy form without a subcommand) and run by it, with our task folder as
its ``--include_path``. lm-eval 0.4's CLI takes ONE ``--include_path`` (a single folder: no
separator is split), so a command that brings its own is refused in one line naming the
ways to use both (``include_our_tasks``). Before any work the checks of ``sci-eval`` run
(``preflight``, on the parsed arguments: ``--limit``, the tasks and their data, the judge's
key and server). After the run, the results and samples files it wrote are made strict JSON
(NaN as ``null``, ``sci_tasks.outputs``) by reading them back; lm-eval's git lookup is made
quiet for the run (``quiet.quiet_git_lookup``: its stderr to the null device).
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
import time
from pathlib import Path
from typing import Any

import sci_tasks
from sci_tasks import include_path, run_folder

INCLUDE = "--include_path"


class UsageError(ValueError):
    """A command line sci-lm-eval cannot hand to lm-eval."""


def parse(argv: list[str]) -> tuple[Any, argparse.Namespace]:
    """``argv`` read by lm-eval's own CLI (``lm_eval._cli.HarnessCLI``: its subcommands, the
    legacy form without one, its help and its errors, which exit as lm-eval's do), with the
    CLI to run it. HarnessCLI reads ``sys.argv``: set for the call only."""
    from lm_eval._cli import HarnessCLI

    cli = HarnessCLI()
    saved = sys.argv
    sys.argv = ["lm-eval", *argv]
    try:
        return cli, cli.parse_args()
    finally:
        sys.argv = saved


def include_our_tasks(args: argparse.Namespace) -> None:
    """Our task folder as lm-eval's ``--include_path`` (a command without one: ``ls``,
    ``run``, ``validate``). Unchanged when the folder given is ours already; a folder of the
    user's own is a UsageError (lm-eval's CLI takes one)."""
    if not hasattr(args, "include_path"):  # no subcommand: lm-eval prints its help
        return
    ours = Path(include_path()).resolve()
    given = args.include_path
    if not given:
        args.include_path = str(ours)
        return
    if Path(given).expanduser().resolve() != ours:
        raise UsageError(
            f"sci-lm-eval adds its own {INCLUDE} ({ours}) and lm-eval's CLI takes one folder, "
            f"so {INCLUDE} {given} cannot be added: run lm_eval with a folder holding both, "
            f"or from Python sci_tasks.task_manager(include_path=[{given!r}])"
        )


def output_folder(args: argparse.Namespace) -> Path | None:
    """The folder lm-eval writes results to, from ``--output_path`` (a ``.json`` path names
    a file in it); None without one."""
    value = getattr(args, "output_path", None)
    if not value:
        return None
    path = Path(value).expanduser()
    return path.parent if path.suffix == ".json" else path


def preflight(args: argparse.Namespace) -> None:
    """sci-eval's checks before any work (``limit_problem``, ``judge_preflight``)
    for a command that runs tasks: ``--limit`` usable, and the judge the run will ask
    (``--metadata '{"judge": ...}'`` or ``SCI_TASKS_JUDGE_*``; none with
    ``--predict_only``) with its key present and its server reachable. A UsageError says
    what is wrong in one line."""
    from sci_tasks.run.preflight import (
        ConfigError,
        ServerUnreachable,
        check_judge,
        judge_preflight,
        limit_problem,
    )

    if args.command != "run":
        return
    limit = args.limit  # lm-eval's parser reads a float: a count shown as given
    if limit is not None:
        shown = int(limit) if float(limit).is_integer() else limit
        problem = limit_problem(shown)
        if problem:
            raise UsageError(f"--limit {shown}: {problem}")
    check_run(args)
    if getattr(args, "predict_only", False):
        return  # nothing is scored: no judge is asked
    from sci_tasks.run_settings import RunSettings

    metadata = args.metadata if isinstance(args.metadata, dict) else None
    try:
        # the judges the tasks will resolve from this --metadata (else the environment):
        # the one conversion of task metadata to settings
        settings = RunSettings.of_task(metadata)
        judge_preflight(settings.judge, settings.correctness)
        for other in settings.roles.values():  # other roles' judges, juries' jurors
            check_judge(other)
    except (ValueError, ConfigError, ServerUnreachable) as exc:
        raise UsageError(str(exc)) from None


def check_run(run: argparse.Namespace) -> None:
    """sci-eval's pre-flight for an ``lm_eval run`` command line, each problem one line:
    the model backend can be used here (its extra installed), every task name exists (else
    the closest names), a hub data location is reachable, and our tasks' data loads (every
    file and image read, errors naming file and line)."""
    from sci_tasks.manifest import one_line
    from sci_tasks.run.preflight import (
        ServerUnreachable,
        backend_problem,
        check_hub,
        data_locations,
    )

    backend = run.model or "hf"
    problem = backend_problem(backend)
    if problem:
        raise UsageError(f"--model {backend} {problem}, or choose another backend")
    names = [t for t in (run.tasks or []) if t and not t.endswith(".yaml")]
    if not names:
        return
    metadata = {**(run.model_args or {}), **(run.metadata or {})}  # as lm-eval merges them
    ours = sci_tasks.task_manager(metadata=metadata, include_defaults=False)
    theirs = [t for t in names if not ours.match_tasks([t])]
    if theirs:
        check_task_names(theirs)
    mine = [t for t in names if t not in theirs]
    if not mine:
        return
    try:
        check_hub(data_locations(mine, metadata))
        ours.load(mine)  # builds our tasks: reads every data file and image (kept for the run)
    except ServerUnreachable as exc:
        raise UsageError(str(exc)) from None
    except Exception as exc:  # a data error names its file and line
        raise UsageError(f"--tasks {','.join(mine)}: {one_line(exc)}") from None


def check_task_names(names: list[str]) -> None:
    """Task names neither ours nor lm-eval's: one line with the closest known names."""
    manager = sci_tasks.task_manager()  # lm-eval's own thousands of tasks too: only now
    missing = [t for t in names if not manager.match_tasks([t])]
    if not missing:
        return
    known = list(manager.all_tasks)
    said = []
    for name in missing:
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
        said.append(f"{name} (did you mean {' or '.join(close)}?)" if close else name)
    raise UsageError(
        f"--tasks: no such task: {'; '.join(said)} (sci-lm-eval ls tasks lists them all)"
    )


def make_results_strict_json(folder: Path, since: float) -> None:
    """Every results and samples file lm-eval wrote under ``folder`` since ``since``
    (``sci_tasks.run_folder``) rewritten through the one writer (``sci_tasks.outputs``: NaN
    / infinity as ``null``): lm-eval writes Python's ``NaN``, which strict JSON readers
    reject. The files are read back, so nothing of lm-eval's saving is patched."""
    from sci_tasks.outputs import jsonl_line, read_jsonl, write_json

    for path in run_folder.results_files(folder):
        if path.stat().st_mtime >= since:
            write_json(path, json.loads(path.read_text(encoding="utf-8")))
    for path in run_folder.samples_files(folder):  # a sample's metric without a value: NaN
        if path.stat().st_mtime >= since:
            lines = path.read_text(encoding="utf-8").splitlines()
            safe = [jsonl_line(sample) for sample in read_jsonl(path)]
            if safe != lines:
                path.write_text("".join(f"{line}\n" for line in safe), encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    from lm_eval.utils import setup_logging

    from sci_tasks.quiet import quiet_git_lookup

    try:
        cli, args = parse(sys.argv[1:] if argv is None else argv)
        include_our_tasks(args)
        preflight(args)
    except UsageError as exc:
        raise SystemExit(f"sci-lm-eval: {exc}") from None
    started = time.time() - 1  # file times may be coarser than the clock
    setup_logging()  # as lm-eval's own entry point (cli_evaluate) does
    with quiet_git_lookup():  # outside a git checkout, lm-eval's `git describe` would print fatal:
        cli.execute(args)
    folder = output_folder(args)
    if folder is not None and folder.is_dir():
        make_results_strict_json(folder, started)


if __name__ == "__main__":
    main()
