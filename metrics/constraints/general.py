"""Checkers of the rule-scored general constraints of the SciMIF catalogue.

``general_number_response`` is judge-scored (``judged.py``; without an LLM judge the
registry reports it unscored). Every other ``general_*`` constraint except the structured
formats (``formats.py``, ``markup.py``), the wrappers (``wrappers.py``) and the answer position
(``answer_position.py``) and the precision and notation constraints (``precision.py``)
has one checker below. Each reads the requirement from
``parameters`` first, then from the question; when it cannot be read from either, the
verdict is unscored with the reason, never a guess. Shared parsing lives in ``text.py``
(scope), ``answers.py`` (final answer, code fences) and ``number_grammar.py`` (numbers),
whose docstrings define those terms.

Scope: a requirement applies to the whole response unless the parameters, or the question
sentences that mention it, restrict it to the final answer (``text.requirement_scope``).
``general_choose_from`` defaults to the final answer instead (a selection is an answer), and
so do the precision and notation requirements (decimal places, scientific notation: issue
19, they concern the quantity asked for, not every number of the working) unless the
parameters or the question say every / all numbers, values, results, the entire / whole
response, throughout or intermediate steps.

Decision rules, one per constraint:

* all_uppercase / all_lowercase: the text is read through ``escaping.read_latex`` (LaTeX
  escaped in JSON strings, ``\\n`` escapes); LaTeX command names (``\\times``,
  ``\\BOXED``) and environment names (``\\begin{aligned}``) are markup and dropped, the
  letters of their arguments (``\\text{Speed}``, a variable ``$V$``) count like any other;
  then every cased letter in scope must have the required case; digits and punctuation are
  ignored; no cased letter -> fail.
* choose_from: the options come from the parameters, else the question: a labelled run
  "(a) x (b) y" / "A. x" (labels consecutive from a / A / 1), else the items after
  "choose from / one of / options:" split on commas, "or", "/". None -> unscored. Pass
  iff exactly one distinct option is named in scope (default: the final answer or last
  line): by its text (whole words, case-insensitive, a shorter option inside a longer one
  does not count) or by its label (a bare capital letter other than A and I; otherwise
  "(a)", "a.", "a)", "option a", a label followed by ",", "or", "and" or the end, or the
  answer being just the label, so the article in "A brief look" is not option A).
* judge: pass iff the text in scope (default: whole response) stripped is "yes" or "no",
  any case, with at most one trailing period.

The structured formats are in ``formats.py`` and ``markup.py``, ``general_wrap_up`` in
``wrappers.py``, ``general_response_structure`` in ``answer_position.py``.
"""

from __future__ import annotations

import re

from sci_tasks.metrics.constraints.answer_position import opening_answer
from sci_tasks.metrics.constraints.answers import (
    code_blocks,
    last_content_line,
    scoped_text,
)
from sci_tasks.metrics.constraints.base import (
    CheckInput,
    input_scope,
    register,
    register_judged,
)
from sci_tasks.metrics.constraints.escaping import read_latex
from sci_tasks.metrics.constraints.judged import NUMBER_RESPONSE
from sci_tasks.metrics.constraints.options import (
    CHOICE_KEY,
    chosen_options,
    flat_notation,
    read_options,
    same_molecule,
)
from sci_tasks.metrics.constraints.text import (
    LATEX_COMMAND_RE,
    XML_PROLOG_RE,
    clauses_matching,
    clean_parameters,
    clip,
    sentences_matching,
    show_items,
)
from sci_tasks.metrics.constraints.unmarked_answers import literal_lines
from sci_tasks.metrics.verdict import Verdict

# --------------------------------------------------------------------------- letter case

_UPPER_KEY = re.compile(r"upper[ \t-]*case|capital|\bcaps\b|block[ \t]+letters", re.I)
_LOWER_KEY = re.compile(r"lower[ \t-]*case|small[ \t]+letters|no[ \t]+capital", re.I)
_LATEX_ENVIRONMENT_RE = re.compile(r"\\(?:begin|end|BEGIN|END)[ \t]*\{[A-Za-z*]{1,20}\}")
_FENCE_INFO_RE = re.compile(r"^[ \t]*(?:```|~~~)[^\n]*", re.M)


