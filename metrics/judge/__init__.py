"""The judge client, and how a run's judge reaches scoring.

A run's judge is resolved once, from its configuration (``resolve``): ``metadata["judge"]``
(lm-eval's ``--metadata '{"judge": {...}}'``; ``sci-eval`` passes its Hydra ``judge=`` group
the same way), else the ``SCI_TASKS_JUDGE_*`` environment. A task's data hook records the
judge's non-secret settings in every document (``JUDGE_FIELD``), as the image budget rides
there, because lm-eval hands ``--metadata`` only to ``custom_dataset`` and calls
``process_results(doc, results)`` with nothing else. Scoring reads the judge from the document
it scores (``config_of``) and gets a client from ``client_for``: a cache of clients keyed by
settings, not a judge in force. ``sci-score`` puts its own judge in the documents it re-scores
(``with_judge``). No judge: judge-scored checks are reported unscored.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from sci_tasks.metrics.judge.client import (
    JudgeClient,
    JudgeConfig,
    JudgeReply,
    JudgeRequest,
    parse_strict,
)

JUDGE_FIELD = "judge_settings"  # the document field: JSON text of JudgeConfig.public(), or None


def resolve(
    metadata: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None
) -> JudgeConfig | None:
    """The judge of a run: ``metadata["judge"]`` when that key is given (null or ``{}``: no
    judge, whatever the environment says), else ``SCI_TASKS_JUDGE_*`` from the environment."""
    if metadata is not None and "judge" in metadata:
        settings = metadata["judge"]
        if not settings:
            return None
        if not isinstance(settings, Mapping):
            raise ValueError('--metadata "judge" must be an object of judge settings')
        return JudgeConfig.from_mapping(settings)
    return JudgeConfig.from_env(environ)


def settings_text(config: JudgeConfig | None) -> str | None:
    """What a document carries for ``config``: its public settings as JSON (no key)."""
    return None if config is None else json.dumps(config.public(), sort_keys=True)


def with_judge(doc: Mapping[str, Any], config: JudgeConfig | None) -> dict[str, Any]:
    """``doc`` carrying ``config`` (None: no judge) for scoring."""
    return {**doc, JUDGE_FIELD: settings_text(config)}


def config_of(doc: Mapping[str, Any]) -> JudgeConfig | None:
    """The judge a document was loaded with (None: no judge, or a document without one)."""
    text = doc.get(JUDGE_FIELD)
    return _parse_settings(text) if isinstance(text, str) and text else None


@lru_cache(maxsize=64)
def _parse_settings(text: str) -> JudgeConfig | None:
    settings = json.loads(text)
    return JudgeConfig.from_mapping(settings) if settings else None


_clients: dict[JudgeConfig, JudgeClient] = {}
_clients_lock = threading.Lock()


def client_for(config: JudgeConfig | None) -> JudgeClient | None:
    """The client for ``config``, built once per process (its reply memo, call count and
    breaker are shared by every scorer with the same settings); the key is read from the
    variable ``config.api_key_env`` names when the client is built."""
    if config is None:
        return None
    with _clients_lock:
        client = _clients.get(config)
        if client is None:
            client = _clients[config] = JudgeClient(config)
        return client


__all__ = [
    "JUDGE_FIELD",
    "JudgeClient",
    "JudgeConfig",
    "JudgeReply",
    "JudgeRequest",
    "client_for",
    "config_of",
    "parse_strict",
    "resolve",
    "settings_text",
    "with_judge",
]
