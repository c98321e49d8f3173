"""What the CompassVerifier tests (test_compass_verifier*.py) read from a request to the
verifier: the gold answer it was asked about, and that it was asked in free text."""

from __future__ import annotations

from typing import Any


def gold_of(payload: dict[str, Any]) -> str:
    prompt = payload["messages"][-1]["content"]
    block = prompt.split("<Standard Answer Begin>", 1)[1].split("<Standard Answer End>", 1)[0]
    return block.lstrip(":").strip()


def assert_free_text(requests: list[dict[str, Any]]) -> None:
    """What reached the verifier: one user message, no system prompt, nothing structured."""
    assert requests
    for payload in requests:
        assert not {"response_format", "tools", "tool_choice", "functions"} & set(payload)
        (message,) = payload["messages"]
        assert message["role"] == "user" and isinstance(message["content"], str)
        assert "<Original Question Begin>" in message["content"]
        assert payload["temperature"] == 0.0
