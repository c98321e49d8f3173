"""Every place of a response that may hold its molecule, by rank (``candidates``); the
choice among them is ``molecules.find_molecule``.

Ranks, strongest first (``Rank``):

* DECISIVE: the response states where its answer is: a JSON / Python-dict value under a
  key naming a molecule (``smiles``, ``selfies``, ``iupac_name``, ``name``, ``molecule``,
  ``mol``, ``structure``, ``compound``, ``product``, ``answer``, ...; any key containing
  smiles / selfies / iupac), a string item of a top-level tuple / list answer
  (``("CCO", 3)``), the value under a CSV column so named (``smiles,n`` then ``CCO,1``), a
  label naming the format ("SMILES: ...", "**SMILES**: `...`", "The SMILES string is ...",
  "SELFIES: ...", "IUPAC name: ...", "systematic name is ..."), a ``smiles`` / ``selfies``
  code fence, the last ``\\boxed{}``, the final answer after an answer marker
  (``answers.final_answer``), or the whole response when it is a single token. The final
  answer (box or marker) comes first: a label earlier in a worked answer may name an
  intermediate or the starting material.
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


Bounds (``molecules.py`` states the others): at most ``MAX_TOKENS`` (20,000) bare tokens,
``MAX_WORDS`` (5,000) lines, quoted spans, LaTeX spans and name-shaped words are examined;
JSON is looked for in at most ``MAX_JSON_TRIES`` (8) brace-balanced chunks of at most
``MAX_JSON_LEN`` (50,000) characters. Every regex is linear (no nested quantifier over
overlapping characters).
"""

from __future__ import annotations

import ast
import functools
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import replace

from sci_tasks.metrics.constraints.answers import code_blocks, enclosed, final_answer, last_boxed
from sci_tasks.metrics.constraints.molecule_tokens import (
    FORMATS,
    LATEX_TEXT_RE,
    LINE_LEAD_RE,
    TRAIL,
    Candidate,
    Collector,
    Rank,
    balance,
    unwrap,
)
from sci_tasks.metrics.constraints.notation import (
    ANION_WORDS,
    CATION_WORDS,
    MAX_NAME_LEN,
    MAX_SELFIES_LEN,
    SPACE_RE,
    WORDS_AFTER_NAME,
    generic_shape,
    iupac_problem,
    selfies_shaped,
    weak_shape,
)
from sci_tasks.metrics.constraints.text import phrases

MAX_TOKENS = 20_000
MAX_WORDS = 5_000
MAX_JSON_TRIES = 8
MAX_JSON_LEN = 50_000

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
_RUN_RE = re.compile(r"[A-Za-z0-9@+\-\[\]()=#/\\%.*:]{2,}")
_NAME_WORD_RE = re.compile(r"[A-Za-z0-9(),'\[\]+±−-]+")


def _key_format(key: object) -> tuple[bool, str | None]:
    """(names a molecule, format hint) for a dict key."""
    k = re.sub(r"[^a-z0-9]+", "_", str(key).strip().lower()).strip("_")
    if k in _KEY_FORMATS:
        return True, _KEY_FORMATS[k]
    for word in ("smiles", "selfies", "iupac"):
        if word in k:
            return True, word
    return k in _GENERIC_KEYS, None


def _walk(obj: object, out: Collector, source: str, depth: int = 0) -> None:
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
    s = LINE_LEAD_RE.sub("", line.strip())
    s = unwrap(s)
    if not s or SPACE_RE.search(s):
        return None
    return s


@functools.lru_cache(maxsize=8192)
def _bare_token(run: str) -> tuple[str, str | None]:
    """A bare run of SMILES characters in prose, balanced, and its shape: "selfies",
    "smiles" or None. Cached: prose repeats its words (two runs in three of the case files'
    responses repeat an earlier one), and every word of a response is a run."""
    token = balance(run.strip(".:-*"))
    if selfies_shaped(token):
        return token, "selfies"
    return token, ("smiles" if weak_shape(token) else None)


def candidates(
    response: str, formats: Iterable[str] = FORMATS, names_in_prose: bool = True
) -> list[Candidate]:
    """Every candidate molecule in ``response`` of the given formats, by rank then position
    (module docstring). Not yet parsed: ``molecules.check`` parses. ``names_in_prose=False`` skips
    the WEAK name scan (any chemical word in prose would otherwise count as a name)."""
    fmts = tuple(f for f in FORMATS if f in set(formats))
    # The chemistry constraints of one sample scan the same response: scan it once, and
    # hand each caller fresh copies (callers fill in the parse result).
    return [replace(c) for c in _scan(response or "", fmts, names_in_prose)]


@functools.lru_cache(maxsize=64)
def _scan(response: str, fmts: tuple[str, ...], names_in_prose: bool) -> tuple[Candidate, ...]:
    out = Collector(fmts)
    text = response or ""

    # DECISIVE, first: the final answer (the last box, or the line after the last answer
    # marker) is the response's own statement of its answer, so a molecule a label names
    # earlier ("the alcohol (SMILES: CC(O)c1ccccc1)") is an intermediate, not the answer.
    answer = final_answer(text)
    if answer is not None and answer.text.strip():
        boxed = answer.source == "\\boxed{}"
        out.value(answer.text, None, "\\boxed{}" if boxed else "final answer", Rank.DECISIVE)
    box = last_boxed(text)
    if box is not None:  # a box before the last answer marker
        out.value(box.text, None, "\\boxed{}", Rank.DECISIVE)
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
            name = unwrap(LINE_LEAD_RE.sub("", line.strip()))
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
    for k, m in enumerate(LATEX_TEXT_RE.finditer(text)):
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
        token, shape = _bare_token(m.group())
        if shape is not None:
            out.add(token, shape, "bare token", Rank.WEAK)
    if "iupac" in fmts and names_in_prose:
        _weak_names(text, out)
    return tuple(out.items)


def _csv_columns(text: str, out: Collector) -> None:
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


def _medium(out: Collector, token: str, source: str) -> None:
    if selfies_shaped(token):
        out.add(token, "selfies", source, Rank.MEDIUM)
    elif generic_shape(token):
        out.add(token, "smiles", source, Rank.MEDIUM)
    elif "iupac" in out.formats and len(token) <= MAX_NAME_LEN and not iupac_problem(token):
        out.add(token, "iupac", source, Rank.MEDIUM)


def _weak_names(text: str, out: Collector) -> None:
    words = []
    for k, m in enumerate(_NAME_WORD_RE.finditer(text)):
        if k >= MAX_WORDS * 4:
            break
        words.append(balance(m.group().strip(TRAIL + "'")))
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
