"""Finding the molecule a response gives, by rules, and parsing it with RDKit.

A response names its molecule in one of three formats: SMILES, SELFIES (``[C][=O]...``,
decoded with the ``selfies`` package, then parsed by RDKit) or an IUPAC name (recognized by
morphology only, ``iupac_problem``: no name-to-structure conversion, no network, no OPSIN).
``candidates`` lists every place that may hold one, by rank; ``find_molecule`` picks the
answer.

Ranks, strongest first (``Rank``):

* DECISIVE: the response states where its answer is: a JSON / Python-dict value under a
  key naming a molecule (``smiles``, ``selfies``, ``iupac_name``, ``name``, ``molecule``,
  ``mol``, ``structure``, ``compound``, ``product``, ``answer``, ...; any key containing
  smiles / selfies / iupac), a string item of a top-level tuple / list answer
  (``("CCO", 3)``), the value under a CSV column so named (``smiles,n`` then ``CCO,1``), a
  label naming the format ("SMILES: ...", "**SMILES**: `...`", "The SMILES string is ...",
  "SELFIES: ...", "IUPAC name: ...", "systematic name is ..."), a ``smiles`` / ``selfies``
  code fence, the last ``\\boxed{}``, the final answer after an answer marker
  (``answers.final_answer``), or the whole response when it is a single token.
* STRONG: "Molecule: ...", "The compound / product / structure is ...", a one-line code
  fence, a line holding nothing but one SMILES token (Markdown bullets, bold, backticks and
  quotes stripped; the prose shape rule below applies, so a line "NO" is not a molecule) or
  one SELFIES string, a line that is a whole IUPAC-style name.
* MEDIUM: inline code, quoted strings, LaTeX ``\\text{}`` / ``\\mathrm{}`` /
  ``\\texttt{}`` / ``\\ce{}`` (not when a subscript follows: ``\\text{CO}_2``), single
  tokens on the lines of a code fence. Kept only when valid.
* WEAK: bare tokens in prose: SMILES-shaped (``weak_shape``: two atoms at least and SMILES
  punctuation, digits or aromatic atoms, or else two carbons at least, so NO / IF / SON /
  CO2 / H2O are not molecules), SELFIES-shaped, and words or two-word names of IUPAC shape.
  Kept only when valid and, for structures, of at least ``MIN_BARE_ATOMS`` (3) heavy atoms:
  "C=O" or "C#C" in prose names a bond, not an answer.

Where the format is not stated (generic labels, boxes, JSON "molecule" keys), a value is
SELFIES when it is two or more ``[...]`` symbols, SMILES when it is made of SMILES tokens
with at least two atoms ("Answer: B" is a choice, not borane), else an IUPAC name when it
has that shape, else not a molecule. A stated SMILES is kept even when malformed, if it
carries SMILES punctuation, so that it is reported as invalid rather than skipped.

Choice (``find_molecule``): the first valid DECISIVE or STRONG candidate; else, if a
DECISIVE candidate was invalid, that one (the response's stated answer is not a valid
molecule); else the first valid MEDIUM one; else the valid WEAK one that is a structure with
the most heavy atoms (ties: the first; names only when no structure), since an answer
molecule is rarely smaller than the fragments prose mentions; else an invalid STRONG
candidate. Only when this chooses nothing and a judge is in force is the judge asked to copy
the span out (``extraction.extract_span``, verbatim only); the span is then classified and
parsed by the same rules. Without a judge that step is skipped ("no extractor configured").

A SMILES candidate is valid when ``Chem.MolFromSmiles`` (full sanitization) returns a
molecule with at least one atom; a SELFIES candidate when ``selfies.decoder`` accepts every
symbol and the SMILES it gives is valid; an IUPAC candidate when ``iupac_problem`` finds no
problem. RDKit logging is blocked (``rdBase.BlockLogs``, the scoped form of
``RDLogger.DisableLog``) and no RDKit or selfies exception escapes: a failure is an invalid
candidate with a short reason ("unclosed ring bond 1", "bad valence: ...", "cannot
kekulize ...").

Bounds, so that a 1 MB response costs about a second and a normal one milliseconds:
strings longer than ``MAX_SMILES_LEN`` (400) characters (``MAX_SELFIES_LEN``, 1600, for
SELFIES; ``MAX_NAME_LEN``, 200, for names) are not parsed (a long token whose start is
SMILES- or SELFIES-shaped is reported "longer than 400 characters, not parsed"); at most
``MAX_PARSES`` (64) RDKit / selfies parses per search, strongest ranks first; at most
``MAX_TOKENS`` (20,000) bare tokens, ``MAX_WORDS`` (5,000) lines, quoted spans, LaTeX
spans and name-shaped words are examined; JSON is looked for in at most
``MAX_JSON_TRIES`` (8) brace-balanced chunks of at most ``MAX_JSON_LEN`` (50,000)
characters. Drug-like SMILES are far below 400 characters. Every regex is linear (no
nested quantifier over overlapping characters).
"""

