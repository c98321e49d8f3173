"""Checkers of the rule- and extract-scored scientific constraints of the SciMIF catalogue
(the unit constraints live in ``units.py``). Each reads its requirement from the
parameters first, then from the question; a requirement that cannot be read is unscored,
never guessed. Shared terms (final answer, sentences, numbers) are those of ``text.py``.

Decision rules, one per constraint:

* ``<discipline>_method_constraint`` (five names, one implementation; extract kind). The
  requirement is split at top level (outside brackets) on "," ";" "and" "&" "plus" into
  items, all of which must be met; a bracketed part is an alternative spelling of its item
  ("comparative Ct (Livak, 2^-ΔΔCt) method"); a bare setting ("n = 1", "K = 0.9") is a
  qualifier, not an item. Without parameters the items are the known methods named in the
  question, else the phrase after "use / using / apply / according to / based on / via / by
  (the)" that holds a method word (law, equation, method, ...) or a formula. An item is
  met by the RULE when the response:
  - names a known method of the item (``METHODS``, read from the data file
    ``methods.json`` beside this module: each method's names and signature formulas, e.g.
    Bragg's law <-> "nλ = 2d sinθ", ideal gas law <-> "PV = nRT") by a name or a formula:
    a method applied by its formula counts as the method used;
  - or writes the item's formula (it holds "=" or an operator): compared after rewriting
    LaTeX (``\\lambda`` -> λ, ``\\sin`` -> sin, ``\\frac{a}{b}`` -> a/b, ``°`` -> 0) with spaces,
    brackets, ``_``, ``^``, ``·``, ``×``, ``*`` ignored between characters, case-insensitive,
    sides swapped allowed;
  - or, for a descriptive item that names no known method, holds the item's content words
    (stop words and generic words such as law / method / equation dropped; crude stems: the
    first 7 letters of a long word, else the word without a plural s; a response word
    matches a stem it begins with) within one sentence: all of them, all but one when there
    are four or more.
  Without parameters, the known methods named in the question's "use / using / apply /
  according to / based on / via / by (the) ..." phrases are the items (else every known
  method the question names, else those phrases themselves).
  When the rule misses an item and a judge is in force, ``extract_span(inp, "<item>
  statement or formula")`` copies a span and the rule re-checks it, more leniently because
  the span was located: a formula holding "=" whose symbols (letters and sin / cos / ln /
  ...) include every symbol of the item's formula (or of a known formula of the method), in
  any arrangement; for a descriptive item, at least half of its content words.
* ``geography_address_format_validity``: required components from the parameters (a list
  split on "," ">" "→" "->" "»" "|" ";" or newlines) or from the question (such a list after
  ":" / "format" / "order" in a sentence about the address, at least half of them address
  words: street, city, province, country, ...); else a stated count ("3-level address").
  The separator is the one the question states ("separated by commas", ">"), else the
  first of > → -> » , ; | newline found in the answer. The answer is the final answer (box
  or marker line) else the last non-empty line (a leading "The address is" dropped; if it
  is one component, the last paragraph's lines). Pass iff it splits into exactly the
  required number of non-empty components and each component fits its slot: number slots
  (house / building / street number, postal / zip code) hold a digit, other slots hold a
  letter, and a known country name sits only in a country slot.
* ``geography_scene_option_constraint``: an attribute template first (parameters, else
  question): at least two attributes, each with its own quoted alternatives, written
  ``"attr": "a" | "b",`` or ``- attr: ["a", "b"]`` or ``['a', 'b'] for attr`` (a quoted
  alternative may hold a slash: "dusk/dawn" is one label). The answer (final answer if it
  holds the attributes, else the response) gives each attribute by its last ``attr: value``
  (JSON or not); pass iff every attribute is there and takes one of ITS OWN labels (case,
  "_", "-" and spaces alike: "driving surface" = "driving_surface"; "front/back" is not a
  label of front | back | side) and, when the answer is a JSON object, it has no attribute
  the template lacks. Without a template: the labels as ``general_choose_from`` reads its
  options (its private helpers are imported, not copied). Scope: the final answer (box /
  marker) if any; else the first sentence when the question asks for the label at the
  beginning / first, else the last non-empty line. Pass iff exactly one distinct label is
  named there.
* ``biology_entity_relationship_format_validity``: the template from the parameters or
  question (three placeholders such as entity1 / relation / entity2, head / tail, subject
  / predicate / object, A / B, with the literal delimiters between them: "(e1, r, e2)",
  "e1 -> r -> e2", "[A] --relation--> [B]"). Without a template but with "triple(s)" in the
  question, the templates "(e1, r, e2)", "e1 -> r -> e2", "e1 | r | e2" are tried and the
  best fitting one is used. A template that names its own fields in brackets,
  "(chemical substance, corresponding disease)" (two to five fields of one to four words; in
  the question after a cue such as format / form / tuple / as), is read when no
  placeholder template is: every bracketed group on lines that start with the bracket (else
  every group holding a comma) must split on commas (quotes respected) into exactly that
  many non-empty fields; neither -> unscored. Candidates: bracketed groups of the
  template's bracket (Python tuples inside a list included) or the lines that hold the
  template's first separator; each must split into exactly three non-empty fields with
  the template's delimiters (quotes stripped). When the question says one per line / no
  other text, every non-empty line is a candidate. Pass iff there is no malformed
  candidate and at least one well-formed triple (or the required number: "at least 3",
  "exactly four"). At most ``MAX_TRIPLES`` candidates are examined.
* ``biology_sequence_length_constraint``, longest / shortest ORF: when the parameters say
  "longest" / "shortest" (about an ORF in them or the question), or, without parameters, the
  question asks for the longest / shortest ORF. ORFs follow ``orf.py`` (ATG to the first
  in-frame TAA / TAG / TGA, stop included, nested starts not separate; only the given strand
  when the question names it, both strands when it says so, either reading accepted when it
  names none; a minimum the question states filters them). The sequence: the longest DNA
  run (>= 30 nt) in the question, or the response's forward / reverse primer when the
  question's sentence about the ORF names that primer. The stated lengths: numbers with a
  unit (nt, bp, codons, aa, residues) in the final answer, else the last sentence about
  the ORF stating one, else the last line with a number (bare numbers read in the units the
  question names); an ORF written out (ATG...stop) counts as its length. Pass iff every
  stated length is one the extreme ORF has in its unit (nt with or without the stop codon,
  codons with or without it, amino acids without it). Without a sequence to compute, only
  whether a length is stated (with a unit, or as the final answer) is judged, and the
  reason says the value is not verified.
* ``biology_sequence_length_constraint``, explicit lengths: required length from the
  parameters, else the question: "[exactly | at least | at most | more than | fewer than]
  N <unit>" or "length of N", N in digits or words, units nucleotides / nt / bases / bp /
  residues / amino acids / aa / codons (x3) / -mer; "N or more / or fewer"; "between N and
  M". The answer holder is the final answer (box / marker), else the last ``[[...]]``,
  else the last code block, else the response. In it the sequence is, in order: a
  5'-...-3' sequence (the last one; 3'-...-5' strands are ignored), a FASTA record, a list
  of one-letter codes ``['M', 'A', 'W']``, three-letter codes (``Met-Ala-Trp``) for
  proteins, else the longest run of the alphabet's letters (DNA/RNA ACGTUN; protein the 20
  amino acids and X; groups of equal length joined by single spaces or hyphens, as codons,
  count as one run). Pass iff its length (letters; codons = letters / 3) meets the
  requirement.
* ``material_characterization_technique_format_constraint``: ``TECHNIQUES`` lists each
  technique's abbreviations and full names (phrases; any separators between their words;
  microscope = microscopy, spectrometer = spectrometry, ...). Abbreviations are whole tokens
  or hyphen-parts ("SEM-EDS"), case-insensitive except short or English-word ones (BET,
  APT, CT, MS, CV, ...: exact case). Scope: the final answer (box / marker), else the first
  non-empty line that names a technique, else the whole response. Pass iff a
  technique is named there and, when a format is stated: "abbreviation only" -> an
  abbreviation and no full name; "full name only" / "do not abbreviate" -> a full name and
  no abbreviation; "full name (abbreviation)" -> the full name then the abbreviation in
  brackets; both named ("full name, abbreviation" / tuple) -> both, in the stated order;
  "full name" / "abbreviation" alone -> that form present.
* ``material_property_prediction_constraint``: discrete when the parameters (else the
  question) say discrete / label / class / classify / category / qualitative or list the
  labels; continuous when they say continuous / numerical / quantitative / value; the
  question decides only when exactly one kind is stated. Discrete: pass iff exactly one
  label of the set (parameters "label: a / b / c", or the question's "(a, b or c)", "as a,
  b or c", "whether ... is a, b or c") is named in the final answer (box / marker, else the
  last line with content); without a set, iff the answer is 1-6 words with no number.
  "X is a discrete property." / "X is a continuous property." is the whole requirement
  in many released parameters; a name "A_or_B" gives the labels A, B; with no label set a
  discrete answer is one short label. With nothing stated, a yes/no question between two
  labels ("Is the gap direct or indirect?", "whether ... or ...") is discrete with those
  labels and a value asked for in a unit ("in eV") is continuous.
  Continuous: pass iff the final answer (box / marker, else the last code block or
  paragraph) holds a number, carrying the required unit when one is stated (a unit named
  next to the number in a tag / quotes / "unit:" also counts).
"""

from __future__ import annotations

import functools
import json
import re
from bisect import bisect_left
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path

from sci_tasks.metrics.constraints.base import CheckInput, register
from sci_tasks.metrics.constraints.extraction import extract_span
from sci_tasks.metrics.constraints.general import _named_options, _Option, _options, _split_items
from sci_tasks.metrics.constraints.orf import STOPS, Orf, dna, extreme, lengths_in, orfs
from sci_tasks.metrics.constraints.text import (
    Span,
    clean_parameters,
    clip,
    code_blocks,
    final_answer,
    last_line,
    non_empty_lines,
    paragraphs,
    parse_int,
    sentences,
)
from sci_tasks.metrics.constraints.units import (
    NUMBER_RE,
    TooManyNumbers,
    clean_unit_text,
    labelled_units,
    parse_unit,
    quantities,
    required_units,
)
from sci_tasks.metrics.verdict import Verdict


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


# =========================================================================== methods


@dataclass(frozen=True)
class Method:
    """A known law / equation / method: its names (regexes over ``_name_text``) and its
    formulas (as written; compared by ``_formula_regex``)."""

    name: str
    names: str
    formulas: tuple[str, ...] = ()


METHODS_FILE = Path(__file__).with_name("methods.json")


def _load_methods(path: Path = METHODS_FILE) -> tuple[Method, ...]:
    """The method table (``methods.json``: each method's names as a regex and its
    signature formulas); a broken entry is an error naming the file and the entry."""
    rows = json.loads(path.read_text(encoding="utf-8"))["methods"]
    out = []
    for i, row in enumerate(rows):
        try:
            re.compile(row["names"])
            out.append(Method(row["name"], row["names"], tuple(row.get("formulas", ()))))
        except (KeyError, TypeError, re.error) as exc:
            raise ValueError(f"{path}: method #{i + 1} ({row!r:.60}): {exc}") from exc
    return tuple(out)


METHODS: tuple[Method, ...] = _load_methods()

_METHOD_WORDS = (
    "law laws equation equations formula formulas formulae method methods relation relations "
    "relationship principle principles rule rules theorem model approach technique analysis "
    "test plot criterion index procedure algorithm theory effect cycle function"
).split()
_STOP_WORDS = frozenset(
    (
        "the a an of for to in on at by with and or using use used apply applying applied "
        "via from into its their your this that these those as is are be then than "
        "calculate compute determine find estimate predict give show explain describe "
        "based according first second order step steps value values over per "
    ).split()
    + _METHOD_WORDS
)
_METHOD_WORD_RE = re.compile(r"\b(?:" + "|".join(_METHOD_WORDS) + r")\b|=", re.I)
_FORMULA_CHARS_RE = re.compile(r"[=×·*/^√∝+]|\\(?:frac|times|cdot|sqrt)")
_SETTING_RE = re.compile(r"[A-Za-zα-ωΑ-Ω][\w′']{0,3}[ \t]*=[ \t]*[-+−]?[0-9.]+[^=]*")
_CUE_RE = re.compile(
    r"\b(?:use|using|apply|applying|employ|employing|according[ \t]+to|based[ \t]+on|"
    r"by[ \t]+means[ \t]+of|via|with[ \t]+the[ \t]+help[ \t]+of|by)[ \t]+(?:the[ \t]+|an?[ \t]+)?",
    re.I,
)
_PHRASE_END_RE = re.compile(r"[.;:!?\n]|,[ \t]|[ \t]to[ \t]|[ \t]in[ \t]+order[ \t]+to\b")


# ---- text normalisation for names and formulas

_POSSESSIVE_RE = re.compile(r"['’ʼ`](?:s\b|(?!\w))")
_NON_WORD_RE = re.compile(r"[\W_]+")


def _name_text(text: str) -> str:
    """Lower case, possessives dropped, punctuation and hyphens -> single spaces."""
    t = _POSSESSIVE_RE.sub("", text.lower())
    t = t.replace("'", "").replace("’", "")
    return " " + _NON_WORD_RE.sub(" ", t).strip() + " "


