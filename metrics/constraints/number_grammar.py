"""Numbers in text: the one number grammar of the project (``NUMBER_RE``; ``quantities.py``
reads quantities with it too), ``find_numbers`` and the decimal places a requirement states.

**Numbers** (``find_numbers``): decimal numbers written with digits, with optional sign,
thousands separators and a scientific exponent (``1.2e-4``, ``1.2 × 10^-4``,
``1.2 \\times 10^{-4}``, ``1.2*10^5``, ``1.2·10⁻⁴``). Ignored: digits glued to a letter,
underscore or dot before them (``H2O``, ``CO2``, ``x_1``, ``v2.0``); superscripts and
subscripts (``m^2``, ``cm^{-1}``, ``x_{12}``); list markers at a line start (``1.``,
``2)``, ``(3)``, ``## 4.``); integer labels after step/figure/table/equation/section/...
(``Step 1``, ``Fig. 2``, ``Eq. (3)``); ordinals (``1st``, ``2nd``). Numbers written as
words are not numbers here. LaTeX escaped in JSON is read back first (``escaping.py``).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from sci_tasks.metrics.constraints.escaping import read_latex
from sci_tasks.metrics.constraints.text import NUMBER_WORD, parse_int

_SUPERSCRIPT_DIGITS = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_POWER = (
    r"(?:[ \t]*\^[ \t]*(?:\{[ \t]*(?:[-+−][ \t]*)?[0-9]+[ \t]*\}|(?:[-+−][ \t]*)?[0-9]+)"
    r"|\*\*[ \t]*(?:\([ \t]*)?[-+−]?[0-9]+(?:[ \t]*\))?"
    rf"|[⁺⁻]?[{_SUPERSCRIPT_DIGITS}]+)"
)
_EXPONENT = (
    r"(?:[eE][-+−]?[0-9]+"
    r"|[ \t]*(?:×|\\times|\\cdot|·|⋅|\*|x|X)[ \t]*10" + _POWER + ")"
)
# The one number grammar of the project (``quantities.numbers`` reads quantities with it too):
# sign, mantissa (thousands separators allowed) and an optional power-of-ten exponent, with
# nothing of a word or a "." glued before it. Written to begin with one character class (the
# sign or the mantissa's first character, the glue checked right after it): the regex engine
# then skips ahead to those characters instead of trying every position of the text.
# thousands separated by "," or LaTeX's "{,}" (25{,}000) or thin space "\," (35\,000.0), or
# by a thin or no-break space (SI style: "35 000")
_THOUSANDS = r"(?:,|\{,\}|\\,|[\u2009\u202f\u00a0])"
_MANTISSA = rf"[0-9]{{1,3}}(?:{_THOUSANDS}[0-9]{{3}})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?|\.[0-9]+"
_MANTISSA_AFTER_DIGIT = rf"[0-9]{{0,2}}(?:{_THOUSANDS}[0-9]{{3}})+(?:\.[0-9]+)?|[0-9]*(?:\.[0-9]+)?"
_SEPARATOR_RE = re.compile(_THOUSANDS)
_SIGNS = "-+−"
NUMBER_RE = re.compile(
    rf"[{_SIGNS}0-9.](?<![\w.].)"
    rf"(?:(?<=[{_SIGNS}])(?:{_MANTISSA})|(?<=[0-9])(?:{_MANTISSA_AFTER_DIGIT})|(?<=\.)[0-9]+)"
    r"(?P<exp>" + _EXPONENT + r")?"
)


def number_parts(m: re.Match[str]) -> tuple[int, str, str | None]:
    """A ``NUMBER_RE`` match's mantissa start, mantissa as written and exponent (or None)."""
    start, end = m.span()
    if m.string[start] in _SIGNS:
        start += 1
    exp_start = m.start("exp")
    if exp_start < 0:
        return start, m.string[start:end], None
    return start, m.string[start:exp_start], m.string[exp_start:end]


_BARE_POWER_RE = re.compile(_POWER)
_SUPERSCRIPT_MAP = str.maketrans(_SUPERSCRIPT_DIGITS + "⁺⁻−", "0123456789+--")
_POWER_DIGITS_RE = re.compile(r"[-+]?[0-9]+")


