"""Label lists in SPM-Bench replies (``parse.py`` rule 4): ``A, C``, ``AC``, ``a and c``,
ranges, *only*; a label outside the options raises ``OutOfSet`` (rule 5).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sci_tasks.benchmarks.spm_bench.option_texts import DECORATION

_SEPARATOR = re.compile(r"\s*(?:,|;|/|&|\+|\band\b)\s*|\s+", re.IGNORECASE)


_FILLER = re.compile(
    r"^(?:(?:both|all|only|options?|choices?|labels?|statements?)\s+)+", re.IGNORECASE
)


_ONLY = re.compile(r"\s+only$", re.IGNORECASE)


# a range of labels: "A through C", "A to C", "A-C", "A–C" (capitals only)
_RANGE = re.compile(r"(?<![A-Za-z])(?P<first>[A-Z])(?:\s+(?:through|thru|to)\s+|[-–])"
                    r"(?P<last>[A-Z])(?![A-Za-z])")  # fmt: skip


class OutOfSet(ValueError):
    """A label list naming a letter that is not one of the options."""


def label_list(text: str, valid: Sequence[str], *, lenient: bool) -> tuple[str, ...] | None:
    """``text`` read as nothing but a list of labels, or None.

    ``lenient``: single letters in any case and uppercase runs (``AC``) count; otherwise
    only single capital letters. Raises ``OutOfSet`` for a lone letter outside ``valid``.
    """
    text = _ONLY.sub("", _FILLER.sub("", text.strip().rstrip(".!").strip()))
    text = _RANGE.sub(_expand_range, text)
    if not text:
        return None
    tokens = [t for t in _SEPARATOR.split(text) if t]
    found: list[str] = []
    for token in tokens:
        if len(token) == 1 and token.isalpha() and (lenient or token.isupper()):
            found.append(token.upper())
        elif lenient and token.isalpha() and token.isascii() and token.isupper():
            if not all(ch in valid for ch in token):
                return None  # a word such as "ATOM", not a run of labels
            found.extend(token)
        else:
            return None
    outside = sorted({f for f in found if f not in valid})
    if outside:
        raise OutOfSet(f"label(s) {', '.join(outside)} not among the options {', '.join(valid)}")
    return tuple(sorted(set(found)))


def _expand_range(m: re.Match[str]) -> str:
    first, last = ord(m["first"]), ord(m["last"])
    if first >= last:
        return m[0]  # "C to A": not a range, and the word "to" leaves the list unreadable
    return " ".join(chr(c) for c in range(first, last + 1))


def strip_decoration(text: str) -> str:
    return DECORATION.sub(" ", text)
