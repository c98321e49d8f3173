"""A candidate molecule (``Candidate``, its ``Rank``) and how a token that may be one is
cleaned and classified (``Collector``): the pieces ``molecule_candidates.py`` scans a
response with and ``molecules.py`` chooses from.

Where the format is not stated (generic labels, boxes, JSON "molecule" keys), a value is
SELFIES when it is two or more ``[...]`` symbols, SMILES when it is made of SMILES tokens
with at least two atoms ("Answer: B" is a choice, not borane), else an IUPAC name when it
has that shape, else not a molecule. A stated SMILES is kept even when malformed, if it
carries SMILES punctuation, so that it is reported as invalid rather than skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import IntEnum

from rdkit import Chem

from sci_tasks.metrics.constraints.notation import (
    SMILES_PUNCT_RE,
    generic_shape,
    iupac_problem,
    long_format,
    molecular_formula,
    selfies_shaped,
    smiles_shaped,
)
from sci_tasks.metrics.constraints.text import clip

FORMATS = ("smiles", "selfies", "iupac")
FORMAT_WORDS = {"smiles": "SMILES", "selfies": "SELFIES", "iupac": "IUPAC name"}


class Rank(IntEnum):
    DECISIVE = 0
    STRONG = 1
    MEDIUM = 2
    WEAK = 3
    EXTRACTED = 4


@dataclass
class Candidate:
    """One string that may be the response's molecule."""

    text: str
    fmt: str  # "smiles" | "selfies" | "iupac"
    source: str  # where it was found, for reasons
    rank: Rank
    mol: Chem.Mol | None = field(default=None, repr=False)
    smiles: str | None = None  # the SMILES parsed (decoded, for SELFIES)
    error: str = ""  # why it is not valid; "" when valid
    checked: bool = False

    @property
    def valid(self) -> bool:
        return self.checked and not self.error

    @property
    def formula(self) -> str:
        return molecular_formula(self.mol) if self.mol is not None else ""

    def describe(self) -> str:
        """``SMILES 'CCO' from label 'SMILES'``: what, as written, and where."""
        return f"{FORMAT_WORDS[self.fmt]} {clip(self.text, 60)!r} from {self.source}"


LATEX_TEXT_RE = re.compile(r"\\(?:text|mathrm|texttt|ce)[ \t]*\{([^{}\n]{1,400})\}")
_WRAPPERS: tuple[tuple[str, str], ...] = (
    ("**", "**"),
    ("__", "__"),
    ("`", "`"),
    ('"', '"'),
    ("'", "'"),
    ("“", "”"),
    ("‘", "’"),
    ("$", "$"),
    ("<", ">"),
)
TRAIL = ".,;:!?"
_WRAPPER_FIRST = frozenset(opener[0] for opener, _ in _WRAPPERS)
LINE_LEAD_RE = re.compile(r"^(?:[-*+>•]|[0-9]{1,2}[.)])[ \t]+")
_NAME_CUT_RE = re.compile(
    r",[ \t]|;|[ \t]\(|\.(?:[ \t]|$)|[ \t][-–—][ \t]"
    r"|[ \t](?:which|that|with|is|was|has|and|or|as|for|in)[ \t]",
    re.I,
)


def unwrap(text: str) -> str:
    """Strip whitespace, Markdown emphasis, backticks, quotes, ``$`` and ``\\text{}``."""
    s = text.strip()
    if s and s[0] not in _WRAPPER_FIRST and s[0] != "\\" and s[-1] not in TRAIL:
        return s  # nothing the loop below would strip (most tokens): skip it
    for _ in range(6):
        before = s
        m = LATEX_TEXT_RE.fullmatch(s)
        if m:
            s = m.group(1).strip()
        for opener, closer in _WRAPPERS:
            if len(s) > len(opener) + len(closer) and s.startswith(opener) and s.endswith(closer):
                s = s[len(opener) : -len(closer)].strip()
        s = s.rstrip(TRAIL).strip()
        if s == before:
            break
    return s


_BRACKET_RE = re.compile(r"[()\[\]]")


def balance(token: str) -> str:
    """Drop unbalanced leading '(' / '[' and trailing ')' / ']' (prose parentheses)."""
    if not _BRACKET_RE.search(token):  # most prose words: nothing to balance
        return token
    for _ in range(4):
        if token[:1] + token[-1:] in ("()", "[]") and _closes_at_end(token):
            token = token[1:-1]
        elif token.endswith(")") and token.count(")") > token.count("("):
            token = token[:-1]
        elif token.startswith("(") and token.count("(") > token.count(")"):
            token = token[1:]
        elif token.endswith("]") and token.count("]") > token.count("["):
            token = token[:-1]
        elif token.startswith("[") and token.count("[") > token.count("]"):
            token = token[1:]
        else:
            break
        token = token.strip(TRAIL)
    return token


