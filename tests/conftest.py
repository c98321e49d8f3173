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


@pytest.fixture()
def no_data_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No data location from the environment (the common root and every declared
    benchmark's key unset) and nothing remembered from an earlier read: each test sees
    only the data it points at."""
    from sci_tasks import benchmarks
    from sci_tasks.data import forget_read_data
    from sci_tasks.data.locate import ROOT_KEY

    for key in (ROOT_KEY, *benchmarks.data_keys().values()):
        monkeypatch.delenv(key, raising=False)
    forget_read_data()
