"""Where a reply states the quantities a unit requirement applies to (``unit_check.py``
decides it): the final answer's region, the answer statement around it, and the places that
state a unit its bare values lack (a key or a template field naming it, the working)."""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Iterator

from sci_tasks.metrics.constraints.answers import balanced_braces, code_blocks, final_answer
from sci_tasks.metrics.constraints.number_grammar import number_value
from sci_tasks.metrics.constraints.quantities import (
    Quantity,
    TooManyNumbers,
    labelled_units,
    quantities,
)
from sci_tasks.metrics.constraints.text import (
    non_empty_lines,
)
from sci_tasks.metrics.constraints.unit_grammar import clean_unit_text, parse_unit, read_unit
from sci_tasks.metrics.constraints.unit_requirement import (
    Requirement,
)
from sci_tasks.metrics.constraints.units import (
    Unit,
    carries,
    family_dimension,
    in_family,
)

# --------------------------------------------------------------------------- checker


_DIGIT_RE = re.compile(r"[0-9]")


def answer_region(response: str, units: tuple[Unit, ...] = ()) -> tuple[str, str] | None:
    """The final-answer text for unit checks and words for it (module docstring); a table
    with a unit column is read row by row as "value unit" (``_unit_column_rows``)."""
    region = _answer_region(response, units)
    if region is not None and (rows := _unit_column_rows(region[0])):
        return rows, f"{region[1]}, each value with its row's unit"
    return region


_UNIT_HEADER = frozenset({"unit", "units", "unit(s)"})


def _unit_column_rows(text: str) -> str:
    """A CSV or Markdown table whose header has a unit column ("quantity,value,unit") as
    "value unit" lines, one per row; "" when ``text`` is no such table."""
    lines = [ln.strip().strip("|") for ln in text.strip().splitlines() if ln.strip()]
    lines = [ln for ln in lines if not re.fullmatch(r"[\s|:-]*", ln) and not ln.startswith("```")]
    if len(lines) < 2:
        return ""
    sep = "|" if "|" in lines[0] else ","
    header = [c.strip().strip("*`").lower() for c in lines[0].split(sep)]
    unit_at = next((i for i, c in enumerate(header) if c in _UNIT_HEADER), None)
    if unit_at is None:
        return ""
    out = []
    for line in lines[1:]:
        cells = [c.strip() for c in line.split(sep)]
        if len(cells) != len(header):
            return ""
        values = [c for i, c in enumerate(cells) if i != unit_at and _DIGIT_RE.search(c)]
        out += [f"{v} {cells[unit_at]}" for v in values]
    return "\n".join(out)


# A heading or a label line that opens the answer section: "### Final Answer", "## Result",
# "**Summary:**", "Final answers:"
_ANSWER_HEADING_RE = re.compile(
    r"^[ \t]*(?:#{1,6}[ \t]+|\*\*)?[^\n]{0,30}?\b(?:final[ \t]+answers?|answers?|results?|"
    r"summary|conclusions?)\b[ \t]*[:：]?[ \t]*(?:\*\*)?[ \t]*[:：]?[ \t]*$",
    re.I | re.M,
)


def answer_section(response: str) -> str:
    """The reply's closing answer section: from its last answer heading ("### Final Answer",
    "## Result") to the end, where an answer of several quantities sits (a list, a table,
    a box per quantity); "" without such a heading."""
    last = None
    for last in _ANSWER_HEADING_RE.finditer(response):  # noqa: B007 - the last heading
        pass
    return _unboxed(response[last.end() :]) if last is not None else ""


_BOX_RE = re.compile(r"\\(?:boxed|fbox)[ \t]*(?=\{)")


def _unboxed(text: str) -> str:
    """``text`` with each ``\\boxed{...}`` replaced by what it holds (a box per quantity)."""
    out, pos = [], 0
    for m in _BOX_RE.finditer(text):
        if m.start() < pos:
            continue
        close = balanced_braces(text, m.end())
        if close is None:
            break
        out += [text[pos : m.start()], " ", text[m.end() + 1 : close], " "]
        pos = close + 1
    return "".join(out) + text[pos:]


