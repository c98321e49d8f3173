"""``sci-lm-eval``: stock ``lm_eval`` with the sci-tasks task folder included.

Every argument goes to lm-eval unchanged (``run``, ``ls``, ``validate``, the legacy form
without a subcommand), plus ``--include_path <our task folder>``. lm-eval 0.4's CLI takes
ONE ``--include_path`` (a single folder: no separator is split), so a command that brings
its own is refused in one line naming the ways to use both (``include_path_argv``). After
the run, the results files it wrote are made strict JSON (NaN as ``null``) by reading them
back; nothing of lm-eval's is patched.
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


def make_results_strict_json(folder: Path, since: float) -> None:
    """Every ``results_*.json`` lm-eval wrote under ``folder`` since ``since`` rewritten with
    NaN / infinity as ``null``: lm-eval writes Python's ``NaN``, which strict JSON readers
    reject (``app.json_safe``). The files are read back, so nothing of lm-eval's is patched."""
    from sci_tasks.app import json_safe

    for path in folder.rglob("results_*.json"):
        if path.stat().st_mtime >= since:
            results = json.loads(path.read_text(encoding="utf-8"))
            text = json.dumps(json_safe(results), indent=2, ensure_ascii=False, default=str)
            path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    from lm_eval.__main__ import cli_evaluate

    try:
        args = include_path_argv(sys.argv[1:] if argv is None else argv)
    except UsageError as exc:
        raise SystemExit(f"sci-lm-eval: {exc}") from None
    sys.argv = [sys.argv[0], *args]
    started = time.time() - 1  # file times may be coarser than the clock
    cli_evaluate()
    folder = output_folder(args)
    if folder is not None and folder.is_dir():
        make_results_strict_json(folder, started)


if __name__ == "__main__":
    main()
