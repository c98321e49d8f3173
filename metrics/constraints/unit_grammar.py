"""Reading units in text: a small grammar that reads a unit however it is written (the
values it reads are ``units.Unit``).

**Cleaning** (``clean_unit_text``, before any parsing): LaTeX wrappers are unwrapped
(``\\mathrm{m}``, ``\\text{ kJ}``, ``\\rm``, ``\\operatorname``, ``\\mbox``, ``\\SI{3}{km}``);
``\\frac{a}{b}`` becomes ``(a)/(b)``; ``^{\\circ}`` / ``\\circ`` / ``\\degree`` / ``º`` / ``˚``
become ``°``; ``\\AA`` / ``\\mathring{A}`` / U+212B become ``Å``; ``\\mu`` / ``µ`` become ``μ``;
``\\Omega`` / U+2126 become ``Ω``; ``\\cdot`` / ``⋅`` / ``∙`` / ``•`` become ``·``; ``℃`` / ``℉``
become ``°C`` / ``°F``; ``\\%`` becomes ``%``; LaTeX spaces (``\\,`` ``\\;`` ``~``) become
spaces; ``−`` becomes ``-``; ``$`` is dropped and the math delimiters ``\\( \\) \\[ \\]``
become spaces. LaTeX escaped inside a JSON string (``\\\\mathrm{m}``, ``\\\\frac``) is read
back first (``escaping.read_latex``).

**Grammar** (``read_unit`` reads the longest unit at a position; ``parse_unit`` a whole
string)::

    unit  := term (sep term)*
    sep   := "/" | "per"          every later term is in the denominator ("J/mol K" = J/(mol K))
           | "·" | "*" | "."      product ("." only when glued to the next letter)
           | " "                  implicit product; the next term must carry an exponent
                                  ("kJ mol^-1") or be m / s / h after N W A V Pa J ("N m", "kW h")
    term  := "(" unit ")" [exp]
           | ["square" | "sq" | "cubic"] atom [exp | "squared" | "cubed"]
    exp   := "^" ["{" | "("] [sign] int ["/" int] [")" | "}"]  |  "**" [sign] int
           | superscripts ("²", "⁻¹")
           | sign? digit glued to a symbol ("m2", "s-1"; after an implicit product only
             a negative one, so "2 mol H2" is mol, not mol·H²)
    atom  := symbol | prefix symbol | name | two glued symbols ("kWh", "Nm", "mAh")

Symbols are case-sensitive (``mPa`` is not ``MPa``, ``K`` is not ``k``). A token of two or
more letters that is written all in capitals, or that reads as nothing as written, may
also be read case-insensitively (``KJ/MOL``, ``kj/mol``, ``MPA``: text whose case a letter
constraint forced). Names are case-insensitive and may be plural: ``kilojoules``,
``square metres``, ``meters per second squared``, ``degrees Celsius``, ``micron``,
``angstroms``, ``percent``. Prefixes: P T G M k h da d c m μ (also ``u`` before m g L M
mol A V W F J N Pa) n p f; h, da, d and c only before the units that use them (m g L,
hPa); atto and smaller are left out (``as``, ``am`` are words). ``in`` (inch) and bare
``a`` (year) are not units.
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction

from sci_tasks.metrics.constraints.escaping import read_latex
from sci_tasks.metrics.constraints.unit_words import (
    NOT_UNITS,
    Factors,
    folded_readings,
    glued_readings,
    is_letter,
    may_start_unit,
    name_reading,
    prefix_ok,
    singular,
    symbol_readings,
)
from sci_tasks.metrics.constraints.units import (
    NAMES,
    PREFIX_WORDS,
    Unit,
    make_unit,
)

# Implicit (space) products without an exponent: m / s / h after these.
_SPACE_PRODUCT = (frozenset({"N", "W", "A", "V", "Pa", "J"}), frozenset({"m", "s", "h"}))

# --------------------------------------------------------------------------- cleaning

_WRAPPER_RE = re.compile(
    r"\\(?:mathrm|text|textrm|mathit|textit|rm|operatorname|mbox|mathsf|textsf|unit|si|"
    r"mathup|textup|ensuremath|mathbf|textbf|boldsymbol|bm|mathbfit)[ \t]*"
    r"\{((?:[^{}]|\{[^{}]*\})*)\}"
)
_SI_RE = re.compile(r"\\(?:SI|qty)[ \t]*\{([^{}]*)\}[ \t]*\{([^{}]*)\}")
_FRAC_RE = re.compile(
    r"\\[dt]?frac[ \t]*\{((?:[^{}]|\{[^{}]*\})*)\}[ \t]*\{((?:[^{}]|\{[^{}]*\})*)\}"
)
# "wt.%", "wt. %", "at %": the percent kinds written with a dot or a space
_PERCENT_KIND_RE = re.compile(r"\b(wt|at|vol|mol)[ \t]*\.?[ \t]*%")
_DEGREE_RE = re.compile(r"\^[ \t]*\{?[ \t]*\\circ[ \t]*\}?|\\circ|\\degree|\\textdegree")
_ANGSTROM_RE = re.compile(
    r"\\(?:AA|angstrom)(?![A-Za-z])|\\(?:mathring|r)[ \t]*\{?[ \t]*A[ \t]*\}?"
)
_LATEX_SIMPLE: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\\(?:mu|micro)(?![A-Za-z])[ \t]*"), "μ"),
    (re.compile(r"\\(?:Omega|ohm)(?![A-Za-z])"), "Ω"),
    (re.compile(r"\\(?:cdot|bullet|centerdot)(?![A-Za-z])"), "·"),
    (re.compile(r"\\(?:left|right|big|Big|bigl|bigr|Bigl|Bigr)(?![A-Za-z])"), ""),
    (re.compile(r"\\[()\[\]]"), " "),  # math delimiters \( \) \[ \], like $
    (re.compile(r"\\(?:quad|qquad|thinspace|enspace)(?![A-Za-z])|\\[,;:! ]|~"), " "),
    (re.compile(r"\\%"), "%"),
    (re.compile(r"\\permil(?![A-Za-z])"), "‰"),
)
_CHAR_MAP = str.maketrans(
    {
        "\u00b5": "\u03bc",  # micro sign -> Greek mu
        "\u212b": "\u00c5",  # angstrom sign -> A with ring
        "\u2126": "\u03a9",  # ohm sign -> Greek omega
        "\u212a": "K",  # kelvin sign
        "º": "°",
        "˚": "°",
        "−": "-",
        "⋅": "·",
        "∙": "·",
        "•": "·",
        "$": None,
        "\u00a0": " ",
        "\u2009": " ",
        "\u202f": " ",
    }
)


_CHAR_MAP_RE = re.compile("[" + re.escape("".join(chr(k) for k in _CHAR_MAP)) + "]")


def clean_unit_text(text: str) -> str:
    """``text`` with the LaTeX and Unicode spellings of units rewritten (module docstring),
    LaTeX escaped inside JSON strings first read back (``escaping.read_latex``)."""
    if "\\" in text:
        text = read_latex(text, keep_length=False)
        text = _SI_RE.sub(r"\1 \2", text)
        # before the wrappers go: "\text{MPa}\cdot\text{m}" must not become "MPa\cdotm"
        for pattern, repl in _LATEX_SIMPLE:
            text = pattern.sub(repl, text)
        for _ in range(2):
            text = _WRAPPER_RE.sub(r"\1", text)
        text = _DEGREE_RE.sub("°", text)
        text = _ANGSTROM_RE.sub("Å", text)
        for _ in range(2):
            text = _FRAC_RE.sub(r"(\1)/(\2)", text)
    if "%" in text:
        text = _PERCENT_KIND_RE.sub(r"\1%", text)
    text = text.replace("A\u030a", "Å").replace("℃", "°C").replace("℉", "°F")
    return _CHAR_MAP_RE.sub(lambda m: _CHAR_MAP[ord(m.group())] or "", text)


# --------------------------------------------------------------------------- grammar

_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_SUP_CHARS = frozenset("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺")
_SIGNS = "-+–"
_SPACE = " \t"
_MAX_ALTERNATIVES = 16
LOOKAHEAD = 120  # characters a unit may span


# The first words of the two-word names ("electron volt"), and the prefix words a name's
# first word may begin with ("" first): a word that is none of these starts no two-word name.
_TWO_WORD_FIRSTS = frozenset(name.split()[0] for name in NAMES if " " in name)
_PREFIX_CHOICES = (("", ""), *PREFIX_WORDS.items())


class _Reader:
    """Recursive-descent reader over ``s[i:end]`` (see the module docstring)."""

    def __init__(self, s: str, end: int, fold: bool = True) -> None:
        self.s = s
        self.end = end
        self.fold = fold

    # -- low level --------------------------------------------------------------------

    def _skip_space(self, i: int) -> int:
        while i < self.end and self.s[i] in _SPACE:
            i += 1
        return i

    def _word(self, i: int) -> tuple[str, int]:
        j = i
        while j < self.end and j - i < 24 and is_letter(self.s[j]):
            j += 1
        return self.s[i:j], j

    def _int(self, i: int) -> tuple[int | None, int]:
        j = i
        while j < self.end and j - i < 3 and self.s[j].isdigit():
            j += 1
        return (int(self.s[i:j]), j) if j > i else (None, i)

    # -- exponents --------------------------------------------------------------------

    def _exponent(self, i: int, glued_ok: bool, after_space: bool) -> tuple[Fraction | None, int]:
        s, end = self.s, self.end
        j = self._skip_space(i)
        if j < end and (s[j] == "^" or s.startswith("**", j)):
            j += 1 if s[j] == "^" else 2
            j = self._skip_space(j)
            close = ""
            if j < end and s[j] in "{(":
                close = "}" if s[j] == "{" else ")"
                j = self._skip_space(j + 1)
            sign = 1
            if j < end and s[j] in _SIGNS:
                sign = -1 if s[j] != "+" else 1
                j = self._skip_space(j + 1)
            num, j = self._int(j)
            if num is None:
                return None, i
            value = Fraction(sign * num)
            if j + 1 < end and s[j] == "/" and s[j + 1].isdigit():
                den, j2 = self._int(j + 1)
                if den:
                    value, j = Fraction(sign * num, den), j2
            elif j + 1 < end and s[j] == "." and s[j + 1].isdigit():
                _, j2 = self._int(j + 1)
                value, j = sign * Fraction(f"{num}.{s[j + 1 : j2]}"), j2
            if close:
                j = self._skip_space(j)
                if j < end and s[j] == close:
                    j += 1
                else:
                    return None, i
            return value, j
        if i < end and s[i] in _SUP_CHARS:
            j = i
            while j < end and s[j] in _SUP_CHARS:
                j += 1
            text = s[i:j].translate(_SUPERSCRIPTS)
            if re.fullmatch(r"[-+]?[0-9]{1,2}", text):
                return Fraction(int(text)), j
            return None, i
        if glued_ok and i < end:
            j = i
            sign = 1
            if s[j] in _SIGNS:
                sign, j = -1 if s[j] != "+" else 1, j + 1
            nxt = s[j + 1 : j + 2]
            if j < end and s[j] in "1234" and not nxt.isalnum():
                if after_space and sign > 0:
                    return None, i
                if nxt in (".", ",") and s[j + 2 : j + 3].isdigit():
                    return None, i  # "m2.5", "s1,000": not an exponent
                return Fraction(sign * int(s[j])), j + 1
        return None, i

    # -- terms ------------------------------------------------------------------------

    def _atom(self, i: int) -> tuple[list[Factors], int, bool] | None:
        """Readings of the unit atom at ``i``, where it ends, and whether it is a symbol
        (a glued exponent may follow a symbol, not a name)."""
        s, end = self.s, self.end
        if i >= end:
            return None
        ch = s[i]
        if ch == "%":
            return [(("%", "", Fraction(1)),)], i + 1, False
        if ch == "‰":
            return [(("‰", "", Fraction(1)),)], i + 1, False
        if ch == "°":
            j = i + 1
            k = j + 1 if j < end and s[j] == " " else j
            if k < end and s[k] in "CF" and not (k + 1 < end and is_letter(s[k + 1])):
                return [((f"°{s[k]}", "", Fraction(1)),)], k + 1, False
            return [(("°", "", Fraction(1)),)], j, False
        if not is_letter(ch):
            return None
        word, j = self._word(i)
        if j < end and s[j] == "%" and word in ("wt", "at", "vol", "mol"):
            return [((word + "%", "", Fraction(1)),)], j + 1, False
        if word in NOT_UNITS:
            return None
        readings = list(symbol_readings(word))
        is_symbol = bool(readings)
        low = word.lower()
        if low in ("degree", "degrees", "deg"):
            k = self._skip_space(j)
            nxt, k2 = self._word(k)
            temp = {"celsius": "°C", "centigrade": "°C", "c": "°C", "fahrenheit": "°F", "f": "°F"}
            if nxt.lower() in temp and (nxt.lower() not in "cf" or nxt.isupper()):
                return [((temp[nxt.lower()], "", Fraction(1)),)], k2, False
            if nxt.lower() == "kelvin":
                return [(("K", "", Fraction(1)),)], k2, False
            return [(("°", "", Fraction(1)),)], j, False
        if not readings:
            two = self._two_word_name(word, j)
            if two:
                return two
            name = name_reading(word)
            if name:
                sym, pfx, exp = name
                return [((sym, pfx, Fraction(exp)),)], j, False
            readings = list(glued_readings(word))
            is_symbol = bool(readings)
        if self.fold and len(word) >= 2 and (not readings or word.isupper()):
            extra = [r for r in folded_readings(word) if r not in readings]
            readings = readings + extra
            is_symbol = is_symbol or bool(extra)
        if not readings:
            return None
        return readings[:_MAX_ALTERNATIVES], j, is_symbol

    def _two_word_name(self, word: str, j: int) -> tuple[list[Factors], int, bool] | None:
        first = word.lower()
        # the prefix words ("kilo") ``first`` may carry before the first word of a name
        prefixes = [
            (p, q)
            for p, q in _PREFIX_CHOICES
            if first.startswith(p) and first[len(p) :] in _TWO_WORD_FIRSTS
        ]
        if not prefixes:
            return None
        k = self._skip_space(j)
        if k == j or k >= self.end:
            return None
        nxt, k2 = self._word(k)
        if not nxt:
            return None
        for second in singular(nxt.lower()):
            key = f"{first} {second}"
            for prefix_word, prefix in prefixes:
                base = key[len(prefix_word) :] if prefix_word else key
                if base in NAMES:
                    sym, pfx, exp = NAMES[base]
                    if prefix and (pfx or not prefix_ok(prefix, sym)):
                        continue
                    return [((sym, prefix or pfx, Fraction(exp)),)], k2, False
        return None

    def term(self, i: int, depth: int, after_space: bool) -> tuple[list[Factors], int] | None:
        s, end = self.s, self.end
        if i < end and s[i] == "(" and depth < 2 and not after_space:
            inner = self.unit(i + 1, depth + 1)
            if inner is None:
                return None
            readings, j = inner
            j = self._skip_space(j)
            if j >= end or s[j] != ")":
                return None
            exp, j2 = self._exponent(j + 1, False, False)
            if exp is not None:
                readings = [tuple((a, b, e * exp) for a, b, e in r) for r in readings]
                j = j2 - 1
            return readings, j + 1
        power = None
        word, j = self._word(i)
        low = word.lower()
        if low in ("square", "sq", "cubic", "cu") and j < end and s[j] in " .":
            k = self._skip_space(j + (1 if s[j] == "." else 0))
            if k > j or s[j] == ".":
                power, i = Fraction(3 if low.startswith("cu") else 2), k
        atom = self._atom(i)
        if atom is None:
            return None
        readings, j, is_symbol = atom
        exp, j2 = self._exponent(j, glued_ok=is_symbol, after_space=after_space)
        if exp is None:
            k = self._skip_space(j)
            nxt, k2 = self._word(k)
            if k > j and nxt.lower() in ("squared", "cubed"):
                exp, j2 = Fraction(2 if nxt.lower() == "squared" else 3), k2
        if after_space and exp is None and power is None:
            return None  # an implicit product needs an explicit exponent (or N m, kW h ...)
        if power is not None:
            exp = power * (exp or 1)
        if exp is not None:
            readings = [tuple((a, b, e * exp) for a, b, e in r) for r in readings]
            j = j2
        return readings, j

    def unit(self, i: int, depth: int = 0) -> tuple[list[Factors], int] | None:
        """The longest unit starting exactly at ``i``: (readings, end) or None."""
        s, end = self.s, self.end
        first = self.term(i, depth, after_space=False)
        if first is None:
            return None
        readings, j = first
        best = (readings, j)
        sign = 1
        while j < end:
            k = self._skip_space(j)
            spaced = k > j
            op = ""
            if k < end and s[k] == "/":
                op, k = "/", k + 1
            elif k < end and s[k] in "·*" and not s.startswith("**", k):
                op, k = "*", k + 1
            elif not spaced and k + 1 < end and s[k] == "." and s[k + 1].isalpha():
                op, k = "*", k + 1
            else:
                word, k2 = self._word(k)
                if word.lower() == "per" and k2 < end and s[k2] in _SPACE:
                    op, k = "/", k2
                elif spaced:
                    op = " "
                else:
                    break
            k = self._skip_space(k)
            # an implicit product needs an exponent, except inside a denominator (J/mol K)
            term = self.term(k, depth, after_space=op == " " and sign > 0 and depth == 0)
            if term is None and op == " ":
                term = self._space_product(best[0], k, depth) or self._bare_before_power(k, depth)
            if term is None:
                break
            if op == "/":
                sign = -1
            new, j = term
            combined = [a + self._scaled(b, sign) for a in best[0] for b in new]
            best = (combined[:_MAX_ALTERNATIVES], j)
        return best

    def _space_product(
        self, left: list[Factors], k: int, depth: int
    ) -> tuple[list[Factors], int] | None:
        """ "N m", "kW h", "Pa s": a bare m / s / h after N, W, A, V, Pa or J."""
        if not left or left[0][-1][0] not in _SPACE_PRODUCT[0]:
            return None
        term = self.term(k, depth, after_space=False)
        if term and all(r[-1][0] in _SPACE_PRODUCT[1] for r in term[0]):
            return term
        return None

    def _bare_before_power(self, k: int, depth: int) -> tuple[list[Factors], int] | None:
        """ "kg m s^-2", "kg m/s": a bare symbol followed by "/" or by a term that carries an
        exponent."""
        term = self.term(k, depth, after_space=False)
        if term is None:
            return None
        j = self._skip_space(term[1])
        if j < self.end and self.s[j] in "/·*":
            return term
        if j > term[1] and self.term(j, depth, after_space=True) is not None:
            return term
        return None

    @staticmethod
    def _scaled(reading: Factors, sign: int) -> Factors:
        return reading if sign == 1 else tuple((a, b, -e) for a, b, e in reading)


def _units_of(readings: list[Factors]) -> list[Unit]:
    out: list[Unit] = []
    for reading in readings:
        acc: dict[tuple[str, str], Fraction] = {}
        for sym, pfx, exp in reading:
            key = (sym, pfx)
            acc[key] = acc[key] + exp if key in acc else exp
        unit = make_unit(acc)
        if unit.factors and unit not in out:
            out.append(unit)
    return out


def read_unit(text: str, pos: int, fold: bool = True) -> tuple[list[Unit], int]:
    """The unit written at ``text[pos:]`` (already cleaned): its readings, best first (the
    case-sensitive one, then case-insensitive ones), and where it ends; ``([], pos)`` if
    none. A unit never runs past a newline or ``LOOKAHEAD`` characters."""
    nl = text.find("\n", pos, pos + LOOKAHEAD)
    end = min(len(text), pos + LOOKAHEAD) if nl < 0 else nl
    reader = _Reader(text, end, fold)
    # a letter run no unit begins with (``may_start_unit``) reads as nothing, unparsed:
    # most words after a cue are prose ("in the", "in this case"); "°" is an atom of its own
    if pos < end and text[pos].isalpha() and not may_start_unit(reader._word(pos)[0]):
        return [], pos
    found = reader.unit(pos)
    if found is None:
        return [], pos
    readings, stop = found
    # trailing punctuation the reader may have consumed is never part of a unit
    return _units_of(readings), stop


def parse_unit(text: str) -> list[Unit]:
    """Readings of ``text`` when the whole of it (stripped, cleaned) is one unit, else []."""
    cleaned = clean_unit_text(text).strip().strip(".")
    invert = re.match(r"1[ \t]*/[ \t]*", cleaned)  # "1/s"
    if invert:
        cleaned = cleaned[invert.end() :]
    if not cleaned:
        return []
    units, stop = read_unit(cleaned, 0)
    if stop != len(cleaned):
        return []
    if invert:
        units = [Unit(tuple(sorted((s, p, -e) for s, p, e in u.factors))) for u in units]
    return units


# --------------------------------------------------------------------------- after a number

# "per cm^3", "/mL" after a number; not one bare letter ("100 / t" is a formula, not 1/tonne)
_PER_START_RE = re.compile(r"(?:per[ \t]+|/[ \t]*)(?=(?:[^\W\d_]|°)(?:[^\W_]|\^)|\()")


@functools.lru_cache(maxsize=65536)
def read_window(window: str) -> tuple[tuple[Unit, ...], int]:
    """The unit at the start of ``window`` (the text after a number), and its length."""
    reader = _Reader(window, len(window))
    found = reader.unit(0)
    if found is not None:
        return tuple(_units_of(found[0])), found[1]
    per = _PER_START_RE.match(window)  # "3e15 per cm^3", "5 /mL": a reciprocal unit
    found = reader.unit(per.end()) if per else None
    if found is None:
        return (), 0
    units = _units_of(found[0])
    return tuple(Unit(tuple(sorted((s, p, -e) for s, p, e in u.factors))) for u in units), found[1]
