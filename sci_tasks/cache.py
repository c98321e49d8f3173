"""The project's cache root, the one rule every cache follows (judge replies, model
responses, converted models, hub images, budgeted judge images)."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """``$SCI_TASKS_CACHE``, else ``$XDG_CACHE_HOME/sci-tasks``, else ``~/.cache/sci-tasks``."""
    root = os.environ.get("SCI_TASKS_CACHE")
    if root:
        return Path(root).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "sci-tasks"
