"""Checker of ``geography_address_format_validity`` (SciMIF catalogue). Decision rule:

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
  letter, and a known country name sits only in a country slot. A component the format
  marks optional ("house number (if discernible)", "(if known)", "(optional)") may be left
  out: the answer then has between the required and the full count, matched to the slots
  with that many optional slots dropped.
"""

from __future__ import annotations

import ast
import json
import re
import xml.etree.ElementTree as ET
from itertools import combinations, islice

from sci_tasks.metrics.constraints.answers import (
    code_blocks,
    final_or,
)
from sci_tasks.metrics.constraints.base import (
    CheckInput,
    register,
)
from sci_tasks.metrics.constraints.geography import label_key
from sci_tasks.metrics.constraints.text import (
    clean_parameters,
    clip,
    last_line,
    optional_part,
    paragraphs,
    parse_int,
    plural,
    sentences,
    strip_decoration,
)
from sci_tasks.metrics.verdict import Verdict

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


# the separator a word names ("separated by commas", "greater than signs"); the other words
# ("new lines", "line breaks") name a newline
_SEPARATOR_WORDS = (
    ("comma", ","),
    ("semicolon", ";"),
    ("greater", ">"),
    ("arrow", ">"),
    ("vertical", "|"),
    ("pipe", "|"),
)


def _stated_separator(text: str) -> str:
    m = _STATED_SEPARATOR_RE.search(text)
    if not m:
        return ""
    if m.group("sym"):
        return "→" if m.group("sym") == "->" else m.group("sym")
    word = (m.group("word") or m.group("hyph") or "").lower()
    return next((sep for start, sep in _SEPARATOR_WORDS if word.startswith(start)), "\n")


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
    cleaned = [strip_decoration(p).strip(" \t.\"'[]") for p in parts]
    return cleaned, seps[0]


_KEY_VALUE_LINE_RE = re.compile(
    r"^[ \t]*[-*]?[ \t]*\**([A-Za-z][\w ]{0,30}?)\**[ \t]*[:：]\**[ \t]*(.+?)[ \t]*$"
)


def _structured_address(response: str, slots: list[str]) -> tuple[list[str], str] | None:
    """An address given as a structure (issue 28): a Python tuple / list of strings, or a JSON
    object / dict / ``key: value`` lines / ``key,value`` CSV rows / an XML element's children,
    in the last fenced block or the last paragraph; None when the answer is not one. Keyed
    values are read in order; when the keys name every required slot, only those (an extra
    "building" row beside the address is not a component)."""
    blocks = code_blocks(response)
    pieces = [blocks[-1].body] if blocks and blocks[-1].closed else []
    para = paragraphs(response)
    pieces += [para[-1].text] if para else []
    for piece in pieces:
        found = _keyed_values(piece.strip())
        if found is None:
            continue
        items, where = found
        keyed = _values_of_slots(items, slots)
        if keyed is not None:
            return keyed, f"{where}, by their keys"
        if where != "the CSV rows":  # CSV rows are read by their keys only
            return [v for _, v in items], where
    return None


def _keyed_values(body: str) -> tuple[list[tuple[str | None, str]], str] | None:
    """(key or None, value) pairs of a structured answer, and what it is."""
    value: object = None
    if body[:1] in "([{" and body[-1:] in ")]}":
        try:
            value = ast.literal_eval(body)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            try:
                value = json.loads(body)
            except ValueError:
                value = None
    scalar = (str, int)
    if (
        isinstance(value, dict)
        and value
        and all(isinstance(v, scalar) and not isinstance(v, bool) for v in value.values())
    ):
        return [(str(k), str(v).strip()) for k, v in value.items()], "the structured answer"
    if (
        isinstance(value, (list, tuple))
        and value
        and all(isinstance(v, scalar) and not isinstance(v, bool) for v in value)
    ):
        return [(None, str(v).strip()) for v in value], "the structured answer"
    if body.startswith("<") and (fields := _xml_fields(body)):
        return fields, "the XML elements"
    lines = [ln for ln in body.splitlines() if ln.strip()]
    pairs = [_KEY_VALUE_LINE_RE.match(ln) for ln in lines]
    if len(lines) >= 2 and all(pairs):
        return [(m.group(1), m.group(2).strip(" *")) for m in pairs if m], "the key: value lines"
    rows = [ln.split(",", 1) for ln in lines]
    if len(lines) >= 3 and all(len(r) == 2 and "," not in r[1] for r in rows):
        return [(k.strip(), v.strip()) for k, v in rows], "the CSV rows"
    return None


