"""Text that can always be written: lone surrogates made safe at the boundaries.

A model reply decoded from JSON can hold a lone UTF-16 surrogate (``"\\ud800"``): a Python
string, but not Unicode, so writing it as UTF-8 (a samples file, a judge request, a cache
key) raises. Where such text crosses into this package (a logged samples file, a judge
request) or leaves it (lm-eval's samples), each lone surrogate becomes U+FFFD, once; every
other string is returned unchanged (same object), so keys and verdicts of ordinary text
never change.
"""

from __future__ import annotations

from typing import Any

REPLACEMENT = "\ufffd"


def has_lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def safe_text(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD (a valid pair is joined)."""
    if not has_lone_surrogate(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def safe_value(value: Any) -> tuple[Any, int]:
    """``value`` (strings, lists, tuples, dicts, nested) made safe, and how many strings
    had to change. Unchanged containers are returned as they are."""
    if isinstance(value, str):
        fixed = safe_text(value)
        return fixed, int(fixed is not value)
    if isinstance(value, dict):
        changed = 0
        out: dict[Any, Any] = {}
        for key, item in value.items():
            key, n_key = safe_value(key) if isinstance(key, str) else (key, 0)
            item, n_item = safe_value(item)
            out[key] = item
            changed += n_key + n_item
        return (out if changed else value), changed
    if isinstance(value, (list, tuple)):
        pairs = [safe_value(item) for item in value]
        changed = sum(n for _, n in pairs)
        if not changed:
            return value, 0
        items = [item for item, _ in pairs]
        return (items if isinstance(value, list) else tuple(items)), changed
    return value, 0


def make_safe_in_place(records: list[Any]) -> int:
    """Make every record of ``records`` safe in place; the number of strings changed."""
    total = 0
    for i, record in enumerate(records):
        fixed, changed = safe_value(record)
        if changed:
            records[i] = fixed
            total += changed
    return total