from __future__ import annotations

import ast
import functools
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from enum import IntEnum

from rdkit import Chem

from sci_tasks.metrics.constraints.answers import code_blocks, enclosed, final_answer, last_boxed
from sci_tasks.metrics.constraints.base import CheckInput
from sci_tasks.metrics.constraints.extraction import extract_span
from sci_tasks.metrics.constraints.notation import (
    ANION_WORDS,
    CATION_WORDS,
    MAX_NAME_LEN,
    MAX_SELFIES_LEN,
    SMILES_PUNCT_RE,
    SPACE_RE,
    WORDS_AFTER_NAME,
    decode_selfies,
    generic_shape,
    iupac_problem,
    long_format,
    molecular_formula,
    parse_smiles,
    selfies_shaped,
    smiles_shaped,
    weak_shape,
)
from sci_tasks.metrics.constraints.text import clip, phrases

MIN_BARE_ATOMS = 3
MAX_PARSES = 64
MAX_TOKENS = 20_000
MAX_WORDS = 5_000
MAX_JSON_TRIES = 8
MAX_JSON_LEN = 50_000

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


# --------------------------------------------------------------------------- candidates

_KEY_FORMATS = {
    "smiles": "smiles",
    "selfies": "selfies",
    "iupac": "iupac",
    "iupac_name": "iupac",
    "name": "iupac",
    "systematic_name": "iupac",
    "chemical_name": "iupac",
}
_GENERIC_KEYS = {
    "molecule",
    "mol",
    "structure",
    "compound",
    "product",
    "answer",
    "final_answer",
    "result",
    "output",
    "generated_molecule",
    "molecule_smiles",
}
_LABELS = phrases(
    "SMILES",
    "SELFIES",
    "IUPAC(?: name)?",
    "systematic name",
    "chemical name",
    "molecule",
    "compound",
    "structure",
    "product",
)
_LABEL_RE = re.compile(  # (?=[SsIiCcMmPp]): the labels' first letters, a cheap pre-filter
    rf"(?=[SsIiCcMmPp])(?<![\w-])(?P<label>{_LABELS})(?![\w-])"
    r"(?P<filler>[^\n:：=#]{0,40}?)"
    rf"(?:[:：]|=(?=[ \t\"'`])|(?<!\w)(?:{phrases('is', 'would be', 'reads')})(?!\w))"
    r"(?P<value>[^\n]*)",
    re.I,
)
_LATEX_TEXT_RE = re.compile(r"\\(?:text|mathrm|texttt|ce)[ \t]*\{([^{}\n]{1,400})\}")
_RUN_RE = re.compile(r"[A-Za-z0-9@+\-\[\]()=#/\\%.*:]{2,}")
_NAME_WORD_RE = re.compile(r"[A-Za-z0-9(),'\[\]+±−-]+")
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
_TRAIL = ".,;:!?"
_WRAPPER_FIRST = frozenset(opener[0] for opener, _ in _WRAPPERS)
_LINE_LEAD_RE = re.compile(r"^(?:[-*+>•]|[0-9]{1,2}[.)])[ \t]+")
_NAME_CUT_RE = re.compile(
    r",[ \t]|;|[ \t]\(|\.(?:[ \t]|$)|[ \t][-–—][ \t]"
    r"|[ \t](?:which|that|with|is|was|has|and|or|as|for|in)[ \t]",
    re.I,
)


def _unwrap(text: str) -> str:
    """Strip whitespace, Markdown emphasis, backticks, quotes, ``$`` and ``\\text{}``."""
    s = text.strip()
    if s and s[0] not in _WRAPPER_FIRST and s[0] != "\\" and s[-1] not in _TRAIL:
        return s  # nothing the loop below would strip (most tokens): skip it
    for _ in range(6):
        before = s
        m = _LATEX_TEXT_RE.fullmatch(s)
        if m:
            s = m.group(1).strip()
        for opener, closer in _WRAPPERS:
            if len(s) > len(opener) + len(closer) and s.startswith(opener) and s.endswith(closer):
                s = s[len(opener) : -len(closer)].strip()
        s = s.rstrip(_TRAIL).strip()
        if s == before:
            break
    return s


