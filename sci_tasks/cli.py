"""``sci-lm-eval``: stock ``lm_eval`` with the sci-tasks task folder included.

Every argument goes to lm-eval unchanged (``run``, ``ls``, ``validate``, the legacy form
without a subcommand), plus ``--include_path <our task folder>``. lm-eval 0.4's CLI takes
ONE ``--include_path`` (a single folder: no separator is split), so a command that brings
its own is refused in one line naming the ways to use both (``include_path_argv``).
Before any work the checks of ``sci-eval`` run (``preflight``: ``--limit``, the judge's key
and server). After the run, the results and samples files it wrote are made strict JSON
(NaN as ``null``, ``sci_tasks.outputs``) by reading them back; lm-eval's git lookup is made
quiet for the run (``quiet.quiet_git_lookup``: its stderr to the null device).
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import io
import json
import sys
import time
from pathlib import Path

import sci_tasks
from sci_tasks import include_path

INCLUDE = "--include_path"


class UsageError(ValueError):
    """A command line sci-lm-eval cannot hand to lm-eval."""


def include_path_argv(argv: list[str]) -> list[str]:
    """``argv`` with our task folder as lm-eval's ``--include_path``.

    Unchanged when there is nothing to run (no arguments, ``-h``) or when the folder given
    is ours already; a folder of the user's own is a UsageError (lm-eval takes one)."""
    if not argv or "-h" in argv or "--help" in argv:
        return list(argv)
    given = [
        arg.split("=", 1)[1] if arg.startswith(INCLUDE + "=") else argv[i + 1]
        for i, arg in enumerate(argv)
        if arg.startswith(INCLUDE + "=") or (arg == INCLUDE and i + 1 < len(argv))
    ]
    ours = Path(include_path()).resolve()
    if not given:
        return [*argv, INCLUDE, str(ours)]
    if all(Path(folder).expanduser().resolve() == ours for folder in given):
        return list(argv)
    raise UsageError(
        f"sci-lm-eval adds its own {INCLUDE} ({ours}) and lm-eval's CLI takes one folder, so "
        f"{INCLUDE} {given[0]} cannot be added: run lm_eval with a folder holding both, or "
        f"from Python sci_tasks.task_manager(include_path=[{given[0]!r}])"
    )


def output_folder(argv: list[str]) -> Path | None:
    """The folder lm-eval writes results to, from ``--output_path`` / ``-o`` (a ``.json``
    path names a file in it); None without one."""
    for i, arg in enumerate(argv):
        for flag in ("--output_path", "-o"):
            if arg == flag and i + 1 < len(argv):
                value = argv[i + 1]
            elif arg.startswith(flag + "="):
                value = arg.split("=", 1)[1]
            else:
                continue
            path = Path(value).expanduser()
            return path.parent if path.suffix == ".json" else path
    return None


def option_value(argv: list[str], *flags: str) -> str | None:
    """The value of the first of ``flags`` in ``argv`` (``--flag V`` or ``--flag=V``)."""
    for i, arg in enumerate(argv):
        for flag in flags:
            if arg == flag and i + 1 < len(argv):
                return argv[i + 1]
            if arg.startswith(flag + "="):
                return arg.split("=", 1)[1]
    return None


def preflight(argv: list[str]) -> None:
    """sci-eval's checks before any work (``limit_problem``, ``judge_preflight``)
    for a command that runs tasks: ``--limit`` usable, and the judge the run will ask
    (``--metadata '{"judge": ...}'`` or ``SCI_TASKS_JUDGE_*``; none with
    ``--predict_only``) with its key present and its server reachable. A UsageError says
    what is wrong in one line."""
    from sci_tasks.metrics.judge import resolve, resolve_correctness, resolve_roles
    from sci_tasks.run.preflight import (
        ConfigError,
        ServerUnreachable,
        check_judge,
        judge_preflight,
        limit_problem,
    )

    if not argv or argv[0] in ("ls", "validate") or "-h" in argv or "--help" in argv:
        return
    limit = option_value(argv, "--limit", "-L")
    if limit is not None:
        try:
            number: object = float(limit) if "." in limit or "e" in limit.lower() else int(limit)
        except ValueError:
            number = limit
        problem = limit_problem(number)
        if problem:
            raise UsageError(f"--limit {limit}: {problem}")
    run = run_arguments(argv)
    if run is not None:
        check_run(run)
    if "--predict_only" in argv or "-x" in argv:
        return  # nothing is scored: no judge is asked
    text = option_value(argv, "--metadata")
    try:
        metadata = json.loads(text) if text and text.lstrip().startswith("{") else None
        judge, correctness = resolve(metadata), resolve_correctness(metadata)
        judge_preflight(judge, correctness)
        for other in resolve_roles(metadata).values():  # other roles' judges, juries' jurors
            check_judge(other)
    except (ValueError, ConfigError, ServerUnreachable) as exc:
        raise UsageError(str(exc)) from None


def run_arguments(argv: list[str]) -> argparse.Namespace | None:
    """``argv`` read by lm-eval's own ``run`` parser (the legacy form without a subcommand
    too); None for another subcommand or arguments it refuses (lm-eval then says why)."""
    from lm_eval._cli.ls import List
    from lm_eval._cli.run import Run
    from lm_eval._cli.validate import Validate

    parser = argparse.ArgumentParser(prog="lm-eval")
    commands = parser.add_subparsers(dest="command")
    for command in (Run, List, Validate):
        command.create(commands)
    args = list(argv)
    if args and args[0] not in commands.choices:
        args.insert(0, "run")  # as lm-eval's HarnessCLI does
    if args[:1] != ["run"]:
        return None
    try:
        with contextlib.redirect_stderr(io.StringIO()):  # lm-eval prints its own usage error
            return parser.parse_args(args)
    except SystemExit:
        return None


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
    """Every ``results_*.json`` and ``samples_*.jsonl`` lm-eval wrote under ``folder`` since
    ``since`` rewritten through the one writer (``sci_tasks.outputs``: NaN / infinity as
    ``null``): lm-eval writes Python's ``NaN``, which strict JSON readers reject. The files
    are read back, so nothing of lm-eval's saving is patched."""
    from sci_tasks.outputs import jsonl_line, read_jsonl, write_json

    for path in folder.rglob("results_*.json"):
        if path.stat().st_mtime >= since:
            write_json(path, json.loads(path.read_text(encoding="utf-8")))
    for path in folder.rglob("samples_*.jsonl"):  # a sample's metric without a value: NaN
        if path.stat().st_mtime >= since:
            lines = path.read_text(encoding="utf-8").splitlines()
            safe = [jsonl_line(sample) for sample in read_jsonl(path)]
            if safe != lines:
                path.write_text("".join(f"{line}\n" for line in safe), encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    from lm_eval.__main__ import cli_evaluate

    from sci_tasks.quiet import quiet_git_lookup

    try:
        args = include_path_argv(sys.argv[1:] if argv is None else argv)
        preflight(args)
    except UsageError as exc:
        raise SystemExit(f"sci-lm-eval: {exc}") from None
    sys.argv = [sys.argv[0], *args]
    started = time.time() - 1  # file times may be coarser than the clock
    with quiet_git_lookup():  # outside a git checkout, lm-eval's `git describe` would print fatal:
        cli_evaluate()
    folder = output_folder(args)
    if folder is not None and folder.is_dir():
        make_results_strict_json(folder, started)


if __name__ == "__main__":
    main()
