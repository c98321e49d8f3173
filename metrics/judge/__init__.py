"""The judge client and the judge in force for this process.

``sci-eval`` and ``sci-score`` set the judge explicitly (``configure``). On the stock
``lm_eval`` path the judge comes from ``--metadata '{"judge": {...}}'`` (read when a task
loads its data) or from ``SCI_TASKS_JUDGE_*`` environment variables. No judge: judge-scored
checks are reported unscored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sci_tasks.metrics.judge.client import (
    JudgeClient,
    JudgeConfig,
    JudgeReply,
    JudgeRequest,
    parse_strict,
)

_active: JudgeClient | None = None
_configured = False


def configure(config: JudgeConfig | None) -> JudgeClient | None:
    """Set (or clear, with None) the judge used by every judged check in this process."""
    global _active, _configured
    if config is None:
        _active = None
    elif _active is None or _active.config != config:
        _active = JudgeClient(config)
    _configured = True
    return _active


def configure_from_metadata(metadata: Mapping[str, Any]) -> None:
    """lm-eval ``--metadata`` path: ``{"judge": {"model": ..., "base_url": ...}}``."""
    settings = metadata.get("judge")
    if settings:
        if not isinstance(settings, Mapping):
            raise ValueError('--metadata "judge" must be an object of judge settings')
        configure(JudgeConfig.from_mapping(settings))


def active() -> JudgeClient | None:
    """The judge in force: configured explicitly, else from the environment, else none."""
    global _configured
    if not _configured:
        config = JudgeConfig.from_env()
        configure(config)
        _configured = True
    return _active


__all__ = [
    "JudgeClient",
    "JudgeConfig",
    "JudgeReply",
    "JudgeRequest",
    "active",
    "configure",
    "configure_from_metadata",
    "parse_strict",
]