def _balance(token: str) -> str:
    """Drop unbalanced leading '(' / '[' and trailing ')' / ']' (prose parentheses)."""
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
        token = token.strip(_TRAIL)
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
                return _unwrap(s[len(opener) : end])
    return None


def _first_token(value: str) -> str:
    """The first token of a label's value: the inside of a leading wrapper, else the first
    whitespace-delimited chunk, with trailing punctuation and prose parentheses dropped."""
    s = value.strip().lstrip("*_ \t")
    inside = _leading_wrapped(s)
    if inside is not None:
        return inside
    m = _LATEX_TEXT_RE.match(s)
    if m:
        return _unwrap(m.group(1))
    chunk = s.split(None, 1)[0] if s.split() else ""
    return _balance(_unwrap(chunk).strip("*_`'\"“”‘’"))


def _name_phrase(value: str) -> str:
    """A name from a label's value: up to the end of the clause."""
    s = _unwrap(value.strip().lstrip("*_ \t"))
    inside = _leading_wrapped(s)
    if inside is not None:
        return inside
    m = _NAME_CUT_RE.search(s)
    return _unwrap(s[: m.start()] if m else s)


def _name_prefix(phrase: str) -> str | None:
    """The longest word-prefix (up to 6 words) of ``phrase`` that is an IUPAC-style name."""
    words = phrase.split()[:6]
    for k in range(len(words), 0, -1):
        candidate = _unwrap(" ".join(words[:k]))
        if candidate and not iupac_problem(candidate):
            return candidate
    return None


class _Collector:
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
        token = _first_token(value)
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


def _key_format(key: object) -> tuple[bool, str | None]:
    """(names a molecule, format hint) for a dict key."""
    k = re.sub(r"[^a-z0-9]+", "_", str(key).strip().lower()).strip("_")
    if k in _KEY_FORMATS:
        return True, _KEY_FORMATS[k]
    for word in ("smiles", "selfies", "iupac"):
        if word in k:
            return True, word
    return k in _GENERIC_KEYS, None


def _walk(obj: object, out: _Collector, source: str, depth: int = 0) -> None:
    if depth > 4:
        return
    if isinstance(obj, dict):
        for i, (key, value) in enumerate(obj.items()):
            if i >= 50:
                break
            names, hint = _key_format(key)
            if names and isinstance(value, str):
                out.value(value, hint, f"{source} key {str(key)[:20]!r}", Rank.DECISIVE)
            elif isinstance(value, (dict, list, tuple)):
                _walk(value, out, source, depth + 1)
    elif isinstance(obj, (list, tuple)):
        for i, item in enumerate(obj):
            if i >= 50:
                break
            if isinstance(item, str) and depth == 0:
                token = item.strip()
                if selfies_shaped(token) or generic_shape(token):
                    out.value(token, None, f"{source} item", Rank.DECISIVE)
            elif isinstance(item, (dict, list, tuple)):
                _walk(item, out, source, depth + 1)


def _structured(text: str) -> object | None:
    s = text.strip()
    if not s or len(s) > MAX_JSON_LEN or s[0] not in "{[(":
        return None
    try:
        return json.loads(s)
    except (ValueError, RecursionError):
        pass
    try:
        return ast.literal_eval(s)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _brace_chunks(text: str) -> Iterator[str]:
    """Brace-balanced ``{...}`` chunks, from at most ``MAX_JSON_TRIES`` opening braces, each
    scanned at most ``MAX_JSON_LEN`` characters (quotes respected)."""
    start, tries = 0, 0
    while tries < MAX_JSON_TRIES:
        a = text.find("{", start)
        if a < 0:
            return
        tries += 1
        depth, quote, escaped = 0, "", False
        end = None
        for i in range(a, min(len(text), a + MAX_JSON_LEN)):
            ch = text[i]
            if quote:
                if escaped:
                    escaped = False
                elif ch == "\\":
                    escaped = True
                elif ch == quote:
                    quote = ""
            elif ch in "\"'":
                quote = ch
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    end = i
                    break
        if end is None:
            start = a + 1
            continue
        yield text[a : end + 1]
        start = end + 1


def _structured_sources(response: str) -> Iterator[tuple[str, str]]:
    for block in code_blocks(response):
        yield block.body, f"```{block.lang}```" if block.lang else "code block"
    yield response, "the response"
    for chunk in _brace_chunks(response):
        yield chunk, "JSON"