_LATEX_SYMBOLS = {
    "lambda": "λ", "theta": "θ", "alpha": "α", "beta": "β", "gamma": "γ", "Gamma": "Γ",
    "delta": "δ", "Delta": "Δ", "epsilon": "ε", "varepsilon": "ε", "eta": "η", "kappa": "κ",
    "mu": "μ", "nu": "ν", "pi": "π", "rho": "ρ", "sigma": "σ", "Sigma": "Σ", "sum": "Σ",
    "tau": "τ", "phi": "φ", "varphi": "φ", "Phi": "Φ", "chi": "χ", "omega": "ω",
    "Omega": "Ω", "psi": "ψ", "partial": "∂", "propto": "∝", "approx": "=", "simeq": "=",
    "sqrt": "√", "circ": "0", "degree": "0", "times": "×", "cdot": "·", "oint": "∮",
    "sin": "sin", "cos": "cos", "tan": "tan", "ln": "ln", "log": "log", "exp": "exp",
    "arcsin": "arcsin", "arccos": "arccos", "arctan": "arctan", "infty": "∞", "pm": "±",
    "ell": "l", "hbar": "ħ", "nabla": "∇", "int": "∫", "to": "→", "rightarrow": "→",
}  # fmt: skip
_LATEX_COMMAND_RE = re.compile(r"\\([A-Za-z]+)")
_FRAC_RE = re.compile(r"\\[dt]?frac[ \t]*\{([^{}]*)\}[ \t]*\{([^{}]*)\}")
_FORMULA_CHAR_MAP = str.maketrans(
    {
        "−": "-", "–": "-", "—": "-", "÷": "/", "⁄": "/", "∕": "/", "≈": "=", "≅": "=",
        "°": "0", "∘": "0", "⋅": "·", "∙": "·", "•": "·", "∗": "*", "′": "'", "’": "'",
        "²": "^2", "³": "^3", "⁴": "^4", "¹": "^1", "⁰": "^0", "⁻": "^-", "⁺": "^+",
        "₀": "0", "₁": "1", "₂": "2", "₃": "3", "₄": "4", "ₐ": "a", "ₑ": "e", "ₒ": "o",
        "ₓ": "x", "ₘ": "m", "ₙ": "n", "ₖ": "k", "ₚ": "p", "ₛ": "s", "ₜ": "t", "ᵢ": "i",
        "½": "1/2", "∑": "Σ", "µ": "μ", "ϕ": "φ", "ϑ": "θ", "ϵ": "ε", "$": " ",
    }
)  # fmt: skip


_FORMULA_MAP_RE = re.compile("[" + re.escape("".join(chr(k) for k in _FORMULA_CHAR_MAP)) + "]")


def _translate(text: str, table: Mapping[int, str | None], pattern: re.Pattern[str]) -> str:
    """``text.translate(table)``, touching only the characters the table maps (one regex
    pass: a long plain-ASCII response costs a scan, not a per-character lookup)."""
    return pattern.sub(lambda m: table[ord(m.group())] or "", text)


def _formula_text(text: str) -> str:
    """LaTeX commands -> symbols (unknown ones dropped), ``\\frac{a}{b}`` -> ``(a)/(b)``,
    Unicode variants -> one spelling. Spaces and brackets are kept."""
    if "\\" in text:
        text = _LATEX_COMMAND_RE.sub(
            lambda m: (
                m.group(0)
                if m.group(1) in ("frac", "dfrac", "tfrac")
                else _LATEX_SYMBOLS.get(m.group(1), " ")
            ),
            text,
        )
        for _ in range(3):
            text = _FRAC_RE.sub(r"(\1)/(\2)", text)
    return _translate(text, _FORMULA_CHAR_MAP, _FORMULA_MAP_RE)


_GAP = r"[\s{}()\[\]·×*_^|,]*"
_GAP_CHARS = frozenset(" \t\n\r{}()[]·×*_^|,")
_FUNCTIONS = (
    "arcsin",
    "arccos",
    "arctan",
    "atan2",
    "asin",
    "acos",
    "sqrt",
    "sin",
    "cos",
    "tan",
    "log",
    "exp",
    "ln",
)


def _formula_core(formula: str) -> str:
    return "".join(ch for ch in _formula_text(formula) if ch not in _GAP_CHARS)


@functools.lru_cache(maxsize=1024)
def _formula_regex(formulas: tuple[str, ...]) -> re.Pattern[str] | None:
    """One regex matching any of ``formulas`` (and each with its sides swapped), with the
    ``_GAP`` characters allowed between any two characters; lower case, to be searched in
    lower-cased text by ``_formula_search`` (no IGNORECASE flag and no leading assertion,
    so the regex engine skips ahead on the first characters)."""
    alternatives: list[str] = []
    for formula in formulas:
        core = _formula_core(formula).lower()
        variants = [core]
        if core.count("=") == 1:
            left, right = core.split("=")
            variants.append(f"{right}={left}")
        for v in variants:
            if len(v) >= 3:
                alternatives.append(_GAP.join(re.escape(ch) for ch in v))
    if not alternatives:
        return None
    body = "|".join(sorted(set(alternatives), key=len, reverse=True))
    return re.compile(body)


def _formula_search(regex: re.Pattern[str], lower: str, limit: int = 10_000) -> str | None:
    """The first match in ``lower`` not glued to a Latin letter or digit before it, nor to
    a Latin letter after it ("F = ma" is not found in "F = mass")."""
    for k, m in enumerate(regex.finditer(lower)):
        if k >= limit:
            break
        a, b = m.span()
        before = lower[a - 1] if a else " "
        after = lower[b] if b < len(lower) else " "
        if not (before.isascii() and before.isalnum()) and not (
            after.isascii() and after.isalpha()
        ):
            return m.group()
    return None


def _symbols(text: str) -> set[str]:
    """Formula symbols of (formula-normalised) ``text``: function names and single letters,
    taken from chunks that look like formula parts (English words of 5+ letters skipped)."""
    out: set[str] = set()
    for chunk in text.split():
        if chunk.isalpha() and len(chunk) >= 5 and chunk.lower() not in _FUNCTIONS:
            continue
        low = chunk.lower()
        for fn in _FUNCTIONS:
            if fn in low:
                out.add(fn)
                low = low.replace(fn, " ")
        out.update(ch for ch in low if ch.isalpha())
    return out


def _stem(word: str) -> str:
    if len(word) > 7:
        return word[:7]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _content_words(text: str) -> list[str]:
    words = []
    for w in _name_text(_formula_text(text)).split():
        if w in _STOP_WORDS or w.isdigit() or (len(w) < 3 and not any(c.isdigit() for c in w)):
            continue
        stem = _stem(w)
        if stem not in words:
            words.append(stem)
    return words


# ---- the requirement


@dataclass
class _Item:
    text: str
    methods: list[Method]
    alternatives: list[str]  # literal alternatives that name no known method

    def formulas(self) -> list[str]:
        return [a for a in self.alternatives if _FORMULA_CHARS_RE.search(a)]


_METHOD_RES: list[tuple[Method, re.Pattern[str]]] = [
    (m, re.compile(rf"(?:{m.names.replace(chr(92) + 'b', '')})")) for m in METHODS
]


def _bounded(pattern: re.Pattern[str], text: str, limit: int = 10_000) -> re.Match[str] | None:
    """The first match of ``pattern`` in ``text`` not glued to a letter or digit on either
    side (checked here, so the regex starts with a literal and scans fast)."""
    for k, m in enumerate(pattern.finditer(text)):
        if k >= limit:
            return None
        a, b = m.span()
        if (a == 0 or not text[a - 1].isalnum()) and (b == len(text) or not text[b].isalnum()):
            return m
    return None


_METHOD_NAME_RES = {m.name: pattern for m, pattern in _METHOD_RES}


def _methods_named(text: str) -> list[Method]:
    norm = _name_text(_formula_text(text))
    return [m for m, pattern in _METHOD_RES if _bounded(pattern, norm)]


_TOP_SPLIT_RE = re.compile(r"[(\[{)\]},;]| (?:and|&|plus|as well as) ", re.I)


def _split_top(text: str) -> list[str]:
    """Split on , ; " and " " & " " plus " outside brackets (one regex pass: only brackets
    and separators are visited, not every character)."""
    parts: list[str] = []
    depth, start = 0, 0
    for m in _TOP_SPLIT_RE.finditer(text):
        token = m.group()
        if token in "([{":
            depth += 1
        elif token in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0:
            parts.append(text[start : m.start()])
            start = m.end()
    parts.append(text[start:])
    return [p.strip(" \t.") for p in parts if p.strip(" \t.")]