_KEYS_VALUES_RE = re.compile(r"\b(?:keys?|values?|field[ \t]+names?)\b", re.I)


def _keys_and_values_scope(inp: CheckInput, key: re.Pattern[str]) -> str:
    """The structured answer (the last fenced block, else the last {...}) when the case
    requirement names its keys and values ("Keep all keys and values in lowercase"): the
    sentence that presents it is not under the requirement; else ""."""
    said = (
        clean_parameters(inp.parameters)
        + " "
        + " ".join(
            c for s in sentences_matching(inp.question or "", key) for c in clauses_matching(s, key)
        )
    )
    if not _KEYS_VALUES_RE.search(said):
        return ""
    blocks = code_blocks(inp.response)
    if blocks and blocks[-1].closed:
        return blocks[-1].body
    start, end = inp.response.find("{"), inp.response.rfind("}")
    return inp.response[start : end + 1] if 0 <= start < end else ""


def _shaped_answer(inp: CheckInput, key: re.Pattern[str]) -> str:
    """ "Write the tuple in lowercase": the reply's last line that is one tuple / list /
    dict literal, when the sentence stating the case names that shape; else ""."""
    found = literal_lines(inp.response, " ".join(sentences_matching(inp.question or "", key)))
    return found[-1] if found else ""


def _letter_case(inp: CheckInput, upper: bool) -> Verdict:
    key = _UPPER_KEY if upper else _LOWER_KEY
    if not clean_parameters(inp.parameters) and not key.search(inp.question or ""):
        # the record lists the constraint but the question never asked for it
        return Verdict.unscored(
            f"the question asks for no {'upper' if upper else 'lower'}case and the "
            "parameters are empty: the requirement is absent"
        )
    scope = input_scope(inp, key)
    text, where = scoped_text(inp.response, scope)
    if scope == "whole" and (block := _keys_and_values_scope(inp, key)):
        text, where = block, "the structured answer's keys and values"
    opening = opening_answer(inp.response, clean_parameters(inp.parameters), inp.question or "")
    if scope == "final" and opening is not None:  # "state your choice first, in capitals"
        text, where = opening, "the first line (where the question puts the answer)"
    elif scope == "final" and (shaped := _shaped_answer(inp, key)):
        text, where = shaped, "the answer in the shape the question names"
    # LaTeX command and environment names are markup, not prose; the letters of their
    # arguments (\text{Speed}, \BOXED{SPEED}, a variable $V$) are the response's letters
    if "\\" in text:
        text = LATEX_COMMAND_RE.sub(" ", _LATEX_ENVIRONMENT_RE.sub(" ", read_latex(text)))
    if "```" in text or "~~~" in text:  # so is a code fence's language tag
        text = _FENCE_INFO_RE.sub(" ", text)
    if "<?" in text or "<!" in text:  # an XML declaration or DOCTYPE is markup too
        text = XML_PROLOG_RE.sub(" ", text)
    wanted = "uppercase" if upper else "lowercase"
    wrong_case = str.islower if upper else str.isupper
    # counted with map() in C: a Python loop over every character is the slow part
    wrong = sum(map(wrong_case, text))
    total = wrong + sum(map(str.isupper if upper else str.islower, text))
    if total == 0:
        return Verdict.failed(f"no letters in {where}")
    if wrong:
        first = next(i for i, ch in enumerate(text) if wrong_case(ch))
        word = _word_at(text, first)
        return Verdict.failed(f"{wrong} of {total} letters in {where} not {wanted}, e.g. {word!r}")
    return Verdict.passed(f"all {total} letters in {where} are {wanted}")


def _word_at(text: str, i: int, reach: int = 20) -> str:
    a, b = i, i + 1
    while a > 0 and i - a < reach and text[a - 1].isalnum():
        a -= 1
    while b < len(text) and b - i < reach and text[b].isalnum():
        b += 1
    return text[a:b]