def _answer_region(response: str, units: tuple[Unit, ...]) -> tuple[str, str] | None:
    span = final_answer(response)
    if span is not None:
        nl = response.find("\n", span.end)
        end = len(response) if nl < 0 else nl
        return response[span.start : end], f"the final answer ({span.source})"
    blocks = code_blocks(response)
    if blocks and blocks[-1].closed:
        # a closing structured block, perhaps followed by a remark: one paragraph of prose,
        # no working ("=") in it (docs/labelling.md: a closing remark does not move the answer)
        body = blocks[-1].body
        after = response[response.rfind(body) + len(body) :].strip().strip("`~").strip()
        remark = (
            not _BLANK_LINE_RE.search(after)
            and "=" not in after
            and len(after) <= 400
            and not _states_unit(after, units)  # "In short: a_c ≈ 4.97 mm": the answer again
        )
        if body.strip() and (not _DIGIT_RE.search(after) or remark):
            return body, "the final answer (the last ``` block)"
    bold = _last_bold_result(response)
    if bold is not None:
        return bold, "the final answer (its bold result line)"
    lines = non_empty_lines(response)
    for line in reversed(lines):
        if _DIGIT_RE.search(line.text):
            return line.text, "the last line with a number"
    if lines:
        return lines[-1].text, "the last line"
    return None


_BOLD_LINE_RE = re.compile(r"^[ \t]*\*\*[^*\n]*[0-9][^*\n]*\*\*[ \t.]*$", re.M)


def _last_bold_result(response: str) -> str | None:
    """A line that is all bold and holds a number ("**Time of flight: T ≈ 2.89 s**"), when
    at most one short paragraph of remark follows it; else None."""
    found = None
    for found in _BOLD_LINE_RE.finditer(response):  # noqa: B007 - the last one
        pass
    if found is None:
        return _last_html_strong(response)
    after = response[found.end() :].strip()
    if after and (_BLANK_LINE_RE.search(after) or len(after) > 400):
        return None
    return found.group().strip()


_HTML_STRONG_RE = re.compile(
    r"<(strong|b)>((?:(?!</?\1>).){0,300}?[0-9](?:(?!</?\1>).){0,300}?)</\1>", re.S
)
_HTML_TAG_RE = re.compile(r"<[^<>]{1,200}>")


def _last_html_strong(response: str) -> str | None:
    """In an HTML reply, the last <strong> / <b> element holding a number, when what follows
    it is at most a short remark (500 characters of text)."""
    found = None
    for found in _HTML_STRONG_RE.finditer(response):  # noqa: B007 - the last one
        pass
    if found is None:
        return None
    after = _HTML_TAG_RE.sub(" ", response[found.end() :])
    if len(" ".join(after.split())) > 500:
        return None
    return _HTML_TAG_RE.sub("", found.group(2))


def _states_unit(text: str, units: tuple[Unit, ...]) -> bool:
    try:
        return any(carries(q.units, units) for q in quantities(clean_unit_text(text)))
    except TooManyNumbers:
        return False


def bare_in_structured_answer(response: str) -> str:
    """A value without a unit in the fenced block that ends the response, when the block's
    other values carry units ("'I3': '1.33'" beside "'I1': '2 A'"), else ""."""
    if not response.rstrip().endswith(("```", "~~~")):
        return ""
    blocks = code_blocks(response)
    if not blocks:
        return ""
    try:
        found = quantities(clean_unit_text(blocks[-1].body))
    except TooManyNumbers:
        return ""
    if sum(1 for q in found if q.units) < 2:
        return ""
    # a zero needs no unit ("a = 0" in a list of accelerations)
    return next((q.number for q in found if not q.units and not _is_zero(q.number)), "")


def _is_zero(number: str) -> bool:
    return number.strip().lstrip("+-−").replace(".", "").replace(",", "").strip("0") == ""


