"""Options a question offers and the options a text names: shared by ``general_choose_from``
(``general.py``, whose docstring states the rule: where options are read from, and when an
option counts as named), the scene options (``geography.py``) and the property labels
(``material.py``). Options given as SMILES name the same molecule however they are written
(``same_molecule``)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from rdkit import Chem

from sci_tasks.metrics.constraints.notation import SPACE_RE, parse_smiles, smiles_shaped
from sci_tasks.metrics.constraints.text import show_items, without_rejected

_ITEM_STRIP = " \t\r\n\"'`“”‘’*.,;:"
_LEADING_JOINER_RE = re.compile(r"^(?:and|or|either)[ \t]+", re.I)


def split_items(text: str) -> list[str]:
    """``"a, b, or c"`` / ``"a or b"`` / ``"a/b/c"`` / ``"a and b"`` -> items, cleaned."""
    t = text.strip().strip("[]{}").strip()
    if re.search(r"[,;|]", t):
        parts = re.split(r"[,;|]", t)
    elif re.search(r"[ \t]or[ \t]", t, re.I):
        parts = re.split(r"[ \t]+or[ \t]+", t, flags=re.I)
    elif "/" in t:
        parts = t.split("/")
    else:
        parts = re.split(r"[ \t]+and[ \t]+", t, flags=re.I)
    items = []
    for part in parts:
        item = _LEADING_JOINER_RE.sub("", part.strip(_ITEM_STRIP)).strip(_ITEM_STRIP)
        if item.startswith("(") and item.endswith(")"):
            item = item[1:-1].strip()
        if item:
            items.append(item)
    return items


@dataclass(frozen=True)
class Option:
    label: str  # "A", "b", "1", or "" for an unlabelled option
    text: str  # the option's text, or "" for a bare label

    def __str__(self) -> str:
        if self.label and self.text:
            return f"({self.label}) {self.text}"
        return self.label or self.text


_OPTION_LABEL_RE = re.compile(
    r"(?:^|(?<=[\s:;,]))(?:\(([A-Za-z]|[1-9])\)|([A-Za-z]|[1-9])[.):])(?=[ \t])", re.M
)
# How a question introduces its options: "choose / select / pick ... from (the following)
# (options)", "options:" / "choices are:", "one of (the following) (options):".
_CHOICE_INTROS = (
    r"\b(?:choose|select|pick)\b[^.\n:]{0,80}?\b(?:from|of|among|between|either)\b"
    r"(?:[ \t]+the[ \t]+following)?"
    r"(?:[ \t]+(?:options|choices|labels|categories|terms|list|set|values))?[ \t]*[:：]?",
    r"\b(?:options|choices|candidates|labels|categories)[ \t]*(?:(?:are|include)[ \t]*)?[:：]",
    r"\bone[ \t]+of(?:[ \t]+the[ \t]+following)?"
    r"(?:[ \t]+(?:options|choices|labels|categories|terms))?[ \t]*[:：]",
)
_CHOICE_INTRO_RE = re.compile("|".join(_CHOICE_INTROS), re.I)
_PARAM_NAME_RE = re.compile(r"^[A-Za-z_ ]{1,40}[:=][ \t]*")
_SENTENCE_END_RE = re.compile(r"\n|[.?!](?=\s|$)")
_BULLET_RE = re.compile(r"^[ \t]*[-*•][ \t]+(\S[^\n]*)$", re.M)
CHOICE_KEY = re.compile(r"\b(?:choose|select|pick|options?|choices?|one[ \t]+of)\b", re.I)
_OPTION_TAIL = " \t,;"


def _labelled_options(text: str) -> list[Option]:
    """The longest run of consecutive labels (a, b, c... / A, B... / 1, 2...) in ``text``."""
    marks = [
        (m.start(), m.end(), m.group(1) or m.group(2)) for m in _OPTION_LABEL_RE.finditer(text)
    ]
    best: list[tuple[int, int, str]] = []
    for i, first in enumerate(marks):
        if first[2] not in ("a", "A", "1"):
            continue
        run = [first]
        for mark in marks[i + 1 :]:
            if ord(mark[2]) == ord(run[-1][2]) + 1:
                run.append(mark)
        if len(run) >= 2 and len(run) > len(best):
            best = run
    options = []
    for k, (_, end, label) in enumerate(best):
        if k + 1 < len(best):
            body = text[end : best[k + 1][0]]
        else:
            stop = _SENTENCE_END_RE.search(text, end)
            body = text[end : stop.start() if stop else len(text)]
        body = re.sub(r"\s+(?:or|and)$", "", body.strip().strip(_OPTION_TAIL), flags=re.I)
        options.append(Option(label, body.strip().strip(_OPTION_TAIL + ".").strip()))
    return options


_BARE_LABEL_RE = re.compile(r"[A-Za-z]|[1-9]")  # an item that is just a label


def _listed_options(rest: str) -> list[Option]:
    """Items on the rest of the line after a "choose from" intro, or bullet lines below."""
    stop = _SENTENCE_END_RE.search(rest)
    line = rest[: stop.start() if stop else len(rest)]
    line = line.rsplit(":", 1)[-1]  # "... the type of rock: a, b, c" -> "a, b, c"
    items = split_items(line) if line.strip() else []
    if len(items) < 2 and not line.strip():
        items = [m.group(1).strip() for m in _BULLET_RE.finditer(rest.split("\n\n", 1)[0])]
    if len(items) < 2:
        return []
    return [
        Option(item, "") if _BARE_LABEL_RE.fullmatch(item) else Option("", item) for item in items
    ]


_CHOICE_LIST_RE = re.compile(r"\bchoice[ \t]+list\b", re.I)
_QUOTE_LINE_RE = re.compile(r"[ \t]*>[ \t]?(.*)")


def _block_quote_options(text: str) -> list[Option]:
    """``> option`` lines after a ``CHOICE LIST`` header (the released form; the options may
    be SMILES, names or labels): the first run of block-quote lines after the header."""
    header = _CHOICE_LIST_RE.search(text)
    if header is None:
        return []
    items: list[str] = []
    for line in text[header.end() :].splitlines()[1:]:
        quoted = _QUOTE_LINE_RE.fullmatch(line)
        if quoted and quoted.group(1).strip():
            items.append(quoted.group(1).strip())
        elif items and line.strip():
            break  # the run of options ended
    return [Option("", item) for item in dict.fromkeys(items)]


def read_options(params: str, question: str) -> tuple[list[Option], str]:
    for source, text in (("parameters", params), ("question", question)):
        if not text:
            continue
        quoted = _block_quote_options(text)
        if quoted:
            return quoted, source
        intro = _CHOICE_INTRO_RE.search(text)
        if intro:
            rest = text[intro.end() :]
        else:  # "choose_from = [a, b]" in parameters: drop the name
            rest = _PARAM_NAME_RE.sub("", text) if source == "parameters" else ""
        if rest:
            options = _labelled_options(rest) or _listed_options(rest)
            if options:
                return options, source
        if source == "question":
            options = _labelled_options(text)
            if options:
                return options, source
    return [], ""


def _label_pattern(label: str) -> re.Pattern[str]:
    """How a bare label is recognised in an answer (see the module docstring). Every
    alternative starts with a literal, so the regex engine can skip ahead quickly."""
    esc = re.escape(label)
    if label.isupper() and label not in ("A", "I"):
        return re.compile(rf"{esc}(?<!\w{esc})(?!\w)")
    return re.compile(
        rf"\({esc}\)"
        rf"|{esc}(?<![\w.]{esc})(?:[.):](?!\w)|(?=[ \t]*(?:[,;/]|or\b|and\b|$)))"
        rf"|(?:option|choice|answer)(?<!\w.{{6}})[ \t]*[:：]?[ \t]*{esc}(?!\w)",
        re.I if label.isalpha() else 0,
    )


_OPTION_ABBREVIATION_RE = re.compile(r"\(([A-Z][A-Za-z0-9-]{1,9})\)\s*$")


def _option_hits(
    option: Option, text: str, lowered: str, limit: int = 50, case_sensitive: bool = False
) -> list[tuple[int, int]]:
    """Where ``option`` is named in ``text`` (``lowered`` is ``text.lower()``)."""
    patterns: list[tuple[re.Pattern[str], str]] = []
    if option.text:
        wanted = option.text if case_sensitive else option.text.lower()
        if (text if case_sensitive else lowered).find(wanted) < 0:
            wanted = ""  # not there at all: skip compiling a pattern for it
        if wanted:
            esc = re.escape(wanted)
            pattern = re.compile(rf"{esc}(?<!\w{esc})(?!\w)")
            patterns.append((pattern, text if case_sensitive else lowered))
    abbreviation = _OPTION_ABBREVIATION_RE.search(option.text or "")
    full = option.text[: abbreviation.start()].strip() if abbreviation else ""
    if (
        len(full) >= 4
        and (haystack := text if case_sensitive else lowered).find(
            wanted := full if case_sensitive else full.lower()
        )
        >= 0
    ):
        # ... and by its full name without the bracketed abbreviation
        esc = re.escape(wanted)
        patterns.append((re.compile(rf"{esc}(?<!\w{esc})(?!\w)(?![ \t]*\()"), haystack))
    if abbreviation and abbreviation.group(1) in text:
        # "Differential scanning calorimetry (DSC)" is named by "DSC" too (exact case)
        abbr = re.escape(abbreviation.group(1))
        patterns.append((re.compile(rf"(?<![\w-]){abbr}(?![\w-])"), text))
    if option.label:
        if text.strip(" \t*.()[]{}\"'`:") == option.label:
            return [(0, len(text))]
        patterns.append((_label_pattern(option.label), text))
    hits: list[tuple[int, int]] = []
    for pattern, haystack in patterns:
        for k, m in enumerate(pattern.finditer(haystack)):
            if k >= limit:
                break
            hits.append(m.span())
    return hits


_ELEMENTS = frozenset(Chem.GetPeriodicTable().GetElementSymbol(z) for z in range(1, 119))
_FORMULA_TOKEN_RE = re.compile(r"([A-Z][a-z]?)|[0-9()\[\]·.+\-]")
_NOTATION_MARK_RE = re.compile(r"[0-9()\[\]=#@+\-/\\]")


def _formula_shaped(text: str) -> bool:
    """Element symbols with counts, brackets, charges: ``H2O``, ``NaCl``, ``Ca(OH)2``, ``Co``."""
    pos, symbols = 0, 0
    for m in _FORMULA_TOKEN_RE.finditer(text):
        if m.start() != pos:
            return False
        if m.group(1):
            if m.group(1) not in _ELEMENTS:
                return False
            symbols += 1
        pos = m.end()
    return pos == len(text) and symbols > 0


@functools.lru_cache(maxsize=4096)
def _notation_kind(text: str) -> str:
    """ "clear": a chemical notation beyond doubt (a SMILES or formula with digits, bonds,
    brackets or two element symbols in mixed case: ``c1ccccc1``, ``CC(=O)O``, ``NaCl``;
    a carbon chain ``CCO``); "maybe": letters that read as one too but also as a word or
    acronym (``CO``, ``Co``, ``No``, ``ICP``); "" for names."""
    if not text or SPACE_RE.search(text) or len(text) > 200:
        return ""
    formula = _formula_shaped(text)
    smiles = smiles_shaped(text) and parse_smiles(text)[0] is not None
    if not (formula or smiles):
        return ""
    if _NOTATION_MARK_RE.search(text) or text.islower():
        return "clear"
    if formula and not text.isupper() and sum(c.isupper() for c in text) >= 2:
        return "clear"
    if smiles and text.count("C") - text.count("Cl") >= 2:
        return "clear"  # a carbon chain (CCO, CCCC, COC): no acronym reads like that
    return "maybe"


def _case_sensitive(options: list[Option]) -> list[bool]:
    """Per option: whether it is matched with its exact case. Names (techniques, labels,
    classes, methods, words) are matched ignoring case: letter case is the letter-case
    constraints' business. Chemical notations (SMILES, formulas, element symbols) keep
    their case, which is meaning (``ccO`` does not name ``CCO``, ``co`` not ``Co``): the
    clear ones always, the letters-only ones (``CCO``, ``CO``) when the set holds a clear
    notation or nothing but notations. All options keep their case when case alone tells
    two apart (``c1ccccc1`` and ``C1CCCCC1``)."""
    texts = [o.text for o in options if o.text]
    if len({t.lower() for t in texts}) < len(set(texts)):
        return [True] * len(options)
    kinds = [_notation_kind(o.text) for o in options]
    named_kinds = [k for k, o in zip(kinds, options, strict=True) if o.text]
    chemical = "clear" in kinds or (bool(named_kinds) and all(named_kinds))
    return [k == "clear" or (k == "maybe" and chemical) for k in kinds]


def named_options(options: list[Option], text: str) -> list[Option]:
    """Options named in ``text``; a hit inside a longer hit of another option is dropped.

    One sweep over all hits sorted by start (longest first): a hit is dominated when a hit
    of another option that starts no later reaches at least as far and is longer. Keeping
    the two farthest-reaching hits of distinct options seen so far makes it linear in the
    number of hits, not quadratic in the number of options."""
    lowered = text.lower()
    exact = _case_sensitive(options)
    hits = sorted(
        (start, -end, i)
        for i, option in enumerate(options)
        for start, end in _option_hits(option, text, lowered, case_sensitive=exact[i])
    )
    named: set[int] = set()
    best: list[tuple[int, int, int]] = []  # (end, start, option) of the two farthest reaches
    for start, neg_end, i in hits:
        end = -neg_end
        other = next((b for b in best if b[2] != i), None)
        if other is None or not (other[0] > end or (other[0] == end and other[1] < start)):
            named.add(i)
        best = _two_farthest([*best, (end, start, i)])
    return [options[i] for i in sorted(named)]


_LATEX_TEXT_RE = re.compile(r"\\(?:text|mathrm|textrm|textbf|ce)[ \t]*\{([^{}\n]{0,200})\}")
_SCRIPT_RE = re.compile(r"[_^]\{([^{}\n]{0,20})\}|[_^]([0-9A-Za-z+\-])")
_UNICODE_SCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "01234567890123456789+-")


def flat_notation(text: str) -> str:
    """Chemical notation as plain letters: ``\\text{Na}_2\\text{CO}_3`` and ``Na₂CO₃`` are
    ``Na2CO3`` (how an option list writes it); other text is unchanged."""
    flat = _LATEX_TEXT_RE.sub(r"\1", text)
    flat = _SCRIPT_RE.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), flat)
    return flat.translate(_UNICODE_SCRIPTS).replace("$", "")


def chosen_options(options: list[Option], text: str) -> tuple[list[Option], str]:
    """The options ``text`` chooses, and how: when it names several, the ones it turns down
    ("basalt, not granite", "neither a metal nor an insulator") are no second choice, so a
    single option left standing is the choice ("" or " (turning down ...)")."""
    named = named_options(options, text)
    if len(named) > 1:
        kept = named_options(options, without_rejected(text))
        if len(kept) == 1:
            turned_down = show_items([str(o) for o in named if o not in kept])
            return kept, f" (turning down {turned_down})"
    return named, ""


def _two_farthest(reaches: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """The farthest-reaching hit, and the farthest of an option other than its own."""
    reaches.sort(key=lambda r: (-r[0], r[1]))
    first = reaches[0]
    second = next((r for r in reaches[1:] if r[2] != first[2]), None)
    return [first, second] if second else [first]


def same_molecule(options: list[Option], text: str) -> list[Option]:
    """SMILES options named by an equivalent SMILES (``OCC`` for ``CCO``): each token of
    ``text`` that parses is compared with the options by canonical SMILES."""
    canonical: dict[str, int] = {}
    for i, option in enumerate(options):
        mol, _ = parse_smiles(option.text) if option.text else (None, "")
        if mol is None:
            return []  # not a list of molecules
        canonical.setdefault(Chem.MolToSmiles(mol), i)
    found: dict[int, None] = {}
    for k, m in enumerate(re.finditer(r"[^\s,;]+", text)):
        if k >= 200:
            break
        token = m.group().strip("`*'\"“”.()[]{}:")
        if not smiles_shaped(token):
            continue
        mol, _ = parse_smiles(token)
        if mol is not None and (key := Chem.MolToSmiles(mol)) in canonical:
            found[canonical[key]] = None
    return [options[i] for i in found]