def _single_token_line(line: str) -> str | None:
    s = _LINE_LEAD_RE.sub("", line.strip())
    s = _unwrap(s)
    if not s or SPACE_RE.search(s):
        return None
    return s


def candidates(
    response: str, formats: Iterable[str] = FORMATS, names_in_prose: bool = True
) -> list[Candidate]:
    """Every candidate molecule in ``response`` of the given formats, by rank then position
    (module docstring). Not yet parsed: ``check`` parses. ``names_in_prose=False`` skips
    the WEAK name scan (any chemical word in prose would otherwise count as a name)."""
    fmts = tuple(f for f in FORMATS if f in set(formats))
    # The chemistry constraints of one sample scan the same response: scan it once, and
    # hand each caller fresh copies (callers fill in the parse result).
    return [replace(c) for c in _scan(response or "", fmts, names_in_prose)]


@functools.lru_cache(maxsize=64)
def _scan(response: str, fmts: tuple[str, ...], names_in_prose: bool) -> tuple[Candidate, ...]:
    out = _Collector(fmts)
    text = response or ""

    # DECISIVE: structured answers (JSON / Python literals) with molecule keys or items.
    for body, _where in _structured_sources(text):
        obj = _structured(body)
        if obj is not None:
            _walk(obj, out, "JSON" if isinstance(obj, dict) else type(obj).__name__)
    # DECISIVE: a CSV column named like a molecule key (header line, then data rows).
    _csv_columns(text, out)
    # DECISIVE: labels that name the format; STRONG: generic labels.
    generic_labels: list[tuple[str, str]] = []
    for m in _LABEL_RE.finditer(text):
        label = " ".join(m.group("label").lower().split())
        value = m.group("value")
        if label in ("smiles", "selfies"):
            out.value(value, label, f"label '{m.group('label')}'", Rank.DECISIVE)
        elif label in ("iupac", "iupac name", "systematic name", "chemical name"):
            out.value(value, "iupac", f"label '{m.group('label')}'", Rank.DECISIVE)
        else:
            generic_labels.append((value, m.group("label")))
    # DECISIVE: format-tagged fences, the boxed answer, the final answer, a one-token reply.
    blocks = code_blocks(text)
    for block in blocks:
        if block.lang in ("smiles", "selfies"):
            body = block.body.strip()
            if body and "\n" not in body:
                out.value(body, block.lang, f"```{block.lang}``` block", Rank.DECISIVE)
    box = last_boxed(text)
    if box is not None:
        out.value(box.text, None, "\\boxed{}", Rank.DECISIVE)
    answer = final_answer(text)
    if answer is not None and answer.source != "\\boxed{}" and answer.text.strip():
        out.value(answer.text, None, "final answer", Rank.DECISIVE)
    whole = text.strip()
    if whole and not SPACE_RE.search(whole):
        out.value(whole, None, "the whole response", Rank.DECISIVE)
    # STRONG: generic labels, one-token fences and lines, name lines.
    for value, label in generic_labels:
        out.value(value, None, f"label '{label}'", Rank.STRONG)
    for block in blocks:
        body = block.body.strip()
        if body and "\n" not in body and block.lang not in ("smiles", "selfies"):
            out.value(body, None, "code block", Rank.STRONG)
    for lineno, line in enumerate(text.splitlines()):
        if lineno >= MAX_WORDS:
            break
        if len(line) > MAX_SELFIES_LEN + 20:
            token = line.strip()
            if token and not SPACE_RE.search(token):
                out.value(token, None, "a line of its own", Rank.STRONG)
            continue
        one = _single_token_line(line)
        if one is not None:
            token = one
            # a line may hold a word ("NO"): the prose rule of shape applies (weak_shape)
            if selfies_shaped(token) or weak_shape(token):
                out.value(token, None, "a line of its own", Rank.STRONG)
            elif "iupac" in fmts and not iupac_problem(token):
                out.add(token, "iupac", "a line of its own", Rank.STRONG)
        elif "iupac" in fmts and len(line) <= MAX_NAME_LEN:
            name = _unwrap(_LINE_LEAD_RE.sub("", line.strip()))
            if name and len(name.split()) <= 4 and not iupac_problem(name):
                out.add(name, "iupac", "a line of its own", Rank.STRONG)
    # MEDIUM: inline code, quotes, LaTeX text, fence lines.
    for opener, closer in (("`", "`"), ('"', '"'), ("'", "'"), ("“", "”")):
        for k, span in enumerate(enclosed(text, opener, closer)):
            if k >= MAX_WORDS:
                break
            inner = span.text.strip()
            if inner and "\n" not in inner and len(inner) <= MAX_SELFIES_LEN:
                _medium(out, inner, "inline code" if opener == "`" else "quoted string")
    for k, m in enumerate(_LATEX_TEXT_RE.finditer(text)):
        if k >= MAX_WORDS:
            break
        after = text[m.end() : m.end() + 1]
        if after not in ("_", "^"):
            _medium(out, m.group(1).strip(), "LaTeX \\text{}")
    for block in blocks:
        for k, line in enumerate(block.body.splitlines()):
            if k >= MAX_WORDS:
                break
            one = _single_token_line(line)
            if one is not None:
                _medium(out, one, "code block line")
    # WEAK: bare tokens.
    for k, m in enumerate(_RUN_RE.finditer(text)):
        if k >= MAX_TOKENS:
            break
        token = _balance(m.group().strip(".:-*"))
        if selfies_shaped(token):
            out.add(token, "selfies", "bare token", Rank.WEAK)
        elif weak_shape(token):
            out.add(token, "smiles", "bare token", Rank.WEAK)
    if "iupac" in fmts and names_in_prose:
        _weak_names(text, out)
    return tuple(out.items)