@register("general_all_uppercase")
def all_uppercase(inp: CheckInput) -> Verdict:
    return _letter_case(inp, upper=True)


@register("general_all_lowercase")
def all_lowercase(inp: CheckInput) -> Verdict:
    return _letter_case(inp, upper=False)


# --------------------------------------------------------------------------- selection


@register("general_choose_from")
def choose_from(inp: CheckInput) -> Verdict:
    options, source = read_options(clean_parameters(inp.parameters), inp.question or "")
    if not options:
        return Verdict.unscored("options to choose from not found in parameters or question")
    text, where = scoped_text(inp.response, input_scope(inp, CHOICE_KEY, default="final"))
    named, how = chosen_options(options, text)
    opening = opening_answer(inp.response, clean_parameters(inp.parameters), inp.question or "")
    if opening is not None:  # the question put the choice first: the first line decides
        first, first_how = chosen_options(options, opening)
        if first or not named:
            text, where = opening, "the first line (where the question puts the answer)"
            named, how = first, first_how
    if not named and flat_notation(text) != text:  # "\text{Na}_2\text{CO}_3" names Na2CO3
        named, how = chosen_options(options, flat_notation(text))
    if not named:
        named, how = same_molecule(options, text), " (the same molecule, written differently)"
    if len(named) == 1:
        return Verdict.passed(
            f"one of {len(options)} options (from the {source}) named in {where}: {named[0]}{how}"
        )
    if not named:
        listed = show_items([str(o) for o in options], 4)
        return Verdict.failed(
            f"none of the {len(options)} options from the {source} ({listed}) in {where}: "
            f"{clip(text)!r}"
        )
    return Verdict.failed(
        f"{len(named)} options named in {where}: {show_items([str(o) for o in named])}"
    )


_JUDGE_KEY = re.compile(r"\byes\b|\btrue[ \t]+or[ \t]+false\b|\bjudge", re.I)


# "the last line of your response must contain only Yes or No", "end your response with a
# final line containing only the word Yes or No": the answer is that line, the explanation
# above it is asked for
_LAST_LINE_RE = re.compile(
    r"\b(?:last|final|closing)[ \t]+line\b|\bend[ \t]+(?:your[ \t]+(?:response|answer|reply)"
    r"[ \t]+)?with[ \t]+(?:a|one)[ \t]+(?:final[ \t]+|separate[ \t]+)?line\b",
    re.I,
)


@register("general_judge")
def judge(inp: CheckInput) -> Verdict:
    text, where = scoped_text(inp.response, input_scope(inp, _JUDGE_KEY))
    said = [clean_parameters(inp.parameters), *sentences_matching(inp.question or "", _JUDGE_KEY)]
    if any(_LAST_LINE_RE.search(s) for s in said) and (line := last_content_line(inp.response)):
        text, where = line.text, "the last line (where the question puts the answer)"
    answer = text.strip()
    if _yes_or_no(answer):
        return Verdict.passed(f"{where} is exactly {answer!r}")
    # "Place your answer at the very beginning": the first line is the answer, and what
    # follows it is the explanation the question leaves room for (docs/labelling.md rule 14).
    opening = opening_answer(inp.response, clean_parameters(inp.parameters), inp.question or "")
    if opening is not None and _yes_or_no(opening):
        return Verdict.passed(
            f"the first line (where the question puts the answer) is exactly {opening.strip()!r}"
        )
    return Verdict.failed(f"{where} is not just Yes or No: {clip(answer)!r}")


_YES_NO_RE = re.compile(r"(yes|no)\.?", re.I)
_EMPHASIS_RE = re.compile(
    r"[*_`{}$]|\\(?:boxed|textbf|text|mathrm|mathbf)(?=\{)|\\[\[\]()]"  # \[ \boxed{...} \]
)


def _yes_or_no(answer: str) -> bool:
    # Emphasis or a box around the word is markup, not another word: "**Yes**" is Yes.
    return bool(_YES_NO_RE.fullmatch(_EMPHASIS_RE.sub("", answer).strip()))


register_judged(NUMBER_RESPONSE, "general_number_response")