def show_quantity(q: Quantity) -> str:
    return f"{q.number} {q.unit_text}".strip() if q.unit_text else q.number


_HEADING_RE = re.compile(r"^[ \t]*(?:#{1,6}[ \t]|\*\*[^*\n]+\*\*[ \t]*$|---+[ \t]*$)", re.M)
_BLANK_LINE_RE = re.compile(r"\n[ \t]*\n")


def answer_statement(response: str) -> tuple[str, str] | None:
    """The whole answer statement (issue 28: the unit may sit anywhere in it): the section
    of the last answer marker (from its line to the next heading or rule) or, without a
    marker, the paragraph of the last box; None without either."""
    span = final_answer(response)
    if span is None:
        return None
    start = response.rfind("\n", 0, span.start) + 1
    if span.source == "\\boxed{}":  # the paragraph around the box
        blank = list(_BLANK_LINE_RE.finditer(response, 0, span.start))
        start = blank[-1].end() if blank else 0
        after = _BLANK_LINE_RE.search(response, span.end)
        end = after.start() if after else len(response)
        # a box alone in its paragraph: the sentence that introduces it belongs to it
        lead = re.sub(r"\\(?:boxed|fbox|BOXED)[ \t]*\{$", "", response[start : span.start])
        if not lead.strip(" \t\n$\\[(") and blank:
            before = list(_BLANK_LINE_RE.finditer(response, 0, blank[-1].start()))
            intro = before[-1].end() if before else 0
            # a sentence introduces it; a displayed equation before it is the working
            if _DISPLAY_MATH_RE.sub("", response[intro : blank[-1].start()]).strip():
                start = intro
        return response[start:end], "the answer statement"
    heading = _HEADING_RE.search(response, span.end + 1)
    end = heading.start() if heading else len(response)
    return response[start:end], "the answer statement"


def _literal(text: str) -> object:
    """``text`` read as a Python / JSON literal (tuple, list, dict), else None."""
    body = text.strip()
    if not body or body[0] not in "([{" or body[-1] not in ")]}":
        return None
    try:
        return ast.literal_eval(body)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        try:
            return json.loads(body)
        except (ValueError, RecursionError):
            return None


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def literal_of_numbers(text: str) -> bool:
    """A Python / JSON literal (tuple, list, dict) with bare number values."""
    value = _literal(text)
    items = list(value.values()) if isinstance(value, dict) else value
    if not isinstance(items, (tuple, list)):
        return False
    return any(_is_number(v) for v in items)


_KEY_WORD_RE = re.compile(r"[A-Za-z0-9%]+")


_TEMPLATE_RE = re.compile(r"\(([A-Za-z_][\w ]{0,40}(?:,[ \t]*[A-Za-z_][\w ]{0,40}){1,9})\)")


def values_in_key_units(answer: str, question: str = "") -> str:
    """A dict answer's numbers with the unit their key ends with ("gc_content_percent": 40.0
    -> "40.0 percent", "radius_nm" -> nm), one per line; keys of one word name no unit ("t",
    "m" are quantities there, not tonnes or metres)."""
    value = _literal(answer)
    if isinstance(value, (tuple, list)) and question:
        # "Return a tuple (technique, d_spacing_nm, crystallite_size_nm)": the question's
        # template names the fields
        for m in reversed(list(_TEMPLATE_RE.finditer(question))):
            fields = [f.strip() for f in m.group(1).split(",")]
            if len(fields) == len(value):
                value = dict(zip(fields, value, strict=True))
                break
    if not isinstance(value, dict):
        return ""
    out = []
    for key, number in value.items():
        words = _KEY_WORD_RE.findall(str(key))
        if not _is_number(number) or len(words) < 2:
            continue
        for i in range(1, len(words)):
            tail = " ".join(words[i:])
            if len(tail) >= 2 and parse_unit(tail):
                out.append(f"{number} {tail}")
                break
    return "\n".join(out)


