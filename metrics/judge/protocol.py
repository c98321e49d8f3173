"""What goes to a judge and what comes back: the request and reply types, the chat request
built from a request (structured-output arguments, messages with images), the reply text
read out of a chat-completion body, and the strict parse of that text (the whole reply one
JSON object valid against the schema).
"""

from __future__ import annotations

import base64
import json
import mimetypes
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema

from sci_tasks.metrics.constraints.text import strip_copied
from sci_tasks.metrics.judge import usage
from sci_tasks.text import safe_text, safe_value


@dataclass(frozen=True)
class JudgeRequest:
    """One question to the judge: prompt text, optional images, the reply's JSON schema
    (or, for a free-text protocol, no schema and the reader of the reply)."""

    prompt: str
    schema: Mapping[str, Any] | None  # None: free text, read by ``read_reply``
    prompt_version: str  # the template name and version, recorded with every verdict
    system: str = "You are a careful scientific grader. Reply with one JSON object only."
    images: Sequence[str] = ()  # file paths
    # free text: the reply's reading as a dict; raises ReplyError when it cannot be read
    read_reply: Callable[[str], dict[str, Any]] | None = None
    role: str = usage.CONSTRAINTS  # whose cost this is (usage.ROLES); not part of the cache key

    def __post_init__(self) -> None:
        # the boundary where text enters the judge: a lone surrogate from a model reply
        # could not be sent (UTF-8 request body) nor hashed into a cache key
        object.__setattr__(self, "prompt", safe_text(self.prompt))
        object.__setattr__(self, "system", safe_text(self.system))
        if (self.schema is None) == (self.read_reply is None):
            raise ValueError("a judge request has a JSON schema or a free-text reader, not both")


@dataclass(frozen=True)
class JudgeReply:
    data: dict[str, Any] | None  # the parsed, schema-valid object; None when it failed
    error: str | None  # why there is no data: the true reason
    model: str
    prompt_version: str
    attempts: int = 0
    cached: bool = False

    @property
    def ok(self) -> bool:
        return self.data is not None

    @property
    def provenance(self) -> str:
        return f"{self.model} / {self.prompt_version}"


class ReplyError(ValueError):
    """A reply that is not one schema-valid JSON object."""


def parse_strict(content: str | None, schema: Mapping[str, Any]) -> dict[str, Any]:
    """The whole reply must be one JSON object valid against ``schema``.

    No searching for an object inside prose: a judge that echoes the prompt (with its JSON
    example) back must NOT parse. One enclosing Markdown code fence is tolerated.
    """
    text = (content or "").strip()
    if text.startswith("```") and text.endswith("```") and text.count("```") == 2:
        text = text[3:-3].removeprefix("json").strip()
    if not text:
        raise ReplyError("empty reply")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReplyError(f"not JSON ({exc.msg} at char {exc.pos}): {text[:60]!r}") from None
    except RecursionError:
        raise ReplyError("JSON nested too deeply") from None
    if not isinstance(data, dict):
        raise ReplyError(f"JSON {type(data).__name__}, not an object")
    try:
        jsonschema.validate(data, schema)
    except jsonschema.ValidationError as exc:
        raise ReplyError(f"schema violation: {exc.message}") from None
    safe, _ = safe_value(data)  # a "\ud800" escape in the reply: its reason must be writable
    return dict(safe)


class EchoedPrompt(ReplyError):
    """A free-text reply that repeats the prompt: no grade is read out of it."""


def own_words(content: str, prompt: str) -> str:
    """A free-text reply without the text it repeats from the prompt (runs of six or more
    words, ``constraints.text.strip_copied``, the rule that keeps an echoed question from
    passing a constraint): a reader finds a grade only in the judge's own words, never in
    the prompt's blocks (its instructions, the reference answer, the response graded).
    Raises EchoedPrompt when at least half of the reply repeats the prompt: an echo is
    unscored, whatever letter or word stands in the rest of it."""
    own, copied = strip_copied(content, prompt)
    total = len(content.strip())
    if copied and 2 * copied >= total:
        raise EchoedPrompt(f"echoed the prompt ({copied:,} of {total:,} characters repeat it)")
    return own


