"""``sci-lm-eval``: stock ``lm_eval`` with the sci-tasks task folder included.

Every argument goes to lm-eval unchanged (``run``, ``ls``, ``validate``, the legacy form
without a subcommand), plus ``--include_path <our task folder>``. lm-eval 0.4's CLI takes
ONE ``--include_path`` (a single folder: no separator is split), so a command that brings
its own is refused in one line naming the ways to use both (``include_path_argv``).
Before any work the checks of ``sci-eval`` run (``preflight``: ``--limit``, the judge's key
and server). After the run, the results and samples files it wrote are made strict JSON
(NaN as ``null``, ``sci_tasks.outputs``) by reading them back; lm-eval's git lookup is made
quiet for the run (``manifest.quiet_git``).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

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
    from sci_tasks.metrics.judge import resolve, resolve_correctness
    from sci_tasks.run.preflight import (
        ConfigError,
        ServerUnreachable,
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
    if "--predict_only" in argv or "-x" in argv:
        return  # nothing is scored: no judge is asked
    text = option_value(argv, "--metadata")
    try:
        metadata = json.loads(text) if text and text.lstrip().startswith("{") else None
        judge, correctness = resolve(metadata), resolve_correctness(metadata)
        judge_preflight(judge, correctness)
    except (ValueError, ConfigError, ServerUnreachable) as exc:
        raise UsageError(str(exc)) from None


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

    from sci_tasks.manifest import quiet_git

    try:
        args = include_path_argv(sys.argv[1:] if argv is None else argv)
        preflight(args)
    except UsageError as exc:
        raise SystemExit(f"sci-lm-eval: {exc}") from None
    sys.argv = [sys.argv[0], *args]
    started = time.time() - 1  # file times may be coarser than the clock
    with quiet_git():  # outside a git checkout, lm-eval's `git describe` would print fatal:
        cli_evaluate()
    folder = output_folder(args)
    if folder is not None and folder.is_dir():
        make_results_strict_json(folder, started)


if __name__ == "__main__":
    main()