def _bracketed(piece: str) -> tuple[str, list[str]]:
    """The piece without its bracketed parts, and the bracketed parts split on , ;."""
    inner: list[str] = []
    main: list[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(piece):
        if ch == "(":
            if depth == 0:
                main.append(piece[start:i])
                start = i + 1
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
            if depth == 0:
                inner.append(piece[start:i])
                start = i + 1
    main.append(piece[start:] if depth == 0 else piece[start - 1 :])
    parts = [p.strip() for group in inner for p in re.split(r"[,;]", group) if p.strip()]
    return " ".join(" ".join(main).split()), parts


def _is_setting(text: str) -> bool:
    return bool(_SETTING_RE.fullmatch(text.strip())) or bool(re.fullmatch(r"[0-9.\s]+", text))


def _formula_part(text: str) -> str:
    """ "the relations n = c × V" -> "n = c × V": leading stop / method words dropped from a
    formula."""
    if "=" not in text:
        return text
    tokens = text.split()
    k = 0
    while k < len(tokens) - 1 and "=" not in tokens[k] and tokens[k + 1] != "=":
        if _name_text(tokens[k]).strip() not in _STOP_WORDS:
            break
        k += 1
    return " ".join(tokens[k:])


def _items_from(text: str) -> list[_Item]:
    pieces = list(dict.fromkeys(_split_top(text)))  # a repeated requirement is one requirement
    kept = [p for p in pieces if not _is_setting(p)] or pieces
    items = []
    for piece in kept:
        main, inner = _bracketed(piece)
        # a bracketed formula of the main formula ("(vertical interval / horizontal distance)")
        # is an alternative; a bracketed setting is dropped
        candidates = [main, *inner] if main else inner
        candidates = [c for c in candidates if not _is_setting(c)] or candidates
        methods: list[Method] = []
        literal: list[str] = []
        for c in candidates:
            named = _methods_named(c)
            if named:
                methods.extend(m for m in named if m not in methods)
            else:
                literal.append(_formula_part(c))
        items.append(_Item(_formula_part(piece), methods, literal))
    return items


def _method_items(params: str, question: str) -> tuple[list[_Item], str]:
    if params:
        items = _items_from(params)
        if items:
            return items, "parameters"
    if not question:
        return [], ""
    phrases = []
    for m in _CUE_RE.finditer(question):
        rest = question[m.end() : m.end() + 160]
        stop = _PHRASE_END_RE.search(rest)
        phrase = rest[: stop.start() if stop else len(rest)].strip()
        if phrase and _METHOD_WORD_RE.search(phrase):
            phrases.append(phrase)
    # known methods in the "use / apply ..." phrases, else anywhere in the question
    named = [m for p in phrases for m in _methods_named(p)] or _methods_named(question)
    if named:
        unique = list(dict.fromkeys(named))
        return [_Item(m.name, [m], []) for m in unique], "question"
    items = []
    for phrase in phrases:
        items.extend(_items_from(phrase))
    return items, "question"


# ---- matching


@dataclass
class _ResponseView:
    """Normalised views of one response, built once and shared by the items."""

    raw: str
    names: str = ""
    formula: str = ""
    lower: str = ""
    _ends: list[int] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.formula = _formula_text(self.raw)
        self.names = _name_text(self.formula)
        self.lower = self.formula.lower()

    def sentence_ends(self) -> list[int]:
        if self._ends is None:
            self._ends = [m.start() for m in _SENTENCE_END_RE.finditer(self.lower)]
        return self._ends

    def best_sentence(self, words: list[str]) -> int:
        """The largest number of ``words`` (stems) that begin words of one sentence."""
        if not words:
            return 0
        pattern = re.compile("|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)))
        ends = self.sentence_ends()
        seen: dict[int, set[str]] = {}
        best = 0
        text = self.lower
        for m in pattern.finditer(text):
            if m.start() and text[m.start() - 1].isalnum():
                continue  # not the start of a word
            found = seen.setdefault(bisect_left(ends, m.start()), set())
            found.add(m.group())
            best = max(best, len(found))
            if best == len(words):
                break
        return best


_SENTENCE_END_RE = re.compile(r"[.!?。;；](?=\s)|\n")


def _method_evidence(method: Method, view: _ResponseView) -> str | None:
    m = _bounded(_METHOD_NAME_RES[method.name], view.names)
    if m:
        return f"{method.name} named ({m.group().strip()!r})"
    regex = _formula_regex(method.formulas)
    if regex is not None:
        f = _formula_search(regex, view.lower)
        if f:
            return f"{method.name} formula {clip(f, 30)!r}"
    return None


def _literal_evidence(alt: str, view: _ResponseView) -> str | None:
    if _FORMULA_CHARS_RE.search(alt):
        regex = _formula_regex((alt,))
        if regex is not None:
            f = _formula_search(regex, view.lower)
            if f:
                return f"formula {clip(f, 30)!r}"
    words = _content_words(alt)
    if not words:
        return None
    need = len(words) if len(words) < 4 else len(words) - 1
    got = view.best_sentence(words)
    if got >= need:
        return f"{got}/{len(words)} key words of {clip(alt, 30)!r} in one sentence"
    return None


def _item_evidence(item: _Item, view: _ResponseView) -> str | None:
    for method in item.methods:
        found = _method_evidence(method, view)
        if found:
            return found
    for alt in item.alternatives:
        found = _literal_evidence(alt, view)
        if found:
            return found
    return None


def _span_evidence(item: _Item, span: str) -> str | None:
    """The lenient re-check of an extracted span (module docstring)."""
    view = _ResponseView(span)
    strict = _item_evidence(item, view)
    if strict:
        return strict
    symbols = _symbols(view.formula) if "=" in view.formula else set()
    formulas = [f for m in item.methods for f in m.formulas] + item.formulas()
    for formula in formulas:
        need = _symbols(_formula_text(formula))
        if need and need <= symbols:
            return f"rearranged formula {clip(formula, 30)!r} ({len(need)} symbols)"
    for alt in item.alternatives:
        words = _content_words(alt)
        if not words:
            continue
        pattern = re.compile("|".join(re.escape(w) for w in words))
        low = view.lower
        got = {
            m.group()
            for m in pattern.finditer(low)
            if not (m.start() and low[m.start() - 1].isalnum())
        }
        if len(got) >= max(1, (len(words) + 1) // 2):
            return f"{len(got)}/{len(words)} key words of {clip(alt, 30)!r}"
    return None


def _check_method(inp: CheckInput) -> Verdict:
    params = clean_parameters(inp.parameters)
    items, source = _method_items(params, inp.question or "")
    if not items:
        return Verdict.unscored("required method not found in parameters or question")
    view = _ResponseView(inp.response)
    found: list[str] = []
    missing: list[_Item] = []
    for item in items:
        evidence = _item_evidence(item, view)
        if evidence:
            found.append(evidence)
        else:
            missing.append(item)
    notes: list[str] = []
    if missing and inp.judge is not None and inp.response.strip():
        still: list[_Item] = []
        for item in missing:
            span, note = extract_span(inp, f"{item.text} statement or formula")
            evidence = _span_evidence(item, span) if span else None
            if evidence:
                found.append(f"{evidence} in an extracted span ({note})")
            else:
                still.append(item)
                notes.append(note)
        missing = still
    if missing:
        names = "; ".join(clip(i.text, 40) for i in missing[:5])
        names += f" (+{len(missing) - 5} more)" if len(missing) > 5 else ""
        extra = f" ({notes[0]})" if notes else ""
        return Verdict.failed(
            f"{len(missing)} of {_plural(len(items), 'required method')} (from the {source}) "
            f"not found: {names}{extra}"
        )
    return Verdict.passed(f"required method(s) from the {source} found: {'; '.join(found)}")


@register("chemistry_method_constraint")
def chemistry_method_constraint(inp: CheckInput) -> Verdict:
    return _check_method(inp)


@register("geography_method_constraint")
def geography_method_constraint(inp: CheckInput) -> Verdict:
    return _check_method(inp)


@register("biology_method_constraint")
def biology_method_constraint(inp: CheckInput) -> Verdict:
    return _check_method(inp)


@register("material_method_constraint")
def material_method_constraint(inp: CheckInput) -> Verdict:
    return _check_method(inp)


@register("physics_method_constraint")
def physics_method_constraint(inp: CheckInput) -> Verdict:
    return _check_method(inp)


# =========================================================================== answers


def _final_or(response: str, fallback: Callable[[str], Span | None]) -> Span | None:
    return final_answer(response) or fallback(response)


_TAG_RE = re.compile(r"</?[A-Za-z][^<>\n]{0,40}>")
_CONTENT_RE = re.compile(r"[^\W_]")


def _last_content_line(response: str) -> Span | None:
    """The last non-empty line with content beyond markup (closing tags, fences, braces)."""
    for line in reversed(non_empty_lines(response)):
        if _CONTENT_RE.search(_TAG_RE.sub("", line.text)):
            return Span(line.text, line.start, line.end, "last line")
    return last_line(response)


def _strip_decoration(text: str) -> str:
    return text.strip().strip("*`_").strip()


# =========================================================================== address

ADDRESS_WORDS = frozenset(
    (
        "house building number no street road avenue lane boulevard drive way block "
        "neighborhood neighbourhood community village town township district subdistrict "
        "county city municipality prefecture region state province country nation postal "
        "postcode zip code ward borough suburb area unit floor room apartment landmark "
        "territory continent locality settlement quarter"
    ).split()
)
_NUMBER_SLOT_RE = re.compile(
    r"\b(?:house|building|street|door|plot)[ \t]*(?:number|no\.?|#)|\bnumber\b|\bno\.?$|"
    r"\b(?:postal|post|zip)[ \t]*code|\bpostcode\b|\bzip\b",
    re.I,
)
_COUNTRY_SLOT_RE = re.compile(r"\b(?:country|nation)\b", re.I)
# Country names (short forms) for the "a country only in a country slot" check.
COUNTRIES = frozenset(
    name.replace("_", " ")
    for name in (
        "afghanistan albania algeria andorra angola argentina armenia australia austria "
        "azerbaijan bahamas bahrain bangladesh barbados belarus belgium belize benin bhutan "
        "bolivia botswana brazil brunei bulgaria burundi cambodia cameroon canada chad chile "
        "china colombia comoros congo croatia cuba cyprus czechia czech_republic denmark "
        "djibouti dominica ecuador egypt eritrea estonia eswatini ethiopia fiji finland france "
        "gabon gambia georgia germany ghana greece grenada guatemala guinea guyana haiti "
        "honduras hungary iceland india indonesia iran iraq ireland israel italy jamaica japan "
        "jordan kazakhstan kenya kiribati kuwait kyrgyzstan laos latvia lebanon lesotho liberia "
        "libya liechtenstein lithuania luxembourg madagascar malawi malaysia maldives mali malta "
        "mauritania mauritius mexico micronesia moldova monaco mongolia montenegro morocco "
        "mozambique myanmar namibia nauru nepal netherlands new_zealand nicaragua niger nigeria "
        "north_korea north_macedonia norway oman pakistan palau panama papua_new_guinea "
        "paraguay peru philippines poland portugal qatar romania russia rwanda samoa "
        "san_marino saudi_arabia senegal serbia seychelles sierra_leone singapore slovakia "
        "slovenia somalia south_africa south_korea south_sudan spain sri_lanka sudan suriname "
        "sweden switzerland syria taiwan tajikistan tanzania thailand togo tonga "
        "trinidad_and_tobago tunisia turkey türkiye turkmenistan tuvalu uganda ukraine "
        "united_arab_emirates uae united_kingdom uk united_states usa vanuatu venezuela "
        "vietnam viet_nam yemen zambia zimbabwe england scotland wales"
    ).split()
)
_ADDRESS_SEPARATORS = (">", "→", "->", "»", ",", "，", ";", "|", "\n")
_LIST_SPLIT_RE = re.compile(r"[ \t]*(?:>|→|->|»|,|，|;|\||\n)[ \t]*")
_STATED_SEPARATOR_RE = re.compile(
    r"\bseparat\w*[ \t]+(?:(?:each|the)[ \t]+\w+[ \t]+)?(?:by|with)[ \t]+(?:an?[ \t]+|the[ \t]+)?"
    r"(?P<word>commas?|semicolons?|(?:greater[ \t]+than[ \t]+signs?|arrows?)|new[ \t]*lines?|"
    r"line[ \t]+breaks?|vertical[ \t]+bars?|pipes?)"
    r"|\b(?:separat\w*|delimit\w*)[ \t]+(?:by|with)[ \t]+[\"'“‘`]?(?P<sym>[>,;|→»]|->)"
    r"|\b(?P<hyph>comma|semicolon|newline|line)[ \t-]*(?:separated|delimited)",
    re.I,
)
_ADDRESS_CONTEXT_RE = re.compile(r"address|order|format|hierarch|level|component", re.I)
_ADDRESS_LEAD_RE = re.compile(
    r"^(?:the[ \t]+)?(?:full[ \t]+|complete[ \t]+|hierarchical[ \t]+)?address"
    r"(?:[ \t]+(?:is|would[ \t]+be|reads))?[ \t]*[:：-]?[ \t]*",
    re.I,
)
_COUNT_RE = re.compile(
    r"\b([0-9]+|one|two|three|four|five|six|seven|eight|nine|ten)[ \t-]*"
    r"(?:levels?|components?|parts?|tiers?|elements?|fields?)\b",
    re.I,
)


def _stated_separator(text: str) -> str:
    m = _STATED_SEPARATOR_RE.search(text)
    if not m:
        return ""
    if m.group("sym"):
        return "→" if m.group("sym") == "->" else m.group("sym")
    word = (m.group("word") or m.group("hyph") or "").lower()
    if word.startswith("comma"):
        return ","
    if word.startswith("semicolon"):
        return ";"
    if word.startswith(("greater", "arrow")):
        return ">"
    if word.startswith(("vertical", "pipe")):
        return "|"
    return "\n"


def _looks_like_components(items: list[str]) -> bool:
    hits = sum(1 for it in items if set(it.lower().replace("/", " ").split()) & ADDRESS_WORDS)
    return len(items) >= 2 and hits * 2 >= len(items)


def _clean_slot_names(raw: list[str]) -> list[str]:
    out = []
    for item in raw:
        item = item.strip(" \t[]<>{}\"'`*.").strip()
        item = re.sub(r"^(?:and|then|finally)[ \t]+", "", item, flags=re.I)
        if re.match(
            r"(?:separat|delimit|using|with|in[ \t]|from[ \t]|all[ \t]|each[ \t])", item, re.I
        ):
            break
        if item:
            out.append(item)
    return out


def _address_slots(params: str, question: str) -> tuple[list[str], int, str]:
    """(slot names, count, source); names may be empty when only a count is stated."""
    if params:
        text = params.rsplit(":", 1)[-1] if ":" in params else params
        names = _clean_slot_names(_LIST_SPLIT_RE.split(text))
        if len(names) >= 2:
            return names, len(names), "parameters"
    for sentence in sentences(question or ""):
        if not _ADDRESS_CONTEXT_RE.search(sentence):
            continue
        for m in re.finditer(r":|\bformat\b|\border\b|\(|\bas\b|\blike\b", sentence, re.I):
            names = _clean_slot_names(_LIST_SPLIT_RE.split(sentence[m.end() :].strip(" )")))
            if _looks_like_components(names):
                return names, len(names), "question"
    for text, source in ((params, "parameters"), (question, "question")):
        count = _COUNT_RE.search(text or "")
        if count:
            n = parse_int(count.group(1))
            if n:
                return [], n, source
    return [], 0, ""


def _split_address(text: str, separator: str) -> tuple[list[str], str]:
    if separator:
        seps = (
            [separator]
            + (["->"] if separator == "→" else [])
            + (["，"] if separator == "," else [])
        )
    else:
        seps = [next((s for s in _ADDRESS_SEPARATORS if s in text), ",")]
        if seps[0] == "→":
            seps.append("->")
    parts = [text]
    for sep in seps:
        parts = [p for part in parts for p in part.split(sep)]
    cleaned = [_strip_decoration(p).strip(" \t.\"'[]") for p in parts]
    return cleaned, seps[0]


@register("geography_address_format_validity")
def address_format_validity(inp: CheckInput) -> Verdict:
    params = clean_parameters(inp.parameters)
    slots, count, source = _address_slots(params, inp.question or "")
    if not count:
        return Verdict.unscored("required address components not stated in parameters or question")
    separator = _stated_separator(inp.question or "") or _stated_separator(params)
    span = _final_or(inp.response, last_line)
    if span is None:
        return Verdict.failed("empty response")
    text = _ADDRESS_LEAD_RE.sub("", _strip_decoration(span.text))
    parts, used = _split_address(text, separator)
    where = f"the final answer ({span.source})"
    if len(parts) == 1 and separator in ("", "\n"):
        block = paragraphs(inp.response)
        if block:
            parts, used = _split_address(block[-1].text, "\n")
            where = "the last paragraph"
    shown = "newline" if used == "\n" else repr(used)
    if any(not p for p in parts):
        return Verdict.failed(f"empty component in {where} split on {shown}: {clip(text)!r}")
    if len(parts) != count:
        return Verdict.failed(
            f"{_plural(len(parts), 'component')} in {where} split on {shown}, {count} required"
            + (f" ({', '.join(slots)})" if slots else "")
            + f": {clip(text, 60)!r}"
        )
    for i, (part, slot) in enumerate(zip(parts, slots, strict=False)):
        numeric = bool(_NUMBER_SLOT_RE.search(slot))
        if numeric and not any(ch.isdigit() for ch in part):
            return Verdict.failed(f"component {i + 1} {part!r} should be the {slot} (no digit)")
        if not numeric and not any(ch.isalpha() for ch in part):
            return Verdict.failed(f"component {i + 1} {part!r} should be the {slot} (no letter)")
        if part.lower() in COUNTRIES and not _COUNTRY_SLOT_RE.search(slot):
            return Verdict.failed(f"country {part!r} in the {slot} position (component {i + 1})")
    order = f" in the order {' > '.join(slots)}" if slots else ""
    return Verdict.passed(
        f"{_plural(count, 'component')} (from the {source}){order} in {where}, separated by {shown}"
    )


# =========================================================================== scene option

_BEGIN_RE = re.compile(
    r"\b(?:at|in)[ \t]+the[ \t]+(?:very[ \t]+)?(?:beginning|start)\b|\b(?:begin|start)[ \t]+"
    r"(?:your[ \t]+)?(?:response|answer|reply)[ \t]+with\b|\bfirst\b[^.\n]{0,40}\bthen\b",
    re.I,
)


def _first_sentence(response: str) -> Span | None:
    lines = non_empty_lines(response)
    if not lines:
        return None
    line = lines[0]
    m = re.search(r"[.!?;:](?=\s|$)|[ \t][-–—][ \t]", line.text)
    body = line.text[: m.start()] if m else line.text
    return Span(body, line.start, line.start + len(body), "first sentence")


# Attribute templates (several labels, one per attribute), in the three released forms:
#   "lighting_condition": "dusk/dawn" | "day" | "night",     (JSON-like, one line each)
#   - lighting_condition: ["dusk/dawn", "day", "night"]      (a list per attribute)
#   ['dusk/dawn', 'day', 'night'] for lighting_condition;     (lists "for" attributes)
# An alternative is a quoted string: "dusk/dawn" is ONE alternative.
_ATTR_LINE_RE = re.compile(
    r"^[ \t]*(?:[-*•][ \t]+)?[\"'`]?(?P<attr>[A-Za-z][\w-]{0,40})[\"'`]?[ \t]*[:=]"
    r"[ \t]*(?P<rest>[\"'\[].*)$",
    re.M,
)
_ATTR_FOR_RE = re.compile(
    r"\[(?P<rest>[^\[\]\n]{1,400})\][ \t]+for[ \t]+(?:the[ \t]+)?[\"'`]?"
    r"(?P<attr>[A-Za-z][\w-]{0,40})"
)
_QUOTED_RE = re.compile(r"\"([^\"\n]{1,80})\"|'([^'\n]{1,80})'")
_LABEL_SEP_RE = re.compile(r"[\s_-]+")
MAX_SCENE_ATTRIBUTES = 50


def _label_key(text: str) -> str:
    """Labels compare case-insensitively, with "_", "-" and spaces alike
    ("driving_surface" = "driving surface")."""
    return _LABEL_SEP_RE.sub(" ", text.strip().strip("\"'`*").lower()).strip()


def _alternatives(rest: str) -> list[str]:
    rest = rest.split("#", 1)[0]
    if "|" not in rest and "[" not in rest and "," not in rest:
        return []
    return [a or b for a, b in _QUOTED_RE.findall(rest)]


def scene_attributes(text: str) -> dict[str, list[str]]:
    """Each attribute of a label template in ``text`` with its own alternatives (at least
    two each, at least two attributes); {} when ``text`` holds no such template (a single
    label list is read as ``general_choose_from`` reads options)."""
    found: dict[str, list[str]] = {}
    for m in _ATTR_LINE_RE.finditer(text):
        if _ATTR_FOR_RE.search(m.group("rest")):
            continue  # "[...] for attr; [...] for attr2" on one line: read below
        alts = _alternatives(m.group("rest"))
        if len(alts) >= 2:
            found.setdefault(m.group("attr").strip(), alts)
    for m in _ATTR_FOR_RE.finditer(text):
        alts = [a or b for a, b in _QUOTED_RE.findall(m.group("rest"))]
        if len(alts) >= 2:
            found.setdefault(m.group("attr").strip(), alts)
    if len(found) < 2:
        return {}
    return dict(islice(found.items(), MAX_SCENE_ATTRIBUTES))


def _last_json_object(text: str, tries: int = 20) -> dict | None:
    """The last ``{...}`` of ``text`` that parses as a JSON object (a few tries)."""
    end = text.rfind("}")
    if end < 0:
        return None
    start = end
    for _ in range(tries):
        start = text.rfind("{", 0, start)
        if start < 0:
            return None
        try:
            value = json.loads(text[start : end + 1])
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def _attribute_values(text: str, attrs: list[str]) -> dict[str, str]:
    """The value the answer gives each attribute: the last ``attr: value`` (quoted or bare,
    JSON or not) in ``text``."""
    out: dict[str, str] = {}
    for attr in attrs:
        key = r"[ \t_-]*".join(re.escape(w) for w in _LABEL_SEP_RE.split(attr) if w)
        pattern = re.compile(
            rf"(?<![\w]){key}(?![\w])[\"'`*]{{0,3}}[ \t]*[:=][ \t]*\*{{0,2}}[ \t]*"
            r"(?:\"([^\"\n]*)\"|'([^'\n]*)'|(\[[^\]\n]*\])|([^,}\n]*))",
            re.I,
        )
        last = None
        for last in pattern.finditer(text):  # noqa: B007 - we want the last one
            pass
        if last is not None:
            out[attr] = next(g for g in last.groups() if g is not None).strip()
    return out


def _scene_attribute_verdict(inp: CheckInput, attrs: dict[str, list[str]], source: str) -> Verdict:
    response = inp.response
    span = final_answer(response, to_end=True)
    text = response
    if span is not None and _attribute_values(span.text, list(attrs)):
        text = span.text
    values = _attribute_values(text, list(attrs))
    if not values:
        return Verdict.failed(f"none of the {len(attrs)} attributes ({', '.join(attrs)}) answered")
    for attr, alts in attrs.items():
        if attr not in values:
            return Verdict.failed(f"attribute {attr!r} missing (one of {', '.join(alts)} required)")
        value = values[attr]
        if _label_key(value) not in {_label_key(a) for a in alts}:
            return Verdict.failed(
                f"{attr} = {clip(value)!r} is not one of its labels ({', '.join(alts)})"
            )
    obj = _last_json_object(text)
    keys = {_label_key(a) for a in attrs}
    if obj is not None and keys & {_label_key(str(k)) for k in obj}:
        extra = [str(k) for k in obj if _label_key(str(k)) not in keys]
        if extra:
            return Verdict.failed(f"attribute(s) not in the template: {', '.join(extra[:3])}")
    shown = ", ".join(f"{a}={values[a]}" for a in list(attrs)[:4])
    return Verdict.passed(
        f"each of {len(attrs)} attributes (template from the {source}) takes one of its own "
        f"labels: {shown}"
    )


@register("geography_scene_option_constraint")
def scene_option_constraint(inp: CheckInput) -> Verdict:
    params = clean_parameters(inp.parameters)
    for text, where in ((params, "parameters"), (inp.question or "", "question")):
        attrs = scene_attributes(text) if text else {}
        if attrs:
            return _scene_attribute_verdict(inp, attrs, where)
    options, source = _options(params, inp.question or "")
    if not options:
        return Verdict.unscored("scene labels not found in parameters or question")
    span = final_answer(inp.response)
    if span is None:
        if _BEGIN_RE.search(inp.question or "") or _BEGIN_RE.search(params):
            span = _first_sentence(inp.response)
        else:
            span = _last_content_line(inp.response)
    if span is None:
        return Verdict.failed("empty response")
    where = (
        f"the {span.source}"
        if span.source in ("first sentence", "last line")
        else (f"the final answer ({span.source})")
    )
    named = _named_options(options, span.text)
    if len(named) == 1:
        return Verdict.passed(
            f"one of {len(options)} scene labels (from the {source}) in {where}: {named[0]}"
        )
    if not named:
        shown = ", ".join(str(o) for o in options[:4]) + (" ..." if len(options) > 4 else "")
        return Verdict.failed(f"no scene label ({shown}) in {where}: {clip(span.text)!r}")
    return Verdict.failed(
        f"{len(named)} scene labels in {where}: {', '.join(str(o) for o in named[:3])}"
    )


# =========================================================================== triples


@dataclass(frozen=True)
class _Template:
    opener: str
    sep1: str
    sep2: str
    closer: str

    def show(self) -> str:
        return f"{self.opener}e1{self.sep1}r{self.sep2}e2{self.closer}"

    @property
    def bracketed(self) -> bool:
        """The brackets enclose the whole triple ("(e1, r, e2)"), not each entity
        ("[A] --r--> [B]")."""
        if not (self.opener and self.closer and self.opener[-1] in "([{<"):
            return False
        return not any(ch in self.sep1 + self.sep2 for ch in self.opener + self.closer)


_PLACEHOLDER_RE = re.compile(
    r"(?:entity|head|tail|subject|object|source|target|node|gene|protein|molecule|"
    r"relation(?:ship)?|rel|predicate|interaction|edge|verb|type)"
    r"(?:[ _-]?(?:[0-9]|one|two|[ab]|type|name|entity))*"
    r"|\b(?:e[12]|[ABXYR]|r)\b",
    re.I,
)
_CLOSERS = {"(": ")", "[": "]", "{": "}", "<": ">", "“": "”", '"': '"', "'": "'"}
_ARROWS = str.maketrans({"→": "->", "⟶": "->", "⇒": "=>", "—": "--", "–": "-"})
_DEFAULT_TEMPLATES = (
    _Template("(", ", ", ", ", ")"),
    _Template("", " -> ", " -> ", ""),
    _Template("", " | ", " | ", ""),
)
_TRIPLE_WORD_RE = re.compile(r"\btriples?\b|\btriplets?\b", re.I)
_TRIPLE_COUNT_RE = re.compile(
    r"\b(exactly|at[ \t]+least|at[ \t]+most|no[ \t]+more[ \t]+than|no[ \t]+fewer[ \t]+than|"
    r"minimum[ \t]+of|maximum[ \t]+of)?[ \t]*([0-9]+|one|two|three|four|five|six|seven|eight|"
    r"nine|ten|eleven|twelve)[ \t]+(?:[\w-]+[ \t]+)?"
    r"(?:triples?|triplets?|relationships?|relations?|tuples?|pairs?)\b",
    re.I,
)
_ONE_PER_LINE_RE = re.compile(
    r"one[ \t]+(?:triple[ \t]+|relationship[ \t]+)?per[ \t]+line|no[ \t]+other[ \t]+text|"
    r"nothing[ \t]+else|only[ \t]+the[ \t]+triples",
    re.I,
)


def _template_in(text: str) -> _Template | None:
    t = text.translate(_ARROWS)
    marks = list(_PLACEHOLDER_RE.finditer(t[:2000]))
    for k in range(len(marks) - 2):
        a, b, c = marks[k : k + 3]
        sep1, sep2 = t[a.end() : b.start()], t[b.end() : c.start()]
        if not (0 < len(sep1.strip() or sep1) <= 8 and 0 < len(sep2.strip() or sep2) <= 8):
            continue
        if any(ch.isalnum() for ch in sep1 + sep2) or not (sep1.strip() and sep2.strip()):
            continue
        before = t[max(0, a.start() - 3) : a.start()]
        opener = ""
        for ch in reversed(before):
            if ch in _CLOSERS or ch in "[(<{":
                opener = ch + opener
            else:
                break
        after = t[c.end() : c.end() + 3]
        closer = ""
        for ch in after:
            if ch in ")]}>”\"'":
                closer += ch
            else:
                break
        if opener and not closer:
            opener = ""
        return _Template(opener, sep1, sep2, closer)
    return None


def _fields(body: str, template: _Template) -> list[str] | None:
    """Split ``body`` with the template's separators; None when malformed."""
    s1, s2 = template.sep1.strip(), template.sep2.strip()
    if s1 == s2 == ",":
        quoted = "'" in body or '"' in body
        parts = _split_quoted(body, ",") if quoted else body.split(",")
    else:
        i = body.find(s1)
        if i < 0:
            return None
        j = body.find(s2, i + len(s1))
        if j < 0:
            return None
        parts = [body[:i], body[i + len(s1) : j], body[j + len(s2) :]]
        if s2 in parts[2] or (s1 != s2 and s1 in parts[2]):
            return None
    fields = [p.strip().strip("\"'`“”‘’").strip() for p in parts]
    if len(fields) != 3 or not all(fields):
        return None
    return fields


def _split_quoted(text: str, sep: str) -> list[str]:
    parts, current, quote = [], [], ""
    for ch in text:
        if quote:
            current.append(ch)
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
            current.append(ch)
        elif ch == sep:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return parts


_BULLET_RE = re.compile(r"^[ \t]*(?:[-*•+]|[0-9]{1,3}[.)])[ \t]+")


MAX_TRIPLES = 5_000  # candidates examined; more: the verdict is on the first ones


def _candidates(text: str, template: _Template, every_line: bool) -> Iterator[str]:
    """The pieces of ``text`` that are meant as triples (module docstring)."""
    t = text.translate(_ARROWS) if not text.isascii() else text
    for line in t.splitlines():
        body = _BULLET_RE.sub("", line).strip().strip("*").strip().rstrip(".;")
        if not body or body.startswith("```"):
            continue
        if template.bracketed:
            opener, closer = template.opener[-1], template.closer[0]
            pos, groups = 0, []
            while True:
                a = body.find(opener, pos)
                if a < 0:
                    break
                b = body.find(closer, a + 1)
                if b < 0:
                    groups.append(body[a:])
                    break
                groups.append(body[a : b + 1])
                pos = b + 1
            starts_group = body.lstrip("[").lstrip().startswith(opener)
            if groups and (starts_group or every_line):
                yield from groups
            elif every_line:
                yield body
        elif template.sep1.strip() in body or every_line:
            yield body


def _well_formed(candidate: str, template: _Template) -> bool:
    body = candidate.strip().strip(",")
    if template.opener:
        if not body.startswith(template.opener.strip()):
            return False
        body = body[len(template.opener.strip()) :]
    if template.closer:
        if not body.endswith(template.closer.strip()):
            return False
        body = body[: len(body) - len(template.closer.strip())]
    return _fields(body, template) is not None


def _required_triples(params: str, question: str) -> tuple[str, int]:
    for text in (params, question):
        m = _TRIPLE_COUNT_RE.search(text or "")
        if m:
            n = parse_int(m.group(2))
            if n:
                word = (m.group(1) or "").lower()
                kind = (
                    "ge"
                    if "least" in word or "fewer" in word or "minimum" in word
                    else (
                        "le"
                        if "most" in word or "more" in word or "maximum" in word
                        else ("eq" if word else "ge")
                    )
                )
                return kind, n
    return "ge", 1


# A tuple template that names its fields: "(chemical substance, corresponding disease)",
# "[gene, disease, relation]". In the question it must follow a format cue.
_NAMED_TUPLE_RE = re.compile(
    r"([(\[])([A-Za-z][A-Za-z /'-]{0,40}(?:,[ \t]*[A-Za-z][A-Za-z /'-]{0,40}){1,4})([)\]])"
)
_TUPLE_CUE_RE = re.compile(
    r"\b(?:format|form|template|tuples?|pairs?|triples?|triplets?|structure|shape|pattern|"
    r"as|like|following)\b[^.()\[\]\n]{0,40}$",
    re.I,
)


@dataclass(frozen=True)
class _NamedTuple:
    opener: str
    closer: str
    fields: tuple[str, ...]

    def show(self) -> str:
        return f"{self.opener}{', '.join(self.fields)}{self.closer}"


def _named_tuple_in(text: str, need_cue: bool) -> _NamedTuple | None:
    for m in _NAMED_TUPLE_RE.finditer(text[:5000]):
        opener, body, closer = m.groups()
        if (opener == "(") != (closer == ")"):
            continue
        if need_cue and not _TUPLE_CUE_RE.search(text[max(0, m.start() - 60) : m.start()]):
            continue
        fields = tuple(f.strip() for f in body.split(","))
        if all(0 < len(f.split()) <= 4 for f in fields):
            return _NamedTuple(opener, closer, fields)
    return None


def _tuple_groups(text: str, opener: str, closer: str) -> list[str]:
    """The bracketed groups meant as tuples: those on lines that start with the bracket
    (after a bullet) if there are any, else every group holding a comma."""
    leading: list[str] = []
    anywhere: list[str] = []
    for line in text.splitlines():
        body = _BULLET_RE.sub("", line).strip().strip("*").strip()
        pos = 0
        starts = (
            body.lstrip("[").lstrip().startswith(opener)
            if opener == "("
            else (body.startswith(opener))
        )
        while len(leading) + len(anywhere) < MAX_TRIPLES:
            a = body.find(opener, pos)
            if a < 0:
                break
            b = body.find(closer, a + 1)
            if b < 0:
                break
            group = body[a + 1 : b]
            if opener == "[" and group.lstrip().startswith("("):
                break  # a Python list of tuples: read with "(" instead
            (leading if starts else anywhere).append(group)
            pos = b + 1
    return leading or [g for g in anywhere if "," in g]


def _named_tuple_verdict(inp: CheckInput, tpl: _NamedTuple, params: str, source: str) -> Verdict:
    span = final_answer(inp.response, to_end=True)
    text = span.text if span is not None and span.text.strip() else inp.response
    blocks = code_blocks(text)
    if blocks:
        text = blocks[-1].body
    opener = tpl.opener
    groups = _tuple_groups(text, opener, tpl.closer)
    if not groups and opener == "[":
        groups = _tuple_groups(text, "(", ")")
    n = len(tpl.fields)
    good: list[str] = []
    bad: list[str] = []
    for group in groups:
        quoted = "'" in group or '"' in group
        parts = _split_quoted(group, ",") if quoted else group.split(",")
        fields = [p.strip().strip("\"'`“”‘’").strip() for p in parts]
        (good if len(fields) == n and all(fields) else bad).append(group)
    fmt = f"{tpl.show()!r} (from the {source})"
    if bad:
        return Verdict.failed(
            f"{_plural(len(bad), 'malformed tuple')} for {fmt} ({n} fields each), e.g. "
            f"{clip(bad[0])!r} ({len(good)} well formed)"
        )
    kind, count = _required_triples(params, inp.question or "")
    ok = {"ge": len(good) >= count, "le": 1 <= len(good) <= count, "eq": len(good) == count}
    if not ok[kind]:
        need = {"ge": "at least", "le": "at most", "eq": "exactly"}[kind]
        return Verdict.failed(f"{_plural(len(good), 'well-formed tuple')} in {fmt}; {need} {count}")
    return Verdict.passed(
        f"{_plural(len(good), 'well-formed tuple')} of {n} fields in {fmt}, e.g. {clip(good[0])!r}"
    )


@register("biology_entity_relationship_format_validity")
def entity_relationship_format_validity(inp: CheckInput) -> Verdict:
    params = clean_parameters(inp.parameters)
    question = inp.question or ""
    template = _template_in(params) if params else None
    source = "parameters"
    if template is None:
        template, source = _template_in(question), "question"
    if template is None:  # a template that names its own fields, two as often as three
        named = _named_tuple_in(params, need_cue=False) if params else None
        if named is not None:
            return _named_tuple_verdict(inp, named, params, "parameters")
        named = _named_tuple_in(question, need_cue=True)
        if named is not None:
            return _named_tuple_verdict(inp, named, params, "question")
    templates = [template] if template else []
    if not templates:
        if not (_TRIPLE_WORD_RE.search(question) or _TRIPLE_WORD_RE.search(params)):
            return Verdict.unscored("no triple format stated in parameters or question")
        templates, source = list(_DEFAULT_TEMPLATES), "defaults"
    every_line = bool(_ONE_PER_LINE_RE.search(question) or _ONE_PER_LINE_RE.search(params))
    span = final_answer(inp.response, to_end=True)
    text = span.text if span is not None and span.text.strip() else inp.response
    blocks = code_blocks(text)
    if blocks:
        text = blocks[-1].body
    best: tuple[int, int, _Template, list[str], list[str]] | None = None
    for tpl in templates:
        good: list[str] = []
        bad: list[str] = []
        for cand in islice(_candidates(text, tpl, every_line), MAX_TRIPLES):
            (good if _well_formed(cand, tpl) else bad).append(cand)
        key = (len(good), -len(bad))
        if best is None or key > best[:2]:
            best = (len(good), -len(bad), tpl, good, bad)
    assert best is not None
    _, _, tpl, good, bad = best
    fmt = f"{tpl.show()!r} (from the {source})"
    if bad:
        return Verdict.failed(
            f"{_plural(len(bad), 'malformed triple')} for {fmt}, e.g. {clip(bad[0])!r}"
            f" ({len(good)} well formed)"
        )
    kind, n = _required_triples(params, question)
    ok = {"ge": len(good) >= n, "le": 1 <= len(good) <= n, "eq": len(good) == n}[kind]
    need = {"ge": "at least", "le": "at most", "eq": "exactly"}[kind]
    if not ok:
        return Verdict.failed(
            f"{_plural(len(good), 'well-formed triple')} in {fmt}; {need} {n} required"
        )
    return Verdict.passed(
        f"{_plural(len(good), 'well-formed triple')} in {fmt}, e.g. {clip(good[0])!r}"
    )


# =========================================================================== sequences

_NUCLEIC = frozenset("ACGTUN")
_PROTEIN = frozenset("ACDEFGHIKLMNPQRSTVWYX")
_THREE_LETTER = (
    "Ala Arg Asn Asp Cys Gln Glu Gly His Ile Leu Lys Met Phe Pro Ser Thr Trp Tyr Val Sec Pyl"
).split()
_UNITS_WORDS = {
    "nucleotide": "nucleic", "nt": "nucleic", "base": "nucleic", "bp": "nucleic",
    "base pair": "nucleic", "codon": "codon", "residue": "", "amino acid": "protein",
    "aa": "protein", "letter": "", "character": "", "mer": "",
}  # fmt: skip
_COUNT_WORD = (
    r"(?:[0-9]+|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[ -](?:one|two|three|"
    r"four|five|six|seven|eight|nine))?|zero|one|two|three|four|five|six|seven|eight|nine|ten|"
    r"eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|"
    r"(?:one|a)[ \t]+hundred)"
)
_COMPARATOR = (
    r"(?P<cmp>exactly|precisely|at[ \t]+least|at[ \t]+most|no[ \t]+more[ \t]+than|"
    r"no[ \t]+(?:fewer|less)[ \t]+than|not[ \t]+(?:more|longer)[ \t]+than|"
    r"not[ \t]+(?:fewer|less|shorter)[ \t]+than|minimum[ \t]+of|maximum[ \t]+of|up[ \t]+to|"
    r"more[ \t]+than|longer[ \t]+than|greater[ \t]+than|over|fewer[ \t]+than|less[ \t]+than|"
    r"shorter[ \t]+than|under|≥|>=|≤|<=|>|<)?[ \t]*"
)
_SEQ_UNIT = (
    r"(?P<unit>nucleotides?|nts?\b|bases?\b|base[ \t-]pairs?|bp\b|residues?|amino[ \t-]acids?|"
    r"aa\b|letters?|characters?|codons?|mers?\b)"
)
_LENGTH_RES = (
    re.compile(
        rf"{_COMPARATOR}(?P<n>{_COUNT_WORD})[ \t]*(?:-[ \t]*)?{_SEQ_UNIT}"
        r"(?P<post>[ \t]+(?:long[ \t]+)?or[ \t]+(?:more|longer|greater|fewer|less|shorter))?",
        re.I,
    ),
    re.compile(
        rf"\b(?:length|long)[ \t]*(?:of|:|=|is|should[ \t]+be|must[ \t]+be|equal[ \t]+to)?[ \t]*"
        rf"{_COMPARATOR}(?P<n>{_COUNT_WORD})\b(?![ \t]*(?:%|percent))",
        re.I,
    ),
)
_BETWEEN_RE = re.compile(
    rf"\bbetween[ \t]+(?P<a>{_COUNT_WORD})[ \t]+and[ \t]+(?P<b>{_COUNT_WORD})[ \t]*{_SEQ_UNIT}",
    re.I,
)
_MUST_RE = re.compile(
    r"\b(?:must|should|exactly|length|long|at[ \t]+least|at[ \t]+most|required?)\b", re.I
)
_SMALL = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen".split()
    )
}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}  # fmt: skip


