"""``sci-lm-eval``: stock ``lm_eval`` with the sci-tasks task folder included.

Every argument goes to lm-eval unchanged (``run``, ``ls``, ``validate``, the legacy form
without a subcommand), plus ``--include_path <our task folder>``. lm-eval 0.4's CLI takes
ONE ``--include_path`` (a single folder: no separator is split), so a command that brings
its own is refused in one line naming the ways to use both (``include_path_argv``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

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


def install_safe_output() -> None:
    """What lm-eval writes, made safe at the boundary, once: text that cannot be encoded (a
    lone surrogate in a model's reply) before a samples file is written (else the write
    fails part-way and the good samples after it are lost: ``sci_tasks.text``), and NaN as
    ``null`` in the results file (strict JSON readers reject ``NaN``: ``app.json_safe``)."""
    from lm_eval.loggers import EvaluationTracker

    from sci_tasks.app import json_safe
    from sci_tasks.text import make_safe_in_place

    if getattr(EvaluationTracker, "_sci_tasks", False):
        return
    save_samples = EvaluationTracker.save_results_samples
    save_results = EvaluationTracker.save_results_aggregated

    def save_results_samples(self: Any, task_name: str, samples: Any) -> None:
        if isinstance(samples, list):
            make_safe_in_place(samples)
        save_samples(self, task_name, samples)

    def save_results_aggregated(self: Any, results: Any, samples: Any) -> None:
        save_results(self, results=json_safe(results), samples=samples)

    EvaluationTracker.save_results_samples = save_results_samples
    EvaluationTracker.save_results_aggregated = save_results_aggregated
    EvaluationTracker._sci_tasks = True


def main(argv: list[str] | None = None) -> None:
    from lm_eval.__main__ import cli_evaluate

    try:
        args = include_path_argv(sys.argv[1:] if argv is None else argv)
    except UsageError as exc:
        raise SystemExit(f"sci-lm-eval: {exc}") from None
    sys.argv = [sys.argv[0], *args]
    install_safe_output()
    cli_evaluate()


if __name__ == "__main__":
    main()
