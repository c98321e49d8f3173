"""What the SciGen-Verify and SPM-Bench reply parsers share: removing reasoning and finding
JSON objects in a model's reply (one implementation, so both benchmarks read reasoning and
JSON replies the same way)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

_THINK_BLOCK = re.compile(r"<\s*think\s*>.*?<\s*/\s*think\s*>", re.IGNORECASE | re.DOTALL)
_THINK_OPEN = re.compile(r"<\s*think\s*>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"<\s*/\s*think\s*>", re.IGNORECASE)


def strip_reasoning(text: str) -> tuple[str, str]:
    """The reply without reasoning, and a note when a rule beyond complete blocks applied.

    Complete ``<think>...</think>`` blocks go; text before a ``</think>`` that has no
    opening tag is reasoning too; an unclosed ``<think>`` (a reply cut off while thinking)
    removes everything after it: an answer written only inside reasoning is no answer.
    """
    note = ""
    text = _THINK_BLOCK.sub(" ", text)
    close = list(_THINK_CLOSE.finditer(text))
    if close:  # an unopened </think>: what precedes it is reasoning
        text = text[close[-1].end() :]
        note = "text before an unopened </think> dropped"
    opened = _THINK_OPEN.search(text)
    if opened:  # cut off while thinking
        text = text[: opened.start()]
        note = "unclosed <think>: the rest of the reply is reasoning"
    return text, note


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