def _count(token: str) -> int | None:
    t = " ".join(token.lower().replace("-", " ").split())
    if t.isdigit():
        return int(t)
    if t in ("one hundred", "a hundred"):
        return 100
    if t in _SMALL:
        return _SMALL[t]
    parts = t.split()
    if parts and parts[0] in _TENS:
        return _TENS[parts[0]] + (_SMALL.get(parts[1], 0) if len(parts) > 1 else 0)
    return None


@dataclass(frozen=True)
class _LengthRule:
    low: int
    high: int | None  # None: no upper bound
    kind: str  # nucleic / protein / codon / ""
    words: str

    def ok(self, n: int) -> bool:
        return n >= self.low and (self.high is None or n <= self.high)


_AT_LEAST = frozenset(
    "at least|no fewer than|no less than|not fewer than|not less than|not shorter than|"
    "minimum of|≥|>=".split("|")
)
_AT_MOST = frozenset(
    "at most|no more than|not more than|not longer than|maximum of|up to|≤|<=".split("|")
)


def _rule_from(m: re.Match[str]) -> _LengthRule | None:
    n = _count(m.group("n"))
    if n is None:
        return None
    cmp = " ".join((m.group("cmp") or "").lower().split())
    post = (m.groupdict().get("post") or "").lower()
    unit = (m.groupdict().get("unit") or "").lower()
    kind = next((v for k, v in _UNITS_WORDS.items() if unit.replace("-", " ").startswith(k)), "")
    if cmp in _AT_LEAST or any(w in post for w in ("more", "longer", "greater")):
        return _LengthRule(n, None, kind, f"at least {n}")
    if cmp in _AT_MOST or any(w in post for w in ("fewer", "less", "shorter")):
        return _LengthRule(0, n, kind, f"at most {n}")
    if cmp in ("more than", "longer than", "greater than", "over", ">"):
        return _LengthRule(n + 1, None, kind, f"more than {n}")
    if cmp in ("fewer than", "less than", "shorter than", "under", "<"):
        return _LengthRule(0, n - 1, kind, f"fewer than {n}")
    return _LengthRule(n, n, kind, f"exactly {n}")


