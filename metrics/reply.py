"""What every benchmark's reply reading shares: the one normalisation of model output (an
lm-eval filter, ``NormaliseReply``) and finding JSON objects in a reply.

Normalisation is one filter in every task's ``filter_list`` (after ``SafeText`` and
``take_first``, before ``JudgePrefetch``), so the samples log's ``filtered_resps`` is exactly
the text that was scored, and no scorer strips reasoning again. The benchmark parsers
(``scimif``, ``spm_parse``, ``verify_parse``, ``rubric``) read the normalised text."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

_THINK_BLOCK = re.compile(r"<\s*think\s*>.*?<\s*/\s*think\s*>", re.IGNORECASE | re.DOTALL)
_THINK_OPEN = re.compile(r"<\s*think\s*>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"<\s*/\s*think\s*>", re.IGNORECASE)


def normalise_reply(text: str) -> str:
    """The part of a model reply that is scored, outer whitespace stripped (idempotent).

    Complete ``<think>...</think>`` blocks go; text before a ``</think>`` that has no
    opening tag is reasoning too; an unclosed ``<think>`` (a reply cut off while thinking)
    removes everything after it: an answer written only inside reasoning is no answer.
    """
    text = _THINK_BLOCK.sub(" ", text)
    close = list(_THINK_CLOSE.finditer(text))
    if close:  # an unopened </think>: what precedes it is reasoning
        text = text[close[-1].end() :]
    opened = _THINK_OPEN.search(text)
    if opened:  # cut off while thinking
        text = text[: opened.start()]
    return text.strip()


class NormaliseReply:
    """lm-eval filter (after ``take_first``): each response replaced by ``normalise_reply`` of
    it, so ``filtered_resps`` shows what the scorers read. Non-text responses pass unchanged."""

    def apply(self, resps: list[Any], docs: list[Any]) -> list[Any]:
        return [_normalised(r) for r in resps]


def _normalised(response: Any) -> Any:
    if isinstance(response, str):
        return normalise_reply(response)
    if isinstance(response, list):  # placed before take_first: every sampled response
        return [_normalised(r) for r in response]
    return response


def json_objects(text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(position, object) for every top-level JSON object in ``text`` (bare, or inside a
    Markdown code fence); text that is not JSON is skipped."""
    decoder = json.JSONDecoder()
    pos = text.find("{")
    while pos >= 0:
        try:
            obj, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            pos = text.find("{", pos + 1)
            continue
        if isinstance(obj, dict):
            yield pos, obj
        pos = text.find("{", end)


def key_of(obj: dict[str, Any], names: tuple[str, ...]) -> str | None:
    """The first key of ``obj`` that is one of ``names`` (case-insensitive), or None."""
    by_lower = {k.lower(): k for k in obj if isinstance(k, str)}
    for name in names:
        if name in by_lower:
            return by_lower[name]
    return None