def _csv_columns(text: str, out: _Collector) -> None:
    """``smiles,count`` then ``CCO,1``: the value under a molecule-named column."""
    lines = [line.strip() for line in text.splitlines()[:MAX_WORDS]]
    for i, line in enumerate(lines):
        if "," not in line or len(line) > 200:
            continue
        header = [cell.strip().strip("\"'") for cell in line.split(",")]
        keyed = [(j, _key_format(cell)) for j, cell in enumerate(header)]
        columns = [(j, hint) for j, (names, hint) in keyed if names]
        if not columns:
            continue
        for row in lines[i + 1 : i + 6]:
            if not row or row.startswith("```"):
                continue
            cells = row.split(",")
            if len(cells) != len(header):
                break
            for j, hint in columns:
                value = cells[j].strip().strip("\"'")
                out.value(value, hint, f"CSV column {header[j][:20]!r}", Rank.DECISIVE)
        return


def _medium(out: _Collector, token: str, source: str) -> None:
    if selfies_shaped(token):
        out.add(token, "selfies", source, Rank.MEDIUM)
    elif generic_shape(token):
        out.add(token, "smiles", source, Rank.MEDIUM)
    elif "iupac" in out.formats and len(token) <= MAX_NAME_LEN and not iupac_problem(token):
        out.add(token, "iupac", source, Rank.MEDIUM)


def _weak_names(text: str, out: _Collector) -> None:
    words = []
    for k, m in enumerate(_NAME_WORD_RE.finditer(text)):
        if k >= MAX_WORDS * 4:
            break
        words.append(_balance(m.group().strip(_TRAIL + "'")))
    examined = 0
    for i, word in enumerate(words):
        if examined >= MAX_WORDS:
            break
        low = word.lower()
        if len(word) < 4 or len(word) > MAX_NAME_LEN or not re.search(r"[a-z]{3}", word):
            continue
        nxt = words[i + 1].lower() if i + 1 < len(words) else ""
        examined += 1
        if low in CATION_WORDS and nxt in ANION_WORDS:
            phrase = f"{word} {words[i + 1]}"
        elif nxt in WORDS_AFTER_NAME:
            phrase = f"{word} {words[i + 1]}"
        else:
            phrase = word
        if not iupac_problem(phrase):
            out.add(phrase, "iupac", "bare word", Rank.WEAK)


# --------------------------------------------------------------------------- checking


def check(candidate: Candidate) -> Candidate:
    """Parse ``candidate`` in place (SMILES / SELFIES with RDKit, names by rule)."""
    if candidate.checked:
        return candidate
    candidate.checked = True
    if candidate.fmt == "smiles":
        if selfies_shaped(candidate.text) and candidate.rank > Rank.DECISIVE:
            candidate.error = "SELFIES, not SMILES"
            return candidate
        candidate.mol, candidate.error = parse_smiles(candidate.text)
        candidate.smiles = candidate.text if candidate.mol is not None else None
        if candidate.error and selfies_shaped(candidate.text):
            candidate.error += " (it looks like SELFIES)"
    elif candidate.fmt == "selfies":
        if not selfies_shaped(candidate.text):
            candidate.error = "not SELFIES symbols ([C][=O]...)"
            return candidate
        candidate.mol, candidate.smiles, candidate.error = decode_selfies(candidate.text)
    else:
        candidate.error = iupac_problem(candidate.text)
    return candidate


