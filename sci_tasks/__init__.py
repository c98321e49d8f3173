"""sci-tasks: scientific benchmarks as lm-evaluation-harness tasks.

Stock lm-eval 0.4.x has no task plugin mechanism, so the package hands lm-eval its task
folder: pass ``include_path()`` to ``lm_eval --include_path``, run ``sci-lm-eval``, or use
``task_manager()`` with ``lm_eval.simple_evaluate``.
"""

from __future__ import annotations

from importlib.resources import files
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lm_eval.tasks import TaskManager

__version__ = "0.1.0"


def include_path() -> str:
    """The folder holding every sci-tasks task YAML (pass it to lm-eval's ``--include_path``)."""
    return str(files("sci_tasks") / "tasks")


def task_manager(metadata: dict[str, Any] | None = None, **kwargs: Any) -> TaskManager:
    """A ``TaskManager`` that knows the standard lm-eval tasks and ours.

    ``metadata`` reaches every task, e.g. ``{"SCIMIF_DATA_DIR": "/data/scimif"}``.
    """
    from lm_eval.tasks import TaskManager

    return TaskManager(include_path=include_path(), metadata=metadata, **kwargs)


__all__ = ["__version__", "include_path", "task_manager"]