def number_value(written: str) -> tuple[float, str] | None:
    """The value of a number as ``NUMBER_RE`` reads it ("5.91 × 10⁻¹²", "5.91e-12",
    "1,200") and its mantissa's digits as written ("5.91", "1200"); None when ``written``
    is no single number."""
    m = NUMBER_RE.fullmatch(written.strip())
    if m is None:
        return None
    _, mantissa, exp = number_parts(m)
    mantissa = _SEPARATOR_RE.sub("", mantissa)
    value = float(mantissa)
    if m.string[m.start()] in "-−":
        value = -value
    if exp:
        if exp.lstrip()[:1] in "eE":
            power = exp.lstrip()[1:]
        else:  # "× 10^{-4}", "·10⁻⁴", "*10**5": the exponent after the 10
            power = exp.translate(_SUPERSCRIPT_MAP).split("10", 1)[1]
        digits = _POWER_DIGITS_RE.search(power.replace("−", "-").replace(" ", ""))
        if digits is None:
            return None
        value *= 10.0 ** int(digits.group())
    return value, mantissa


_LABEL_WORDS = frozenset(
    "step steps stage part case fig figure figs figures table tables eq eqs equation "
    "equations section chapter option question problem example item method scenario row "
    "column phase round trial experiment".split()
)
_ORDINALS = frozenset(("st", "nd", "rd", "th"))
_LINE_START_PREFIX = " \t#>*+-("


class Number(NamedTuple):
    """One number found in a text."""

    text: str  # as written (sign, mantissa and exponent)
    mantissa: str  # digits of the mantissa, separators removed ("1234.5")
    decimals: int  # digits after the decimal point of the mantissa
    scientific: bool  # written with a power-of-ten exponent
    start: int
    end: int

    @property
    def normalized(self) -> bool:
        """Scientific and the mantissa is 0 or 1 <= |m| < 10."""
        value = float(self.mantissa)
        return self.scientific and (value == 0 or 1 <= value < 10)


# LaTeX spacing and grouping around a times sign, each replaced by as many spaces (or the
# same command without braces) so that positions in the text stay valid.
# A "\," between digit groups is a thousands separator (35\,000.0), kept for NUMBER_RE.
_LATEX_SPACING_RE = re.compile(
    r"(?<![0-9])\\,|\\,(?![0-9]{3}(?![0-9]))|\\[;:! ]|~|\{(?=\\(?:times|cdot)\})"
    r"|(?<=\\times)\}|(?<=\\cdot)\}"
)


def _blank_latex_spacing(text: str) -> str:
    if "\\" not in text and "~" not in text:
        return text
    return _LATEX_SPACING_RE.sub(lambda m: " " * len(m.group()), text)


def find_numbers(text: str) -> list[Number]:
    """Numbers written with digits, minus the ones the module docstring lists as ignored.
    LaTeX spacing (``\\,`` ``\\;`` ``\\ `` ``~``) and ``{\\times}`` read as plain spaces and
    ``\\times``, so ``4.5\\,\\times\\,10^{4}`` is one number in scientific notation; LaTeX
    escaped inside a JSON string (``read_latex``) reads as the LaTeX it encodes."""
    shown = read_latex(text).replace("$", " ")  # same length: positions stay valid
    text = _blank_latex_spacing(shown)
    out: list[Number] = []
    for m in NUMBER_RE.finditer(text):
        _, mant, exp = number_parts(m)
        start, end = m.span()
        if not mant.replace(".", "").isdigit():
            mant = _SEPARATOR_RE.sub("", mant)
        scientific = exp is not None
        if not scientific and mant == "10":
            power = _BARE_POWER_RE.match(text, end)
            if power:  # a bare power of ten, 10^-4: scientific with mantissa 1
                scientific, mant, end = True, "1", power.end()
        if start and text[start - 1] in _BEFORE_INDEX and _is_exponent_or_index(text, start):
            continue
        if start > 4 and text[start - 1] == ">" and text[start - 5 : start].lower() in _HTML_INDEX:
            continue  # HCO<sub>3</sub>, m<sup>2</sup>: an HTML subscript or superscript
        point = mant.find(".")
        if point < 0 and not scientific and _is_label(text, start, end):
            continue
        decimals = 0 if point < 0 else len(mant) - point - 1
        out.append(Number(shown[start:end], mant, decimals, scientific, start, end))
    return out


