"""The project's cache root, the one rule every cache follows (judge replies, model
responses, converted models, hub images, budgeted judge images)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def cache_root() -> Path:
    """``$SCI_TASKS_CACHE``, else ``$XDG_CACHE_HOME/sci-tasks``, else ``~/.cache/sci-tasks``."""
    root = os.environ.get("SCI_TASKS_CACHE")
    if root:
        return Path(root).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "sci-tasks"


@contextmanager
def building(target: Path) -> Iterator[Path]:
    """A fresh work folder beside ``target`` to build a cached model folder in, renamed to
    ``target`` when the block ends without error and removed in any case: a killed or
    concurrent build never leaves a half-written folder behind, and when another process
    finished the same ``target`` first (it holds ``config.json``), its folder is kept."""
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        yield work
        try:
            os.rename(work, target)
        except OSError:
            if not (target / "config.json").is_file():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
