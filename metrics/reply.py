"""What every benchmark's reply reading shares: the one normalisation of model output (an
lm-eval filter, ``NormaliseReply``) and finding JSON objects in a reply.

Normalisation is one filter in every task's ``filter_list`` (after ``take_first``, the
last), so the samples log's ``filtered_resps`` is exactly
the text that was scored, and no scorer strips reasoning again. The benchmark parsers
(``scimif``, ``spm_parse``, ``verify_parse``, ``rubric``) read the normalised text."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from lm_eval.api.filter import Filter

# an opening or closing think tag (group 1 set for a closing one); the "/" is a literal
# between two \s*, so no run of spaces can be split two ways
_THINK_TAG = re.compile(r"<\s*(?:(/)\s*)?think\s*>", re.IGNORECASE)
_THINK_OPEN = re.compile(r"<\s*think\s*>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"<\s*/\s*think\s*>", re.IGNORECASE)


def normalise_reply(text: str) -> str:
    """The part of a model reply that is scored, outer whitespace stripped (idempotent).

    Complete ``<think>...</think>`` blocks go; text before a ``</think>`` that has no
    opening tag is reasoning too; an unclosed ``<think>`` (a reply cut off while thinking)
    removes everything after it: an answer written only inside reasoning is no answer.
    """
    text = _without_think_blocks(text)
    close = list(_THINK_CLOSE.finditer(text))
    if close:  # an unopened </think>: what precedes it is reasoning
        text = text[close[-1].end() :]
    opened = _THINK_OPEN.search(text)
    if opened:  # cut off while thinking
        text = text[: opened.start()]
    return text.strip()


def _without_think_blocks(text: str) -> str:
    """``text`` with each complete block (an opening tag to the first closing tag after it)
    replaced by one space, in one pass over the tags: a regex with a lazy ``.*?`` between the
    tags would rescan to the end from every unclosed opening tag (quadratic)."""
    pieces, kept_from, opened = [], 0, -1
    for tag in _THINK_TAG.finditer(text):
        if tag.group(1) is None:  # opening: starts a block unless one is open already
            opened = tag.start() if opened < 0 else opened
        elif opened >= 0:  # closing an open block
            pieces += [text[kept_from:opened], " "]
            kept_from, opened = tag.end(), -1
    return "".join(pieces) + text[kept_from:] if pieces else text


class NormaliseReply(Filter):
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


# where a JSON object can start: "{" then a key or "}" (a failed decode builds an error that
# counts lines up to its position, so trying every "{" of a long reply was quadratic)
OBJECT_START = re.compile(r'\{\s*["}]')


def decode_at(
    decoder: json.JSONDecoder, text: str, pos: int, window: int = 1024
) -> tuple[Any, int]:
    """``decoder.raw_decode(text, pos)``, tried first on the next ``window`` characters: a
    failed decode's error counts the lines before its position, which over a long reply of
    failed attempts is quadratic. A failure the window's cut may have caused (at its end, or
    an unterminated string) is decided on the whole text."""
    piece = text[pos : pos + window]
    try:
        obj, end = decoder.raw_decode(piece)
    except json.JSONDecodeError as err:
        cut = len(piece) == window and (
            err.pos >= window - 8 or err.msg.startswith("Unterminated string")
        )
        if not cut:
            raise
        return decoder.raw_decode(text, pos)
    return obj, pos + end


def json_objects(text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(position, object) for every top-level JSON object in ``text`` (bare, or inside a
    Markdown code fence); text that is not JSON is skipped."""
    decoder = json.JSONDecoder()
    start = OBJECT_START.search(text)
    while start is not None:
        pos = start.start()
        try:
            obj, end = decode_at(decoder, text, pos)
        except (json.JSONDecodeError, RecursionError):  # not JSON; or nested past Python's limit
            start = OBJECT_START.search(text, pos + 1)
            continue
        if isinstance(obj, dict):
            yield pos, obj
        start = OBJECT_START.search(text, end)


def key_of(obj: dict[str, Any], names: tuple[str, ...]) -> str | None:
    """The first key of ``obj`` that is one of ``names`` (case-insensitive), or None."""
    by_lower = {k.lower(): k for k in obj if isinstance(k, str)}
    for name in names:
        if name in by_lower:
            return by_lower[name]
    return None