_BEFORE_INDEX = " \t{(^_*"
_HTML_INDEX = ("<sub>", "<sup>")


def _is_exponent_or_index(text: str, start: int) -> bool:
    """``m^2``, ``cm^{-1}``, ``x_{12}``, ``10**3``: a superscript or subscript."""
    j, steps = start, 0
    while j > 0 and steps < 4 and text[j - 1] in " \t{(":
        j -= 1
        steps += 1
    if j > 0 and text[j - 1] in "^_":
        return True
    return j > 2 and text[j - 2 : j] == "**" and text[j - 3].isdigit()


def _is_label(text: str, start: int, end: int) -> bool:
    """A list marker at a line start, an integer label (Step 1, Fig. 2), an ordinal."""
    nxt = text[end : end + 1]
    if nxt.isalpha():
        return text[end : end + 2].lower() in _ORDINALS and not text[end + 2 : end + 3].isalpha()
    if nxt in (".", ")") and text[end + 1 : end + 2] in (" ", "\t"):
        j = start
        while j > 0 and start - j < 12 and text[j - 1] in _LINE_START_PREFIX:
            j -= 1
        if (j == 0 or text[j - 1] == "\n") and text[end + 2 : end + 40].split("\n", 1)[0].strip():
            return True  # "1. text": a marker followed by content on its line
    return _label_word_before(text, start)


def _label_word_before(text: str, start: int) -> bool:
    """``Step 1``, ``Fig. 2``, ``Eq. (3)``, ``Table #4``: a label word right before."""
    j = start
    while j > 0 and start - j < 4 and text[j - 1] in " \t(#":
        j -= 1
    if j == start:
        return False
    if j > 0 and text[j - 1] == ".":
        j -= 1
    i = j
    while i > 0 and j - i < 12 and text[i - 1].isalpha():
        i -= 1
    return (i == 0 or not text[i - 1].isalnum()) and text[i:j].lower() in _LABEL_WORDS


# --------------------------------------------------------------------------- requirements

_DECIMALS_RE = re.compile(
    rf"\b({NUMBER_WORD})[ \t]*(?:-[ \t]*)?(?:decimal|d\.p\.|dp\b)"
    rf"|\bdecimal(?:[ _]?(?:places?|digits?|points?)|s)?[ \t]*(?:[:=]|of)[ \t]*({NUMBER_WORD})\b",
    re.I,
)
_DECIMAL_WORDS_RE = re.compile(
    r"\b(?:nearest|to[ \t]+the)[ \t]+(tenth|hundredth|thousandth|ten[ \t-]thousandth)s?\b"
    r"|\b(?:nearest[ \t]+(?:integer|whole[ \t]+number)|no[ \t]+decimal|without[ \t]+decimal|"
    r"zero[ \t]+decimal)"
    r"|\bprecision[ \t]+(?:of[ \t]+)?0\.(0*1)\b",
    re.I,
)
_PLACE_WORDS = {"tenth": 1, "hundredth": 2, "thousandth": 3}


def parse_decimal_places(text: str) -> set[int]:
    """Every decimal-place count ``text`` states: "2 decimal places", "one decimal place",
    "two-decimal", "decimal places: 2", "to the nearest tenth/hundredth/thousandth",
    "nearest integer" / "no decimal places" (0), "precision of 0.01" (2); a parameter that
    is only a count ("2", "two") states that count."""
    found: set[int] = set()
    for m in _DECIMALS_RE.finditer(text):
        n = parse_int(m.group(1) or m.group(2))
        if n is not None:
            found.add(n)
    for m in _DECIMAL_WORDS_RE.finditer(text):
        if m.group(1):
            word = m.group(1).lower()
            found.add(4 if word.startswith("ten") and word != "tenth" else _PLACE_WORDS[word])
        elif m.group(2):
            found.add(len(m.group(2)))
        else:
            found.add(0)
    if not found:
        n = parse_int(text)
        if n is not None:
            found.add(n)
    return found