def same_value(a: str, b: str, any_precision: bool = False) -> bool:
    """The same number with the same digits, in any notation ("5.91 × 10⁻¹²" and "5.91e-12",
    "1,200" and "1200"; "5" and "5.0" are not: the precision as written differs, unless
    ``any_precision``)."""
    if a.replace(" ", "").replace(",", "") == b.replace(" ", "").replace(",", ""):
        return True
    x, y = number_value(a), number_value(b)
    if x is None or y is None:
        return False
    return (any_precision or x[1] == y[1]) and math.isclose(x[0], y[0], rel_tol=1e-9)


def places_stating_the_unit(
    response: str, answer: str, numbers: list[str], question: str = ""
) -> Iterator[tuple[str, str, bool]]:
    """Where a reply states the unit of a final answer that lacks it, in the order tried,
    and whether a value there may be written to another precision than the answer's."""
    statement = answer_statement(response)  # "The route is 6.2 miles long: \boxed{6.2}"
    if statement is not None:
        yield (*statement, False)
    if not numbers:
        return
    if literal_of_numbers(answer):
        # a tuple / list / dict of numbers cannot hold a unit: a key naming it
        # ("gc_content_percent"), the sentence introducing it ("(activity in kBq, ...)") or
        # the working's values stand for it
        if keyed := values_in_key_units(answer, question):
            yield keyed, "the answer's keys, naming the units of their values", False
        yield introducing_sentence(response, answer), "the sentence introducing the answer", False
        # a literal the question laid out writes its values to its own precision: "900
        # ng/µL" in a step is the tuple's 900.00
        yield response, "the response, for the values of the structured answer", True
    else:
        # a box or "[[33.3]]" could have held the unit: the value must be stated with it in
        # the reply's text ("the population doubles in about 33.3 years", "t ≈ 70 / 2.1 ≈
        # 33.3 yr"), not only in a displayed equation of the working
        prose = _DISPLAY_MATH_RE.sub(" ", response)
        yield prose, "the reply's text, for the values of the final answer", False


def same_value_in_unit(
    text: str, numbers: list[str], req: Requirement, any_precision: bool = False
) -> Quantity | None:
    cleaned = clean_unit_text(text)
    try:
        found = quantities(cleaned)
    except TooManyNumbers:
        return None
    for q in found:
        right = (
            bool(q.units) and family_dimension(q.units[0]) and in_family(q.units[0], req.family)
            if req.family
            else carries(q.units, req.units)
        )
        if right and (not numbers or any(same_value(q.number, n, any_precision) for n in numbers)):
            return q
    return None


_DISPLAY_MATH_RE = re.compile(
    r"\\\[.*?\\\]|\$\$.*?\$\$|\\begin\{(equation|align|gather)\*?\}.*?\\end\{\1\*?\}", re.S
)
_IN_UNIT_RE = re.compile(r"\b(?:in|as)[ \t]+(?=\S)")


def named_units(text: str) -> list[tuple[str, list[Unit]]]:
    """Units a sentence names for values it introduces: labels ("(kBq)", "unit: kBq") and
    "<quantity> in kBq"."""
    named = labelled_units(text)
    for m in _IN_UNIT_RE.finditer(text):
        units, stop = read_unit(text, m.end())
        if units and (stop == len(text) or not text[stop].isalnum()):
            named.append((text[m.end() : stop].strip(), units))
    return named


def introducing_sentence(response: str, answer: str) -> str:
    """The paragraph just before the final answer (its opening fence left out): "Here is the
    result (activity in kBq, fraction remaining):"."""
    at = response.rfind(answer)
    if at <= 0:
        return ""
    before = _OPENING_FENCE_RE.sub("", response[max(0, at - 400) : at])
    parts = _BLANK_LINE_RE.split(before.rstrip())
    return parts[-1] if parts else ""


_OPENING_FENCE_RE = re.compile(r"(?:```|~~~)[\w+-]*[ \t]*\n?[ \t]*$")