def _closes_at_end(token: str) -> bool:
    """Whether the opening bracket at ``token[0]`` is closed by ``token[-1]`` ("(CCO)"; not
    "[NH4+]" alone, which is an atom: a bracket pair with no inner bracket and a letter
    first is kept)."""
    opener, closer = token[0], token[-1]
    if opener == "[" and "[" not in token[1:-1] and "]" not in token[1:-1]:
        return False
    depth = 0
    for i, ch in enumerate(token):
        if ch == opener:
            depth += 1
        elif ch == closer:
            depth -= 1
            if depth == 0:
                return i == len(token) - 1
    return False


def _leading_wrapped(s: str) -> str | None:
    """The inside of the wrapper ``s`` starts with (the first one of ``_WRAPPERS`` that
    opens it and closes later), unwrapped; None when no wrapper opens it."""
    for opener, closer in _WRAPPERS:
        if s.startswith(opener):
            end = s.find(closer, len(opener))
            if end > len(opener):
                return unwrap(s[len(opener) : end])
    return None


def first_token(value: str) -> str:
    """The first token of a label's value: the inside of a leading wrapper, else the first
    whitespace-delimited chunk, with trailing punctuation and prose parentheses dropped."""
    s = value.strip().lstrip("*_ \t")
    inside = _leading_wrapped(s)
    if inside is not None:
        return inside
    m = LATEX_TEXT_RE.match(s)
    if m:
        return unwrap(m.group(1))
    chunk = s.split(None, 1)[0] if s.split() else ""
    return balance(unwrap(chunk).strip("*_`'\"“”‘’"))


def _name_phrase(value: str) -> str:
    """A name from a label's value: up to the end of the clause."""
    s = unwrap(value.strip().lstrip("*_ \t"))
    inside = _leading_wrapped(s)
    if inside is not None:
        return inside
    m = _NAME_CUT_RE.search(s)
    return unwrap(s[: m.start()] if m else s)


def _name_prefix(phrase: str) -> str | None:
    """The longest word-prefix (up to 6 words) of ``phrase`` that is an IUPAC-style name."""
    words = phrase.split()[:6]
    for k in range(len(words), 0, -1):
        candidate = unwrap(" ".join(words[:k]))
        if candidate and not iupac_problem(candidate):
            return candidate
    return None


class Collector:
    """Gathers candidates in rank order, de-duplicated by (text, format)."""

    def __init__(self, formats: tuple[str, ...]) -> None:
        self.formats = formats
        self.items: list[Candidate] = []
        self._seen: set[tuple[str, str]] = set()

    def add(self, text: str, fmt: str, source: str, rank: Rank) -> None:
        text = text.strip()
        if not text or fmt not in self.formats or (text, fmt) in self._seen:
            return
        self._seen.add((text, fmt))
        self.items.append(Candidate(text, fmt, source, rank))

    def value(self, value: str, hint: str | None, source: str, rank: Rank) -> None:
        """A value whose format is stated (``hint``) or not (None: decided by shape)."""
        if hint == "iupac":
            phrase = _name_phrase(value)
            self.add(_name_prefix(phrase) or phrase, "iupac", source, rank)
            return
        token = first_token(value)
        long = long_format(token)
        if long is not None:
            if hint in (None, long) or (hint == "smiles" and long == "selfies"):
                self.add(token, hint or long, source, rank)
            return
        if hint == "selfies" or (hint is None and selfies_shaped(token)):
            if token.startswith("["):
                self.add(token, "selfies", source, rank)
                if hint is None and smiles_shaped(token):
                    # Bracket atoms alone ("[CH3][CH2][OH]") are SMILES too: read as
                    # SMILES when they are no SELFIES.
                    self.add(token, "smiles", source, rank)
            return
        if hint == "smiles":
            # A stated SMILES is kept when it is SMILES-shaped or at least carries SMILES
            # punctuation ("C1CCX"), so that an invalid one is reported, not skipped.
            if smiles_shaped(token) or selfies_shaped(token):
                self.add(token, "smiles", source, rank)
            elif SMILES_PUNCT_RE.search(token) and re.search(r"[A-Z]", token):
                self.add(token, "smiles", source, rank)
            return
        if generic_shape(token):
            self.add(token, "smiles", source, rank)
            return
        name = _name_prefix(_name_phrase(value))
        if name:
            self.add(name, "iupac", source, rank)