def _values_of_slots(items: list[tuple[str | None, str]], slots: list[str]) -> list[str] | None:
    """The values whose keys name the required slots, in the answer's order; None unless
    every slot that is not optional has one."""
    if not slots or any(k is None for k, _ in items):
        return None
    names = [label_key(optional_part(slot)[0]).replace(" ", "") for slot in slots]
    optional = [optional_part(slot)[1] for slot in slots]
    kept, named = [], set()
    for key, value in items:
        k = label_key(key or "").replace(" ", "")
        hit = next((i for i, n in enumerate(names) if k and (k == n or k in n or n in k)), None)
        if hit is not None and hit not in named:
            named.add(hit)
            kept.append(value)
    if all(i in named or optional[i] for i in range(len(names))):
        return kept
    return None


def _xml_fields(body: str) -> list[tuple[str | None, str]]:
    """(tag, text) of a well-formed XML root's child elements, in order (``<address>`` with
    ``<street>``, ``<city>``, ...); empty when it is no such document."""
    try:
        root = ET.fromstring(body)
    except ET.ParseError:
        return []
    children = list(root)
    if len(children) < 2 or any(len(child) for child in children):
        return []
    return [(str(child.tag), (child.text or "").strip()) for child in children]


@register("geography_address_format_validity")
def address_format_validity(inp: CheckInput) -> Verdict:
    params = clean_parameters(inp.parameters)
    slots, count, source = _address_slots(params, inp.question or "")
    if not count:
        return Verdict.unscored("required address components not stated in parameters or question")
    separator = _stated_separator(inp.question or "") or _stated_separator(params)
    span = final_or(inp.response, last_line)
    if span is None:
        return Verdict.failed("empty response")
    text = _ADDRESS_LEAD_RE.sub("", strip_decoration(span.text))
    parts, used = _split_address(text, separator)
    where = f"the final answer ({span.source})"
    structured = _structured_address(inp.response, slots)
    if structured is not None:
        (parts, where), used = structured, "its items"
        text = " | ".join(parts)
    elif len(parts) == 1 and separator in ("", "\n"):
        block = paragraphs(inp.response)
        if block:
            parts, used = _split_address(block[-1].text, "\n")
            where = "the last paragraph"
    shown = "newline" if used == "\n" else repr(used)
    if any(not p for p in parts):
        return Verdict.failed(f"empty component in {where} split on {shown}: {clip(text)!r}")
    marked = [optional_part(slot) for slot in slots]
    optional = [i for i, (_, is_optional) in enumerate(marked) if is_optional]
    names = [name for name, _ in marked]
    required = count - len(optional)
    if not required <= len(parts) <= count:
        need = f"{count}" if not optional else f"{required} to {count}"
        return Verdict.failed(
            f"{plural(len(parts), 'component')} in {where} split on {shown}, {need} required"
            + (f" ({', '.join(slots)})" if slots else "")
            + f": {clip(text, 60)!r}"
        )
    # Components the format marks optional ("house number (if discernible)") may be left
    # out: the parts are matched to the slots with that many optional slots dropped.
    problem = ""
    for left_out in islice(combinations(optional, count - len(parts)), MAX_OMISSIONS):
        kept = [name for i, name in enumerate(names) if i not in left_out]
        problem = _slot_problem(parts, kept)
        if not problem:
            break
    if problem:
        return Verdict.failed(problem)
    order = f" in the order {' > '.join(names)}" if names else ""
    omitted = f", {count - len(parts)} optional left out" if len(parts) < count else ""
    return Verdict.passed(
        f"{plural(len(parts), 'component')} (from the {source}{omitted}){order} in {where}, "
        f"separated by {shown}"
    )


# Ways of leaving optional slots out that are tried (a bound for degenerate formats with
# dozens of optional slots; real ones have one or two).
MAX_OMISSIONS = 256


def _slot_problem(parts: list[str], slots: list[str]) -> str:
    """Why the components do not fit their slots (number slots hold a digit, other slots a
    letter, a country only in a country slot), or "" when they do."""
    for i, (part, slot) in enumerate(zip(parts, slots, strict=False)):
        numeric = bool(_NUMBER_SLOT_RE.search(slot))
        if numeric and not any(ch.isdigit() for ch in part):
            return f"component {i + 1} {part!r} should be the {slot} (no digit)"
        if not numeric and not any(ch.isalpha() for ch in part):
            return f"component {i + 1} {part!r} should be the {slot} (no letter)"
        if part.lower() in COUNTRIES and not _COUNTRY_SLOT_RE.search(slot):
            return f"country {part!r} in the {slot} position (component {i + 1})"
    return ""
