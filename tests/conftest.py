"""Every test process (each pytest-xdist worker, or the one process without xdist) gets its
own cache roots, set before any test module is imported (a module-level copy of
``os.environ`` sees them too): no test reuses model responses or judge replies cached by an
earlier run (the end-to-end tests must really run the model), and no two workers write the
same Hugging Face cache."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from .servers import Katan, katan

# (variable, folder under the process's private root)
PRIVATE_CACHES = (("SCI_TASKS_CACHE", "sci-tasks-cache"), ("HF_HOME", "hf-home"))
_saved: dict[str, str | None] = {}
_root_key = pytest.StashKey[str]()


def pytest_configure(config: pytest.Config) -> None:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    root = tempfile.mkdtemp(prefix=f"sci-tasks-tests-{worker}-")
    config.stash[_root_key] = root
    for name, folder in PRIVATE_CACHES:
        _saved[name] = os.environ.get(name)
        os.environ[name] = os.path.join(root, folder)


def pytest_unconfigure(config: pytest.Config) -> None:
    for name, value in _saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    root = config.stash.get(_root_key, None)
    if root:
        shutil.rmtree(root, ignore_errors=True)


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


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Katan]:
    """The model under test as a real OpenAI-compatible server: llm-katan's echo backend, at
    most 4 requests at a time, one server for the test module that asks for it (its replies
    keep no state; starting one costs seconds). A test counting its requests counts from
    ``requests_received()`` at its start."""
    with katan(tmp_path_factory.mktemp("model"), "--max-concurrent", "4") as server:
        yield server


@pytest.fixture(scope="module")
def judge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Katan]:
    """A judge server (llm-katan's echo backend, model ``judge-model``), one for the test
    module that asks for it, as ``model``."""
    with katan(tmp_path_factory.mktemp("judge"), model="judge-model") as server:
        yield server


@pytest.fixture()
def own_data_caches(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, no_data_env: None) -> None:
    """The test's own image cache (``SCI_TASKS_CACHE``) and `datasets` cache under its
    ``tmp_path``, and no data location from the environment: nothing carries over between
    tests that read a release."""
    import datasets

    from sci_tasks.data import forget_read_data

    monkeypatch.setenv("SCI_TASKS_CACHE", str(tmp_path / "sci-cache"))
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "hf-datasets")
    forget_read_data()  # again: the cache folders changed


@pytest.fixture(scope="session")
def view_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Stock lm_eval output of two models that the sci-view tests read, made once per test
    process for both test_view*.py files (it runs lm_eval twice)."""
    from .view_helpers import write_view_runs

    return write_view_runs(tmp_path_factory)