def _length_rules(text: str) -> list[_LengthRule]:
    rules: list[_LengthRule] = []
    for m in _BETWEEN_RE.finditer(text):
        a, b = _count(m.group("a")), _count(m.group("b"))
        unit = m.group("unit").lower()
        kind = next(
            (v for k, v in _UNITS_WORDS.items() if unit.replace("-", " ").startswith(k)), ""
        )
        if a is not None and b is not None:
            rules.append(_LengthRule(min(a, b), max(a, b), kind, f"between {a} and {b}"))
    if rules:
        return rules
    for pattern in _LENGTH_RES:
        for m in pattern.finditer(text):
            rule = _rule_from(m)
            if rule and rule not in rules:
                rules.append(rule)
        if rules:
            return rules
    return rules


def _length_requirement(params: str, question: str) -> tuple[_LengthRule | None, str]:
    if params:
        rules = _length_rules(params)
        if not rules:
            n = _count(params.strip().strip("."))
            rules = [_LengthRule(n, n, "", f"exactly {n}")] if n is not None else []
        if len(rules) == 1:
            return rules[0], "parameters"
        if len(rules) > 1:
            return None, f"conflicting lengths in the parameters: {[r.words for r in rules]}"
    found: list[_LengthRule] = []
    for sentence in sentences(question):
        for rule in _length_rules(sentence):
            if rule not in found:
                found.append(rule)
    if len(found) > 1:
        strong = [r for s in sentences(question) if _MUST_RE.search(s) for r in _length_rules(s)]
        found = list(dict.fromkeys(strong)) or found
    if len({(r.low, r.high) for r in found}) == 1:
        return found[0], "question"
    if found:
        return None, f"conflicting lengths in the question: {[r.words for r in found]}"
    return None, "required sequence length not stated in parameters or question"


def _sequence_kind(rule: _LengthRule, question: str) -> str:
    if rule.kind:
        return rule.kind
    q = question.lower()
    if re.search(r"protein|peptide|amino|polypeptide|residue", q):
        return "protein"
    if re.search(r"\b(?:dna|rna|mrna|trna|nucleotide|primer|oligo\w*|gene|codon|strand)\b", q):
        return "nucleic"
    return ""


def _holder(response: str) -> tuple[str, str]:
    span = final_answer(response)
    if span is not None and span.text.strip():
        return span.text, f"the final answer ({span.source})"
    pos = response.rfind("[[")
    if pos >= 0:
        end = response.find("]]", pos)
        if end > pos:
            return response[pos + 2 : end], "[[...]]"
    blocks = [b for b in code_blocks(response) if b.body.strip()]
    if blocks:
        return blocks[-1].body, "the code block"
    return response, "the response"


_PRIME = "'′’ʹ"


def _five_to_three(text: str) -> list[str]:
    """Sequences written 5'-...-3' (manual scan: linear)."""
    out = []
    for m in re.finditer(r"5[ \t]*[" + _PRIME + "]", text):
        i = m.end()
        j = i
        while j < len(text) and j - i < 20000 and (text[j].isalpha() or text[j] in " -–—→\t"):
            j += 1
        if text.startswith("3", j) and text[j + 1 : j + 2] in tuple(_PRIME):
            letters = "".join(ch for ch in text[i:j] if ch.isalpha())
            if letters:
                out.append(letters)
    return out


def _fasta(text: str) -> list[str]:
    out: list[str] = []
    current: list[str] = []
    inside = False
    for line in text.splitlines():
        s = line.strip()
        if s.startswith(">"):
            if current:
                out.append("".join(current))
            current, inside = [], True
        elif inside and s and re.fullmatch(r"[A-Za-z*\- ]+", s):
            current.append("".join(ch for ch in s if ch.isalpha()))
        elif inside and current:
            out.append("".join(current))
            current, inside = [], False
    if current:
        out.append("".join(current))
    return out


