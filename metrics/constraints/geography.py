"""Checkers of the geography constraints of the SciMIF catalogue. The unit and method
constraints share one implementation with the other disciplines (``unit_check.py``,
``methods.py``); the analysis steps are judged (``judged.py``). Decision rules:

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
"""

from __future__ import annotations

import ast
import json
import re
import xml.etree.ElementTree as ET
from itertools import combinations, islice

from sci_tasks.metrics.constraints.answers import (
    code_blocks,
    final_answer,
    final_or,
    last_content_line,
)
from sci_tasks.metrics.constraints.base import (
    CheckInput,
    register,
    register_judged,
)
from sci_tasks.metrics.constraints.judged import STEPS
from sci_tasks.metrics.constraints.methods import check_method
from sci_tasks.metrics.constraints.options import named_options, read_options
from sci_tasks.metrics.constraints.text import (
    Span,
    clean_parameters,
    clip,
    last_line,
    non_empty_lines,
    optional_part,
    paragraphs,
    parse_int,
    plural,
    sentences,
    strip_decoration,
)
from sci_tasks.metrics.constraints.unit_check import check_units
from sci_tasks.metrics.verdict import Verdict

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
    names = [_label_key(optional_part(slot)[0]).replace(" ", "") for slot in slots]
    optional = [optional_part(slot)[1] for slot in slots]
    kept, named = [], set()
    for key, value in items:
        k = _label_key(key or "").replace(" ", "")
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
    # a JSON object holding the attributes is the answer, whatever the explanation after it
    # says of them ("- **lighting_condition:** the sky is black ... -> night")
    answer = _last_json_object(response)
    named = {_label_key(str(k)): v for k, v in (answer or {}).items() if isinstance(v, str)}
    if any(_label_key(a) in named for a in attrs):
        values = {a: named[_label_key(a)] for a in attrs if _label_key(a) in named}
        text = response
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
    options, source = read_options(params, inp.question or "")
    if not options:
        return Verdict.unscored("scene labels not found in parameters or question")
    span = final_answer(inp.response)
    if span is None:
        if _BEGIN_RE.search(inp.question or "") or _BEGIN_RE.search(params):
            span = _first_sentence(inp.response)
        else:
            span = last_content_line(inp.response)
    if span is None:
        return Verdict.failed("empty response")
    where = (
        f"the {span.source}"
        if span.source in ("first sentence", "last line")
        else (f"the final answer ({span.source})")
    )
    named = named_options(options, span.text)
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


register("geography_unit_consistency")(check_units)
register("geography_method_constraint")(check_method)
register_judged(STEPS, "geography_analysis_steps_constraint")