@dataclass
class Search:
    """What ``find_molecule`` found: the chosen candidate (or None), and what else."""

    chosen: Candidate | None
    candidates: list[Candidate]
    notes: list[str] = field(default_factory=list)

    @property
    def molecule(self) -> Candidate | None:
        """The chosen candidate when it is valid."""
        return self.chosen if self.chosen is not None and self.chosen.valid else None

    def why_none(self, formats: Iterable[str]) -> str:
        """A reason for reports when there is no valid molecule."""
        words = "/".join(FORMAT_WORDS[f] for f in FORMATS if f in set(formats))
        if self.chosen is not None:
            text = f"invalid {self.chosen.describe()}: {self.chosen.error}"
        else:
            text = f"no valid molecule in the response (no {words} found)"
        extra = [n for n in self.notes if n]
        return text + (f"; {'; '.join(extra)}" if extra else "")


def _choose(items: list[Candidate], budget: list[int]) -> Candidate | None:
    def parsed(c: Candidate) -> Candidate | None:
        if c.checked:
            return c
        if c.fmt != "iupac":
            if budget[0] <= 0:
                return None
            budget[0] -= 1
        return check(c)

    first_invalid: dict[Rank, Candidate] = {}
    for c in items:
        if c.rank <= Rank.STRONG:
            done = parsed(c)
            if done is None:
                continue
            if done.valid:
                return done
            first_invalid.setdefault(c.rank, done)
    if Rank.DECISIVE in first_invalid:
        return first_invalid[Rank.DECISIVE]
    for c in items:
        if c.rank == Rank.MEDIUM:
            done = parsed(c)
            if done is not None and done.valid:
                return done
    best: Candidate | None = None
    best_size = (False, -1)
    for c in items:
        if c.rank == Rank.WEAK:
            done = parsed(c)
            if done is None or not done.valid:
                continue
            # structures before names, then the most heavy atoms, then the first; a bare
            # two-atom structure is a bond named in prose ("a C=O group"), not an answer
            size = (done.mol is not None, done.mol.GetNumHeavyAtoms() if done.mol else 0)
            if done.mol is not None and size[1] < MIN_BARE_ATOMS:
                continue
            if size > best_size:
                best, best_size = done, size
    if best is not None:
        return best
    return first_invalid.get(Rank.STRONG)


def find_molecule(
    inp: CheckInput,
    formats: Iterable[str] = ("smiles", "selfies"),
    what: str | None = None,
    names_in_prose: bool = True,
) -> Search:
    """The response's molecule in one of ``formats`` (module docstring for the choice).

    When the rules find no candidate at all and ``inp.judge`` is set, the judge is asked to
    copy a ``what`` span ("SMILES string" by default) out of the response; the span is then
    parsed by the same rules. Without a judge this step is skipped."""
    fmts = tuple(f for f in FORMATS if f in set(formats))
    items = candidates(inp.response, fmts, names_in_prose)
    budget = [MAX_PARSES]
    chosen = _choose(items, budget)
    notes: list[str] = []
    long = [c for c in items if c.checked and "not parsed" in c.error]
    if chosen is None and long:
        notes.append(f"{len(long)} candidate(s) too long to parse")
    if budget[0] <= 0 and chosen is None:
        notes.append(f"stopped after {MAX_PARSES} parse attempts")
    if chosen is None:
        if inp.judge is None:
            notes.append("no extractor configured")
        else:
            span, note = extract_span(inp, what or _what(fmts))
            if span is None:
                notes.append(note)
            else:
                extracted = _Collector(fmts)
                extracted.value(span, _hint(fmts), f"extracted span, {note}", Rank.EXTRACTED)
                if not extracted.items and fmts != ("iupac",):
                    extracted.add(_first_token(span), fmts[0], f"extracted, {note}", Rank.EXTRACTED)
                items = extracted.items
                chosen = check(items[0]) if items else None
                if chosen is None:
                    notes.append(f"extracted span {clip(span)!r} is not a molecule")
    return Search(chosen, items, notes)


def _what(fmts: tuple[str, ...]) -> str:
    if fmts == ("iupac",):
        return "IUPAC name"
    if fmts == ("selfies",):
        return "SELFIES string"
    return "SMILES string"


def _hint(fmts: tuple[str, ...]) -> str | None:
    return fmts[0] if len(fmts) == 1 else None