_LETTER_LIST_RE = re.compile(
    r"\[[ \t]*[\"']?([A-Za-z])[\"']?(?:[ \t]*,[ \t]*[\"']?[A-Za-z][\"']?)+[ \t]*,?[ \t]*\]"
)
_CODES = "|".join(c for code in _THREE_LETTER for c in (code, code.upper(), code.lower()))
_THREE_RE = re.compile(rf"(?:{_CODES})(?:[ \t]*[-–][ \t]*(?:{_CODES}))+")
# Runs of sequence letters (one case), groups joined by single spaces or hyphens. The
# regexes start with a character class (fast scanning); word boundaries are checked after.
_RUN_RES = {
    alphabet: (
        re.compile(rf"[{letters}]{{2,}}(?:[ -][{letters}]+)*"),
        re.compile(rf"[{letters.lower()}]{{2,}}(?:[ -][{letters.lower()}]+)*"),
    )
    for alphabet, letters in ((_NUCLEIC, "ACGTUN"), (_PROTEIN, "ACDEFGHIKLMNPQRSTVWYX"))
}


def _longest_run(text: str, alphabet: frozenset[str]) -> str:
    """The longest run of the alphabet's letters that is a whole word (all upper or all
    lower case); groups of equal length (at least 3, the last may be shorter) joined by
    single spaces or hyphens (codons, FASTA blocks) count as one run."""
    best = ""
    for regex in _RUN_RES[alphabet]:
        for m in regex.finditer(text):
            groups = m.group().replace("-", " ").split(" ")
            a, b = m.span()
            first_glued = a > 0 and text[a - 1].isalpha()
            last_glued = b < len(text) and text[b].isalpha()
            size = len(groups[0])
            if not (first_glued or last_glued) and size >= 3 and len(groups[-1]) <= size:
                if all(len(g) == size for g in groups[:-1]):
                    joined = "".join(groups)
                    best = joined if len(joined) > len(best) else best
                    continue
            whole = groups[1 if first_glued else 0 : len(groups) - (1 if last_glued else 0)]
            longest = max(whole, key=len, default="")
            if len(longest) > len(best):
                best = longest
    return best


def _find_sequence(text: str, kind: str) -> tuple[str, str] | None:
    primed = _five_to_three(text)
    if primed:
        return primed[-1], "5'-3' notation"
    fasta = _fasta(text)
    if fasta:
        return max(fasta, key=len), "FASTA"
    lists = list(_LETTER_LIST_RE.finditer(text))
    if lists:
        letters = re.findall(r"[A-Za-z]", lists[-1].group())
        return "".join(letters), "list of one-letter codes"
    if kind != "nucleic":
        three = list(_THREE_RE.finditer(text))
        if three:
            codes = re.findall(r"[A-Za-z]{3}", three[-1].group())
            return "-".join(codes), "three-letter codes"
    alphabet = _NUCLEIC if kind in ("nucleic", "codon") else _PROTEIN
    run = _longest_run(text, alphabet)
    if len(run) >= 2:
        return run, "longest run of sequence letters"
    return None


# ------------------------------------------------------- longest / shortest ORF (orf.py)

_EXTREME_RE = re.compile(r"\b(longest|shortest)\b", re.I)
_ORF_RE = re.compile(
    r"\bORFs?\b|\bopen[ \t-]+reading[ \t-]+frames?\b|\breading[ \t]+frames?\b", re.I
)
_EXTREME_ORF_RE = re.compile(
    r"\b(longest|shortest)\b[^.?!\n]{0,60}?(?:\bORFs?\b|open[ \t-]+reading[ \t-]+frame)", re.I
)
_ONE_STRAND_RE = re.compile(
    r"\b(?:forward|given|sense|top|plus|coding|this|same)[ \t]+strand\b"
    r"|\b(?:only|just)[ \t]+(?:the[ \t]+)?(?:three[ \t]+)?(?:forward|given)[ \t]+"
    r"(?:reading[ \t]+)?frames\b"
    r"|\bwithout[ \t]+(?:the[ \t]+)?reverse[ \t]+complement",
    re.I,
)
_BOTH_STRANDS_RE = re.compile(
    r"\bboth[ \t]+strands\b|\breverse[ \t]+complement\b|\bsix[ \t]+(?:reading[ \t]+)?frames\b",
    re.I,
)
# The ORF lies in a primer the RESPONSE designs: a sentence about the ORF that names the
# forward / reverse primer ("the longest ORF in the forward primer", "for the forward
# primer you provide, identify ... its longest ORF").
_PRIMER_RE = re.compile(r"\b(forward|reverse)[ \t]+primer", re.I)
_DNA_RUN_RE = re.compile(r"(?<![A-Za-z])(?:[ACGTU]{15,}|[acgtu]{15,})(?![A-Za-z])")
MIN_QUESTION_SEQUENCE = 30  # nt; shorter runs of ACGT in a question are words, not templates
_LENGTH_CLAIM_RE = re.compile(
    r"(?<![\w.,])([0-9]{1,3}(?:,[0-9]{3})+|[0-9]{1,7})(?![\w.,]?[0-9])"  # 1,234 / 51, not 12.5
    r"(?:[ \t]*(?:-[ \t]*)?(nucleotides?|nts?|base[ \t-]?pairs?|bp|bases?|"
    r"codons?|amino[ \t-]acids?|aa|residues?)(?![A-Za-z]))?",
    re.I,
)
_NO_ORF_RE = re.compile(
    r"\b(?:no|zero|none|not[ \t]+any)\b[^.\n]{0,30}\b(?:ORFs?|open[ \t-]+reading)", re.I
)
_UNIT_KIND = (("nucleotide", "nt"), ("nt", "nt"), ("base", "nt"), ("bp", "nt"), ("codon", "codon"),
              ("amino", "aa"), ("aa", "aa"), ("residue", "aa"))  # fmt: skip


def _claim_unit(word: str) -> str:
    w = word.lower()
    return next((kind for prefix, kind in _UNIT_KIND if w.startswith(prefix)), "")


def _orf_mode(params: str, question: str) -> str:
    """ "longest" / "shortest" when the requirement is the extreme ORF, else ""."""
    if params:
        m = _EXTREME_RE.search(params)
        if m and (_ORF_RE.search(params) or _ORF_RE.search(question)):
            return m.group(1).lower()
        return ""
    m = _EXTREME_ORF_RE.search(question)
    return m.group(1).lower() if m else ""


def _orf_minimum(question: str) -> _LengthRule | None:
    """A lower bound the question puts on the ORFs ("greater than 39 amino acids")."""
    for sentence in sentences(question):
        if not (_ORF_RE.search(sentence) or re.search(r"\bprotein|encod", sentence, re.I)):
            continue
        for rule in _length_rules(sentence):
            if rule.low > 0 and rule.high is None:
                return rule
    return None