class MalformedReply(ValueError):
    """An HTTP 200 body that is not an OpenAI chat completion."""


def reply_content(body: bytes, content_type: str = "", tool: bool = False) -> str:
    """The reply text of a chat-completion body (with ``tool``: the forced function call's
    arguments). A completion whose message has no text gives ``""`` (then "empty reply");
    a body that is not a chat completion raises MalformedReply naming what it is."""
    text = body.decode("utf-8", "replace").strip()
    if not text:
        raise MalformedReply("empty body")
    try:
        completion = json.loads(text)
    except (ValueError, RecursionError):
        kind = content_type.split(";")[0].strip() or "no content type"
        raise MalformedReply(f"body is not JSON ({kind}): {safe_text(text[:60])!r}") from None
    if not isinstance(completion, dict):
        raise MalformedReply(f"body is a JSON {type(completion).__name__}, not a chat completion")
    choices = completion.get("choices")
    if not isinstance(choices, list) or not choices:
        what = "has no choices" if not choices else f"choices is a {type(choices).__name__}"
        raise MalformedReply(f"the completion {what}")
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise MalformedReply("choice 0 has no message")
    if tool:
        calls = message.get("tool_calls") or []
        call = calls[0] if isinstance(calls, list) and calls else None
        function = call.get("function") if isinstance(call, dict) else None
        arguments = function.get("arguments") if isinstance(function, dict) else None
        return safe_text(arguments) if isinstance(arguments, str) else ""
    content = message.get("content")
    if content is None:
        return ""
    if not isinstance(content, str):
        raise MalformedReply(f"message content is a JSON {type(content).__name__}, not text")
    return safe_text(content)


def reported_tokens(body: bytes) -> tuple[int, int] | None:
    """(prompt_tokens, completion_tokens) of a chat completion's ``usage``; None when the
    body reports none (a server may not)."""
    try:
        completion = json.loads(body)
    except (ValueError, RecursionError):
        return None
    reported = completion.get("usage") if isinstance(completion, dict) else None
    if not isinstance(reported, dict):
        return None
    prompt, completion_tokens = reported.get("prompt_tokens"), reported.get("completion_tokens")
    # whole counts only (``type(...) is int``: a JSON true is no count)
    if type(prompt) is int and type(completion_tokens) is int:
        if prompt >= 0 and completion_tokens >= 0:
            return prompt, completion_tokens
    return None


def structured_output_args(kind: str, schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """The request arguments that ask the server for a reply of ``schema``; none at all for
    a free-text request (``schema`` None): no ``response_format``, no tools."""
    if schema is None or kind == "none":
        return {}
    if kind == "json_schema":
        spec = {"name": "verdict", "schema": dict(schema), "strict": True}
        return {"response_format": {"type": "json_schema", "json_schema": spec}}
    if kind == "tool":
        function = {"name": "verdict", "parameters": dict(schema)}
        return {
            "tools": [{"type": "function", "function": function}],
            "tool_choice": {"type": "function", "function": {"name": "verdict"}},
        }
    return {"response_format": {"type": "json_object", "schema": dict(schema)}}


def chat_messages(request: JudgeRequest) -> list[dict[str, Any]]:
    content: Any = request.prompt
    if request.images:
        content = [{"type": "text", "text": request.prompt}] + [
            {"type": "image_url", "image_url": {"url": _data_url(p)}} for p in request.images
        ]
    user = {"role": "user", "content": content}
    # no system message when a protocol has none (CompassVerifier: one user message)
    return [{"role": "system", "content": request.system}, user] if request.system else [user]


def _data_url(path: str) -> str:
    mime = mimetypes.guess_type(path)[0] or "image/png"
    return f"data:{mime};base64,{base64.b64encode(Path(path).read_bytes()).decode()}"
