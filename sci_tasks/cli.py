"""``sci-lm-eval``: stock ``lm_eval`` with the sci-tasks task folder always included.

Every argument goes to lm-eval unchanged (``run``, ``ls``, ``validate``, the legacy form
without a subcommand). lm-eval's CLI accepts one ``--include_path``, so instead of editing
the command line we hand lm-eval a ``TaskManager`` that adds our folder to whatever paths
it is given: a user's own ``--include_path`` keeps working next to ours.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from sci_tasks import include_path


def _with_our_tasks(paths: Any) -> list[str | Path]:
    given = [] if paths is None else list(paths) if isinstance(paths, (list, tuple)) else [paths]
    return [include_path(), *given]


def install_task_path() -> None:
    """Make every ``lm_eval.tasks.TaskManager`` built from now on include our tasks."""
    import lm_eval.tasks

    base = lm_eval.tasks.TaskManager
    if getattr(base, "_sci_tasks", False):
        return

    class TaskManager(base):  # type: ignore[misc, valid-type]
        _sci_tasks = True

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            if len(args) >= 2:  # (verbosity, include_path, ...) given positionally
                args = (args[0], _with_our_tasks(args[1]), *args[2:])
            else:
                kwargs["include_path"] = _with_our_tasks(kwargs.get("include_path"))
            super().__init__(*args, **kwargs)

    lm_eval.tasks.TaskManager = TaskManager


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

    if argv is not None:
        sys.argv = [sys.argv[0], *argv]
    install_task_path()
    install_safe_output()
    cli_evaluate()


if __name__ == "__main__":
    main()