def _passes_minimum(orf: Orf, rule: _LengthRule | None) -> bool:
    if rule is None:
        return True
    n = {"protein": orf.amino_acids, "codon": orf.length // 3}.get(rule.kind, orf.length)
    return rule.ok(n)


def _orf_target(question: str, response: str) -> tuple[str, str] | None:
    """The sequence whose ORFs are asked about, and where it was found."""
    primer = next(
        (m for s in sentences(question) if _ORF_RE.search(s) for m in [_PRIMER_RE.search(s)] if m),
        None,
    )
    if primer:
        label = re.compile(rf"\b{primer.group(1)}[ \t]+primer", re.I)
        for m in label.finditer(response):
            run = _DNA_RUN_RE.search(response, m.end(), m.end() + 200)
            if run:
                return run.group(), f"the {primer.group(1).lower()} primer of the response"
        return None
    runs = [m.group() for m in _DNA_RUN_RE.finditer(question)]
    runs = [r for r in runs if len(r) >= MIN_QUESTION_SEQUENCE]
    if not runs:
        return None
    return max(runs, key=len), "the question"


def _orf_claims(response: str) -> tuple[list[tuple[int, str]], str]:
    """The ORF lengths the response states: (number, unit or ""), and where."""
    span = final_answer(response)
    regions: list[tuple[str, str]] = []
    if span is not None and re.search(r"[0-9]", span.text):
        regions.append((span.text, f"the final answer ({span.source})"))
    said = [s for s in sentences(response) if (_ORF_RE.search(s) or _EXTREME_RE.search(s))]
    with_unit = [s for s in said if any(u for _, u in _claims_in(s))]
    if with_unit:
        regions.append((with_unit[-1], "the last sentence stating an ORF length"))
    lines = [ln for ln in non_empty_lines(response) if re.search(r"[0-9]", ln.text)]
    if lines:
        regions.append((lines[-1].text, "the last line with a number"))
    for text, where in regions:
        claims = _claims_in(text)
        if claims:
            return claims, where
    return [], "the response"


def _claims_in(text: str) -> list[tuple[int, str]]:
    found = [
        (int(m.group(1).replace(",", "")), _claim_unit(m.group(2) or ""))
        for m in _LENGTH_CLAIM_RE.finditer(text)
    ]
    with_unit = [c for c in found if c[1]]
    return with_unit or found


def _question_units(question: str) -> set[str]:
    units = {_claim_unit(m.group(2)) for m in _LENGTH_CLAIM_RE.finditer(question) if m.group(2)}
    for word in re.findall(
        r"\b(?:nucleotides?|nt|base[ \t-]?pairs?|bp|codons?|amino[ \t-]acids?|aa)\b", question, re.I
    ):
        units.add(_claim_unit(word))
    return units - {""} or {"nt", "codon", "aa"}


def _is_orf_text(run: str) -> bool:
    seq = dna(run)
    return len(seq) % 3 == 0 and seq.startswith("ATG") and seq[-3:] in STOPS


def _orf_verdict(inp: CheckInput, which: str, params: str) -> Verdict:
    question = inp.question or ""
    response = inp.response
    claims, where = _orf_claims(response)
    target = _orf_target(question, response)
    if target is None:
        # Nothing to compute the ORFs of: only whether a length is reported can be judged;
        # a bare number counts only as the final answer.
        if not where.startswith("the final answer"):
            claims = [c for c in claims if c[1]]
        if claims or _NO_ORF_RE.search(response):
            shown = ", ".join(f"{n} {u}".strip() for n, u in claims[:3]) or "no ORF"
            return Verdict.passed(
                f"the {which} ORF length is reported in {where} ({shown}); its value is not "
                f"verified (the sequence is not in the question)"
            )
        return Verdict.failed(f"no length of the {which} ORF stated in the response")
    sequence, found_in = target
    minimum = _orf_minimum(question)
    if _ONE_STRAND_RE.search(question) and not _BOTH_STRANDS_RE.search(question):
        strand_sets = [("the given strand", False)]
    elif _BOTH_STRANDS_RE.search(question):
        strand_sets = [("both strands", True)]
    else:  # not stated: either reading is accepted
        strand_sets = [("both strands", True), ("the given strand", False)]
    picks: list[tuple[str, Orf]] = []
    for words, both in strand_sets:
        pick = extreme(orfs(sequence, both), which, lambda o: _passes_minimum(o, minimum))
        if pick is not None:
            picks.append((words, pick))
    unit_name = {"protein": "aa", "codon": "codons"}.get(minimum.kind, "nt") if minimum else ""
    bound = f" of {minimum.words} {unit_name}" if minimum else ""
    about = f"{len(dna(sequence))}-nt sequence in {found_in}"
    if not picks:
        ok = _NO_ORF_RE.search(response) is not None or any(n == 0 for n, _ in claims)
        return Verdict.of(
            ok,
            f"the {about} has no ORF{bound}; the response "
            + ("says so" if ok else "does not say so"),
        )
    if not claims:  # the ORF written out instead of its length: its length is the claim
        written = [m.group() for m in _DNA_RUN_RE.finditer(response) if _is_orf_text(m.group())]
        if written:
            claims, where = [(len(written[-1]), "nt")], "the ORF sequence in the response"
    if not claims:
        return Verdict.failed(f"no ORF length stated in the response ({about})")
    units = _question_units(question)
    expected = {
        unit: set().union(*(lengths_in(orf, unit) for _, orf in picks))
        for unit in ("nt", "codon", "aa")
    }
    ok = all(any(n in expected[u] for u in ([unit] if unit else units)) for n, unit in claims)
    best = picks[0][1]
    truth = (
        f"the {which} ORF{bound} on {picks[0][0]} of the {about} is {best.length} nt "
        f"({best.amino_acids} aa)"
    )
    if len(picks) > 1 and picks[1][1].length != best.length:
        truth += f"; on {picks[1][0]} {picks[1][1].length} nt"
    shown = ", ".join(f"{n} {u}".strip() for n, u in claims[:3])
    return Verdict.of(ok, f"{where} states {shown}; {truth}")


@register("biology_sequence_length_constraint")
def sequence_length_constraint(inp: CheckInput) -> Verdict:
    params = clean_parameters(inp.parameters)
    question = inp.question or ""
    which = _orf_mode(params, question)
    if which:
        return _orf_verdict(inp, which, params)
    rule, source = _length_requirement(params, question)
    if rule is None:
        return Verdict.unscored(source)
    kind = _sequence_kind(rule, question)
    text, where = _holder(inp.response)
    found = _find_sequence(text, kind)
    if found is None:
        return Verdict.failed(f"no sequence found in {where} ({rule.words} required)")
    seq, how = found
    if how == "three-letter codes":
        length, unit = seq.count("-") + 1, "residues"
    elif rule.kind == "codon":
        length, unit = len(seq) // 3, "codons"
    else:
        length = len(seq)
        unit = "residues" if kind == "protein" else ("nucleotides" if kind else "letters")
    shown = clip(seq, 30)
    msg = f"sequence {shown!r} ({how}, {where}) has {length} {unit}; {rule.words} required"
    return Verdict.of(rule.ok(length), msg + f" (from the {source})")


# =========================================================================== techniques


@dataclass(frozen=True)
class Technique:
    name: str
    abbreviations: tuple[str, ...]
    full: str  # full names: lower-case phrases (hyphens as spaces) separated by "|"


# fmt: off
TECHNIQUES: tuple[Technique, ...] = (
    Technique("X-ray diffraction", ("XRD", "PXRD", "GIXRD", "HRXRD"),
              "x ray diffraction|powder x ray diffraction|x ray powder diffraction|"
              "grazing incidence x ray diffraction|high resolution x ray diffraction"),
    Technique("scanning electron microscopy", ("SEM", "FESEM", "FE-SEM"),
              "scanning electron microscopy|field emission scanning electron microscopy"),
    Technique("transmission electron microscopy", ("TEM", "HRTEM", "HR-TEM"),
              "transmission electron microscopy|high resolution transmission electron microscopy"),
    Technique("scanning transmission electron microscopy", ("STEM", "HAADF-STEM"),
              "scanning transmission electron microscopy"),
    Technique("X-ray photoelectron spectroscopy", ("XPS", "ESCA"),
              "x ray photoelectron spectroscopy|electron spectroscopy for chemical analysis"),
    Technique("Fourier-transform infrared spectroscopy", ("FTIR", "FT-IR"),
              "fourier transform infrared spectroscopy|fourier transform infrared|"
              "fourier transformed infrared spectroscopy|fourier transform infrared ftir spectroscopy|"  # noqa: E501
              "fourier transform infrared spectrometry"),
    Technique("infrared spectroscopy", ("IR",),
              "infrared spectroscopy|ir spectroscopy|infrared absorption spectroscopy"),
    Technique("Raman spectroscopy", (),
              "raman spectroscopy|raman scattering|raman microscopy|raman spectrometry|raman"),
    Technique("atomic force microscopy", ("AFM",), "atomic force microscopy"),
    Technique("scanning tunneling microscopy", ("STM",), "scanning tunneling microscopy"),
    Technique("differential scanning calorimetry", ("DSC",), "differential scanning calorimetry"),
    Technique("thermogravimetric analysis", ("TGA", "TG"),
              "thermogravimetric analysis|thermo gravimetric analysis|thermogravimetry"),
    Technique("differential thermal analysis", ("DTA",), "differential thermal analysis"),
    Technique("dynamic mechanical analysis", ("DMA", "DMTA"),
              "dynamic mechanical analysis|dynamic mechanical thermal analysis"),
    Technique("UV-Vis spectroscopy", ("UV-Vis", "UV/Vis", "UV-Vis-NIR", "UV-Vis-DRS"),
              "ultraviolet visible spectroscopy|ultraviolet visible absorption spectroscopy|"
              "uv vis spectroscopy|uv visible spectroscopy|uv vis absorption spectroscopy|"
              "uv vis diffuse reflectance spectroscopy|ultraviolet visible spectrophotometry|"
              "uv vis spectrophotometry|ultraviolet visible near infrared spectroscopy|"
              "uv vis nir spectroscopy"),
    Technique("nuclear magnetic resonance spectroscopy", ("NMR", "ssNMR"),
              "nuclear magnetic resonance|nuclear magnetic resonance spectroscopy|"
              "solid state nuclear magnetic resonance"),
    Technique("energy-dispersive X-ray spectroscopy", ("EDS", "EDX", "EDXS", "EDXA"),
              "energy dispersive x ray spectroscopy|energy dispersive spectroscopy|"
              "energy dispersive x ray spectrometry|energy dispersive x ray analysis|"
              "energy dispersive analysis"),
    Technique("wavelength-dispersive X-ray spectroscopy", ("WDS", "WDX"),
              "wavelength dispersive x ray spectroscopy|wavelength dispersive spectroscopy|"
              "wavelength dispersive x ray spectrometry"),
    Technique("BET surface area analysis", ("BET",),
              "brunauer emmett teller|brunauer emmett teller analysis|brunauer emmett teller method|"  # noqa: E501
              "nitrogen adsorption|nitrogen adsorption desorption|nitrogen physisorption|"
              "n2 adsorption|n2 physisorption|gas adsorption"),
    Technique("electron backscatter diffraction", ("EBSD",),
              "electron backscatter diffraction|electron backscattered diffraction|"
              "electron back scatter diffraction"),
    Technique("X-ray fluorescence", ("XRF",),
              "x ray fluorescence|x ray fluorescence spectroscopy|x ray fluorescence spectrometry"),
    Technique("small-angle X-ray scattering", ("SAXS",), "small angle x ray scattering"),
    Technique("wide-angle X-ray scattering", ("WAXS",), "wide angle x ray scattering"),
    Technique("small-angle neutron scattering", ("SANS",), "small angle neutron scattering"),
    Technique("neutron diffraction", ("ND",), "neutron diffraction|neutron powder diffraction"),
    Technique("electron energy loss spectroscopy", ("EELS",), "electron energy loss spectroscopy"),
    Technique("Auger electron spectroscopy", ("AES",), "auger electron spectroscopy"),
    Technique("secondary ion mass spectrometry", ("SIMS", "ToF-SIMS", "TOF-SIMS"),
              "secondary ion mass spectrometry|time of flight secondary ion mass spectrometry"),
    Technique("inductively coupled plasma mass spectrometry", ("ICP-MS",),
              "inductively coupled plasma mass spectrometry"),
    Technique("inductively coupled plasma optical emission spectroscopy", ("ICP-OES", "ICP-AES"),
              "inductively coupled plasma optical emission spectroscopy|"
              "inductively coupled plasma optical emission spectrometry|"
              "inductively coupled plasma atomic emission spectroscopy|"
              "inductively coupled plasma atomic emission spectrometry"),
    Technique("photoluminescence spectroscopy", ("PL",), "photoluminescence|photoluminescence spectroscopy"),  # noqa: E501
    Technique("electron paramagnetic resonance", ("EPR", "ESR"),
              "electron paramagnetic resonance|electron spin resonance"),
    Technique("Mössbauer spectroscopy", (),
              "mössbauer spectroscopy|mossbauer spectroscopy|moessbauer spectroscopy"),
    Technique("X-ray absorption spectroscopy", ("XAS", "XANES", "EXAFS", "NEXAFS"),
              "x ray absorption spectroscopy|x ray absorption near edge structure|"
              "x ray absorption fine structure|extended x ray absorption fine structure"),
    Technique("ellipsometry", (), "ellipsometry|spectroscopic ellipsometry"),
    Technique("dynamic light scattering", ("DLS",), "dynamic light scattering"),
    Technique("gel permeation chromatography", ("GPC", "SEC"),
              "gel permeation chromatography|size exclusion chromatography"),
    Technique("gas chromatography-mass spectrometry", ("GC-MS",), "gas chromatography mass spectrometry"),  # noqa: E501
    Technique("mass spectrometry", ("MS",), "mass spectrometry"),
    Technique("electrochemical impedance spectroscopy", ("EIS",), "electrochemical impedance spectroscopy"),  # noqa: E501
    Technique("cyclic voltammetry", ("CV",), "cyclic voltammetry"),
    Technique("vibrating sample magnetometry", ("VSM",), "vibrating sample magnetometry"),
    Technique("SQUID magnetometry", ("SQUID",),
              "superconducting quantum interference device|squid magnetometry|"
              "superconducting quantum interference device magnetometry"),
    Technique("low-energy electron diffraction", ("LEED",), "low energy electron diffraction"),
    Technique("reflection high-energy electron diffraction", ("RHEED",),
              "reflection high energy electron diffraction"),
    Technique("atom probe tomography", ("APT",), "atom probe tomography"),
    Technique("selected area electron diffraction", ("SAED",),
              "selected area electron diffraction|selected area diffraction"),
    Technique("X-ray reflectivity", ("XRR",), "x ray reflectivity|x ray reflectometry"),
    Technique("ultraviolet photoelectron spectroscopy", ("UPS",), "ultraviolet photoelectron spectroscopy"),  # noqa: E501
    Technique("angle-resolved photoemission spectroscopy", ("ARPES",),
              "angle resolved photoemission spectroscopy"),
    Technique("cathodoluminescence", ("CL",), "cathodoluminescence"),
    Technique("optical microscopy", ("OM", "LOM"),
              "optical microscopy|light microscopy|polarized light microscopy|polarised light microscopy"),  # noqa: E501
    Technique("X-ray computed tomography", ("CT", "XCT", "micro-CT"),
              "computed tomography|x ray computed tomography|micro computed tomography|"
              "x ray micro computed tomography"),
    Technique("nanoindentation", (), "nanoindentation|nano indentation"),
    Technique("hardness testing", (),
              "vickers hardness|vickers hardness test|vickers hardness testing|rockwell hardness|"
              "rockwell hardness test|brinell hardness|brinell hardness test|knoop hardness|"
              "microhardness testing|micro hardness testing|hardness testing"),
    Technique("tensile testing", (), "tensile testing|tensile test|universal testing machine"),
    Technique("four-point probe", (), "four point probe|4 point probe"),
    Technique("Hall effect measurement", (), "hall effect measurement|hall effect"),
    Technique("temperature-programmed desorption", ("TPD",), "temperature programmed desorption"),
    Technique("temperature-programmed reduction", ("TPR", "H2-TPR"), "temperature programmed reduction"),  # noqa: E501
    Technique("dilatometry", (), "dilatometry"),
    Technique("contact angle measurement", (), "contact angle measurement|contact angle goniometry"),  # noqa: E501
    Technique("zeta potential analysis", (),
              "zeta potential|zeta potential measurement|zeta potential analysis"),
    Technique("mercury intrusion porosimetry", ("MIP",), "mercury intrusion porosimetry|mercury porosimetry"),  # noqa: E501
    Technique("focused ion beam", ("FIB", "FIB-SEM"), "focused ion beam"),
)
# fmt: on
# Abbreviations that are English words or short: matched with their exact case.
_EXACT_CASE = frozenset(
    "BET APT SEC CT MS CV TG CL PL ND OM IR MIP UPS AES SEM TEM STEM ESCA DSC GPC LEED".split()
)
# Word forms in a response that name the same thing as the table's words.
_WORD_FORMS = {
    "microscope": "microscopy", "spectroscope": "spectroscopy", "spectrometer": "spectrometry",
    "diffractometry": "diffraction", "diffractometer": "diffraction", "calorimeter": "calorimetry",
    "magnetometer": "magnetometry", "tunnelling": "tunneling", "programed": "programmed",
    "analyses": "analysis", "measurements": "measurement", "tests": "test",
}  # fmt: skip


def _abbr_key(abbr: str) -> str:
    return re.sub(r"[-–/ ]", "", abbr).upper()


_ABBR_TECH: dict[str, tuple[Technique, str | None]] = {
    _abbr_key(a): (t, a if (a in _EXACT_CASE or len(a) <= 2) else None)
    for t in TECHNIQUES
    for a in t.abbreviations
}
# All abbreviations, upper case, separators optional: searched in the upper-cased text.
_ABBR_RE = re.compile(
    "|".join(
        "[-–/ ]?".join(re.escape(part) for part in re.split(r"[-–/ ]", a.upper()))
        for a in sorted({a for t in TECHNIQUES for a in t.abbreviations}, key=len, reverse=True)
    )
)
_FORM_VARIANTS: dict[str, list[str]] = {}
for _form, _word in _WORD_FORMS.items():
    _FORM_VARIANTS.setdefault(_word, [_word]).append(_form)
_PHRASE_TECH: dict[str, Technique] = {}
for _t in TECHNIQUES:
    for _phrase in _t.full.split("|"):
        _PHRASE_TECH[" ".join(_WORD_FORMS.get(w, w) for w in _phrase.split())] = _t


def _phrase_regex(phrase: str) -> str:
    words = []
    for w in phrase.split():
        forms = _FORM_VARIANTS.get(w, [w])
        words.append(
            "(?:" + "|".join(map(re.escape, forms)) + ")" if len(forms) > 1 else re.escape(w)
        )
    return r"[\W_]+".join(words)


# All full names, longest first, words separated by any non-word characters; searched in
# the lower-cased text (starts with literals: fast scanning; boundaries checked after).
_PHRASE_RE = re.compile(
    "|".join(_phrase_regex(p) for p in sorted(_PHRASE_TECH, key=len, reverse=True))
)
_SEPARATORS_RE = re.compile(r"[\W_]+")


@dataclass
class _TechHit:
    technique: Technique
    abbr_at: int = -1  # position of the first abbreviation, -1 when absent
    full_at: int = -1  # position of the first full name, -1 when absent
    abbr_bracketed: bool = False


def _whole_word(text: str, a: int, b: int, joiners: str = "") -> bool:
    before = text[a - 1] if a else " "
    after = text[b] if b < len(text) else " "
    return not (before.isalnum() or before in joiners) and not (after.isalnum() or after in joiners)


def _same_length(text: str, case: Callable[[str], str]) -> str:
    out = case(text)
    if len(out) != len(text):  # a few characters change length with case; keep positions
        out = "".join(c if len(case(c)) != 1 else case(c) for c in text)
    return out


def _tech_hits(text: str) -> list[_TechHit]:
    """Techniques named in ``text``, in order of first mention. Abbreviations are whole
    tokens (or hyphen-parts: "SEM-EDS"), case-insensitive except the short / English-word
    ones (``_EXACT_CASE``); full names are the table's phrases with any separators between
    their words, longest first and without overlap (so "infrared spectroscopy" inside
    "Fourier-transform infrared spectroscopy" is not counted)."""
    hits: dict[str, _TechHit] = {}
    upper = _same_length(text, str.upper)
    for k, m in enumerate(_ABBR_RE.finditer(upper)):
        if k >= 20_000:
            break
        a, b = m.span()
        if not _whole_word(upper, a, b):
            continue
        key = _abbr_key(m.group())
        found = _ABBR_TECH.get(key)
        if found is None:
            continue
        tech, exact = found
        if exact is not None and re.sub(r"[-–/ ]", "", text[a:b]) != re.sub(r"[-–/ ]", "", exact):
            continue
        h = hits.setdefault(tech.name, _TechHit(tech))
        if h.abbr_at < 0:
            h.abbr_at = j = a
            while j > 0 and a - j < 4 and text[j - 1] in " \t":
                j -= 1
            h.abbr_bracketed = j > 0 and text[j - 1] in "(["
    lower = _same_length(text, str.lower)
    for k, m in enumerate(_PHRASE_RE.finditer(lower)):
        if k >= 20_000:
            break
        if not _whole_word(lower, *m.span()):
            continue
        phrase = " ".join(_WORD_FORMS.get(w, w) for w in _SEPARATORS_RE.split(m.group()))
        named = _PHRASE_TECH.get(phrase)
        if named is None:
            continue
        h = hits.setdefault(named.name, _TechHit(named))
        if h.full_at < 0:
            h.full_at = m.start()
    return sorted(hits.values(), key=lambda h: min(p for p in (h.abbr_at, h.full_at) if p >= 0))


_ABBR_KEY = r"(?:abbreviation|abbreviated|acronym|abbr\.?|short[ \t]+form|initialism)s?"
_FULL_KEY = (
    r"(?:full[ \t]+(?:name|form|term)|complete[ \t]+name|spelled[ \t]+out|unabbreviated|"
    r"written[ \t]+out)"
)


def _technique_format(text: str) -> str:
    """any / abbr / abbr_only / full / full_only / full_then_abbr / abbr_then_full /
    full(abbr) / abbr(full)."""
    t = text.lower()
    abbr = re.search(_ABBR_KEY, t)
    full = re.search(_FULL_KEY, t)
    no_abbr = re.search(
        r"(?:do[ \t]+not|don't|never|without|no)[ \t]+(?:use[ \t]+(?:an?[ \t]+)?|an?[ \t]+)?"
        r"(?:abbreviat\w*|acronyms?)",
        t,
    )
    if full and no_abbr:
        return "full_only"
    if abbr and full:
        if re.search(_FULL_KEY + r"[ \t]*\([ \t]*" + _ABBR_KEY, t) or re.search(
            _ABBR_KEY + r"[ \t]+in[ \t]+(?:parenthes[ie]s|brackets)", t
        ):
            return "full(abbr)"
        if re.search(_ABBR_KEY + r"[ \t]*\([ \t]*" + _FULL_KEY, t) or re.search(
            _FULL_KEY + r"[ \t]+in[ \t]+(?:parenthes[ie]s|brackets)", t
        ):
            return "abbr(full)"
        return "full_then_abbr" if full.start() < abbr.start() else "abbr_then_full"
    only = r"(?:only|just|solely|alone)"
    if abbr:
        if re.search(
            only + r"[ \t]+(?:the[ \t]+|its[ \t]+|an?[ \t]+)?" + _ABBR_KEY, t
        ) or re.search(_ABBR_KEY + r"[ \t]+" + only, t):
            return "abbr_only"
        return "abbr"
    if full:
        if re.search(only, t):
            return "full_only"
        return "full"
    if no_abbr:
        return "full_only"
    return "any"


@register("material_characterization_technique_format_constraint")
def characterization_technique_format(inp: CheckInput) -> Verdict:
    params = clean_parameters(inp.parameters)
    fmt = _technique_format(params)
    source = "parameters"
    if fmt == "any":
        fmt, source = _technique_format(inp.question or ""), "question"
    span = final_answer(inp.response)
    if span is not None and span.text.strip():
        text, where = span.text, f"the final answer ({span.source})"
    else:
        text, where = inp.response, "the response"
        for line in non_empty_lines(inp.response):
            if _tech_hits(line.text):
                text, where = line.text, "the first line naming a technique"
                break
        else:  # no line names one; a name broken over two lines is still found
            text = " ".join(inp.response.split()) if len(inp.response) < 100_000 else ""
    hits = _tech_hits(text)
    if not hits:
        return Verdict.failed(f"no known characterization technique in {where}: {clip(text)!r}")
    names = ", ".join(h.technique.name for h in hits[:3])
    fmt_words = {
        "any": "no format stated",
        "abbr": "abbreviation",
        "abbr_only": "abbreviation only",
        "full": "full name",
        "full_only": "full name only",
        "full_then_abbr": "full name then abbreviation",
        "abbr_then_full": "abbreviation then full name",
        "full(abbr)": "full name (abbreviation)",
        "abbr(full)": "abbreviation (full name)",
    }[fmt]
    if fmt != "any":
        ok = [h for h in hits if _format_ok(h, fmt)]
        if not ok:
            h = hits[0]
            has = ("abbreviation" if h.abbr_at >= 0 else "") + (
                " and full name"
                if h.abbr_at >= 0 and h.full_at >= 0
                else ("full name" if h.full_at >= 0 else "")
            )
            return Verdict.failed(
                f"{h.technique.name} in {where} written with {has.strip()}, "
                f"format required (from the {source}): {fmt_words}"
            )
        names = ", ".join(h.technique.name for h in ok[:3])
    return Verdict.passed(f"technique in {where}: {names} ({fmt_words})")


def _format_ok(hit: _TechHit, fmt: str) -> bool:
    a, f = hit.abbr_at, hit.full_at
    if fmt == "abbr":
        return a >= 0
    if fmt == "abbr_only":
        return a >= 0 and f < 0
    if fmt == "full":
        return f >= 0
    if fmt == "full_only":
        return f >= 0 and a < 0
    if fmt == "full_then_abbr":
        return a >= 0 and f >= 0 and f <= a
    if fmt == "abbr_then_full":
        return a >= 0 and f >= 0 and a <= f
    if fmt == "full(abbr)":
        return a >= 0 and f >= 0 and f <= a and hit.abbr_bracketed
    if fmt == "abbr(full)":
        return a >= 0 and f >= 0 and a <= f
    return True


# =========================================================================== property

_DISCRETE_RE = re.compile(
    r"\b(?:discrete|labels?|categor(?:y|ies|ical)|classif(?:y|ication|ied)|class(?:es)?|"
    r"qualitative|which[ \t]+type)\b",
    re.I,
)
_CONTINUOUS_RE = re.compile(
    r"\b(?:continuous|numerical|numeric|quantitative|real[ \t-]valued|(?:a|one|single)[ \t]+"
    r"(?:numerical[ \t]+|continuous[ \t]+)?value)\b",
    re.I,
)
_LABEL_LEAD_RE = re.compile(
    r"\b(?:whether|as|into|is|be)[ \t]+(?:an?[ \t]+|the[ \t]+)?(?:(?:discrete[ \t]+)?label[ \t]+)?",
    re.I,
)
_ARTICLE_RE = re.compile(r"^(?:an?|the)[ \t]+", re.I)
_LABEL_END = r"[.;:!?]|,[ \t]+(?:and|then)[ \t]|[ \t]and[ \t]+(?:wrap|give|put|state|write)"


# "Direct_or_indirect is a discrete property.": the property's name lists its labels.
_NAMED_PROPERTY_RE = re.compile(
    r"^[ \t]*(?:the[ \t]+)?[\"'`]?([A-Za-z][\w-]{0,60})[\"'`]?[ \t]+is[ \t]+an?[ \t]+"
    r"(?:discrete|categorical|continuous|numerical)\b",
    re.I,
)
_OR_NAME_RE = re.compile(r"[_ -]or[_ -]", re.I)


def _label_set(params: str, question: str) -> tuple[list[_Option], str]:
    options, _ = _options(params, "")
    if len(options) >= 2:
        return options, "parameters"
    for sentence in sentences(question):
        either = _EITHER_RE.match(sentence[:500])
        if either:
            return [_Option("", either.group(1)), _Option("", either.group(2))], "question"
    named = _NAMED_PROPERTY_RE.match(params)
    if named and _OR_NAME_RE.search(named.group(1)):
        labels = [w.replace("_", " ").strip() for w in _OR_NAME_RE.split(named.group(1))]
        if len(labels) >= 2 and all(labels):
            return [_Option("", w) for w in labels], "property name in the parameters"
    found: list[list[str]] = []
    for sentence in sentences(question):
        if not (_DISCRETE_RE.search(sentence) or re.search(r"\bwhether\b", sentence, re.I)):
            continue
        options, _ = _options("", sentence)
        if len(options) >= 2:
            found.append([str(o) for o in options])
            continue
        groups = [m.group(1) for m in re.finditer(r"\(([^()]{3,120})\)", sentence)]
        groups += [sentence[m.end() :] for m in _LABEL_LEAD_RE.finditer(sentence)]
        for group in groups:
            group = re.split(_LABEL_END, group)[0]
            items = [
                _ARTICLE_RE.sub("", part).strip(" \t.,\"'")
                for it in _split_items(group)
                for part in re.split(r"[ \t]+(?:or|and)[ \t]+", it)
            ]
            items = [it for it in items if it]
            if 2 <= len(items) <= 12 and all(0 < len(it.split()) <= 4 for it in items):
                found.append(items)
    if not found:
        return [], ""
    best = min(found, key=lambda items: max(len(it.split()) for it in items))
    return [_Option("", it) for it in best], "question"
    return [], ""


def _property_kind(params: str, question: str) -> tuple[str, str]:
    for text, source in ((params, "parameters"), (question, "question")):
        if not text:
            continue
        discrete = bool(_DISCRETE_RE.search(text))
        continuous = bool(_CONTINUOUS_RE.search(text))
        if discrete != continuous:
            return ("discrete" if discrete else "continuous"), source
        if source == "parameters" and not (discrete or continuous):
            options, _ = _options(params, "")
            if len(options) >= 2:
                return "discrete", source
    # Nothing stated: a yes/no question between two labels ("Is the gap direct or
    # indirect?") asks for a label; a value asked for in a unit ("in eV") is continuous.
    if any(_EITHER_RE.match(s[:500]) or _WHETHER_RE.search(s[:500]) for s in sentences(question)):
        return "discrete", "question"
    req = required_units("", question)
    if req is not None and req.units:
        return "continuous", "question"
    return "", ""


_WHETHER_RE = re.compile(r"\bwhether\b[^.?!\n]{0,80}[ \t]or[ \t]", re.I)
_EITHER_RE = re.compile(
    r"(?:is|are|does|do|will|would|can|should|was|were)\b[^?\n]*?[ \t]"
    r"([A-Za-z][\w-]*)[ \t]+or[ \t]+([A-Za-z][\w-]*)[ \t]*\?",
    re.I,
)


@register("material_property_prediction_constraint")
def property_prediction_constraint(inp: CheckInput) -> Verdict:
    params = clean_parameters(inp.parameters)
    question = inp.question or ""
    kind, source = _property_kind(params, question)
    if not kind:
        return Verdict.unscored(
            "whether a discrete label or a continuous value is required is not stated"
        )
    if kind == "discrete":
        return _discrete_prediction(inp, params, question, source)
    return _continuous_prediction(inp, params, question, source)


def _discrete_prediction(inp: CheckInput, params: str, question: str, source: str) -> Verdict:
    span = _final_or(inp.response, _last_content_line)
    if span is None:
        return Verdict.failed("empty response (a discrete label required)")
    where = f"the final answer ({span.source})"
    labels, label_source = _label_set(params, question)
    if not labels:
        body = _strip_decoration(span.text)
        words = body.split()
        if NUMBER_RE.search(body):
            return Verdict.failed(
                f"a number in {where} where a discrete label is required: {clip(body)!r}"
            )
        if not 1 <= len(words) <= 6:
            return Verdict.failed(
                f"{where} is not a short label ({len(words)} words): {clip(body)!r}"
            )
        return Verdict.passed(f"discrete label (from the {source}) in {where}: {clip(body)!r}")
    named = _named_options(labels, span.text)
    shown = ", ".join(str(o) for o in labels[:5])
    if len(named) == 1:
        return Verdict.passed(
            f"one discrete label of {shown} (from the {label_source}) in {where}: {named[0]}"
        )
    if not named:
        return Verdict.failed(f"none of the labels ({shown}) in {where}: {clip(span.text)!r}")
    return Verdict.failed(f"{len(named)} labels in {where}: {', '.join(str(o) for o in named)}")


def _continuous_prediction(inp: CheckInput, params: str, question: str, source: str) -> Verdict:
    span = final_answer(inp.response)
    if span is not None and span.text.strip():
        text, where = span.text, f"the final answer ({span.source})"
    else:
        blocks = [b for b in code_blocks(inp.response) if b.body.strip()]
        paras = paragraphs(inp.response)
        if blocks:
            text, where = blocks[-1].body, "the last code block"
        elif paras:
            text, where = paras[-1].text, "the last paragraph"
        else:
            return Verdict.failed("empty response (a continuous value required)")
    cleaned = clean_unit_text(text)
    try:
        found = quantities(cleaned)
    except TooManyNumbers as exc:
        return Verdict.unscored(f"{exc} in {where}: not checked")
    if not found:
        return Verdict.failed(f"no numerical value in {where}: {clip(text)!r}")
    req = required_units(params, question)
    if req is None or req.si or not req.units:
        return Verdict.passed(f"numerical value in {where}: {found[-1].number} (from the {source})")
    with_unit = [q for q in found if any(u in req.units for u in q.units)]
    if with_unit:
        q = with_unit[-1]
        return Verdict.passed(
            f"numerical value in {where}: {q.number} {q.unit_text} (from the {source})"
        )
    for shown, units in labelled_units(cleaned) + _tagged_units(cleaned):
        if any(u in req.units for u in units):
            return Verdict.passed(
                f"numerical value {found[-1].number} with unit {shown!r} in {where}"
            )
    return Verdict.failed(
        f"value {found[-1].number} in {where} lacks the unit {req.show()} (from the {req.source})"
    )


_TAGGED_RE = re.compile(r"[>\"'`]([^<>\"'`\n]{1,20})[<\"'`]")


def _tagged_units(text: str) -> list[tuple[str, list]]:
    out = []
    for m in _TAGGED_RE.finditer(text):
        units = parse_unit(m.group(1))
        if units:
            out.append((m.group(1), units))
    return out
