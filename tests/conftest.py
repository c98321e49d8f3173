"""Every test run gets its own cache root, so no test reuses model responses or judge
replies cached by an earlier run (the end-to-end tests must really run the model)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    previous = os.environ.get("SCI_TASKS_CACHE")
    os.environ["SCI_TASKS_CACHE"] = str(tmp_path_factory.mktemp("sci-tasks-cache"))
    yield
    if previous is None:
        os.environ.pop("SCI_TASKS_CACHE", None)
    else:
        os.environ["SCI_TASKS_CACHE"] = previous
