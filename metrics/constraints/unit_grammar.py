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
from collections.abc import Iterable
from fractions import Fraction

from sci_tasks.metrics.constraints.escaping import read_latex
from sci_tasks.metrics.constraints.units import (
    FOLDED,
    NAMES,
    NARROW_PREFIXES,
    PREFIX_WORDS,
    PREFIXES,
    SYMBOL_ALIASES,
    SYMBOLS,
    Unit,
    make_unit,
)

_YEAR = "yr"  # ka, Ma, Ga (annum) are kyr, Myr, Gyr
_U_MICRO = frozenset({"m", "g", "L", "M", "mol", "A", "V", "W", "F", "J", "N", "Pa"})
# Pieces two glued symbols may be made of ("kWh", "Nm", "mAh", "Pas").
_GLUE_PIECES = frozenset({"W", "h", "A", "V", "N", "m", "s", "Pa", "J", "eV"})
# Implicit (space) products without an exponent: m / s / h after these.
_SPACE_PRODUCT = (frozenset({"N", "W", "A", "V", "Pa", "J"}), frozenset({"m", "s", "h"}))
_NOT_UNITS = frozenset({"in", "a", "as", "at", "am", "an", "is", "it", "on", "or", "of", "to"})

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
_LETTER_EXTRA = frozenset("μΩÅ°")
_MAX_ALTERNATIVES = 16
LOOKAHEAD = 120  # characters a unit may span

# A term: alternative readings, each a list of (symbol, prefix, exponent) factors.
_Factors = tuple[tuple[str, str, Fraction], ...]


def _is_letter(ch: str) -> bool:
    return ch.isalpha() or ch in _LETTER_EXTRA


def _prefix_ok(prefix: str, sym: str) -> bool:
    info = SYMBOLS[sym]
    if not prefix:
        return info.bare
    if info.prefixes is not None:
        return prefix in info.prefixes
    narrow = NARROW_PREFIXES.get(prefix)
    return narrow is None or sym in narrow


@functools.lru_cache(maxsize=65536)
def _symbol_readings(word: str) -> tuple[_Factors, ...]:
    """Case-sensitive readings of a letter run as a (prefixed) symbol."""
    out: list[_Factors] = []
    if word in SYMBOLS and _prefix_ok("", word):
        out.append(((word, "", Fraction(1)),))
    if word in SYMBOL_ALIASES:
        sym, pfx, exp = SYMBOL_ALIASES[word]
        out.append(((sym, pfx, Fraction(exp)),))
    if out:
        return tuple(out)
    for prefix in PREFIXES:
        if word.startswith(prefix) and len(word) > len(prefix):
            rest = word[len(prefix) :]
            if rest in SYMBOLS and _prefix_ok(prefix, rest):
                out.append(((_YEAR if rest == "a" else rest, prefix, Fraction(1)),))
    if word.startswith("u") and word[1:] in _U_MICRO:
        out.append(((word[1:], "μ", Fraction(1)),))
    return tuple(out)


@functools.lru_cache(maxsize=65536)
def _glued_readings(word: str) -> tuple[_Factors, ...]:
    """Two glued symbols, each optionally prefixed: kWh, Nm, mAh (mixed-case runs only)."""
    if word.isupper() or word.islower():
        return ()
    out: list[_Factors] = []
    for cut in range(1, len(word)):
        left = [r for r in _symbol_readings(word[:cut]) if r[0][0] in _GLUE_PIECES]
        right = [r for r in _symbol_readings(word[cut:]) if r[0][0] in _GLUE_PIECES]
        out.extend(a + b for a in left for b in right)
    return tuple(out)


@functools.lru_cache(maxsize=65536)
def _folded_readings(word: str) -> tuple[_Factors, ...]:
    """Case-insensitive readings of a letter run (for text whose case was forced)."""
    low = word.lower()
    out: list[_Factors] = []
    for sym in FOLDED.get(low, ()):
        out.extend(_symbol_readings(sym))
    for prefix in PREFIXES:
        p = prefix.lower()
        if low.startswith(p) and len(low) > len(p):
            for sym in FOLDED.get(low[len(p) :], ()):
                if sym in SYMBOLS and _prefix_ok(prefix, sym):
                    out.append(((sym, prefix, Fraction(1)),))
    return tuple(out)


def _singular(word: str) -> Iterable[str]:
    yield word
    if word.endswith("s"):
        yield word[:-1]
    if word.endswith("es"):
        yield word[:-2]
    if word.endswith("ies"):
        yield word[:-3] + "y"


@functools.lru_cache(maxsize=65536)
def _name_reading(word: str) -> tuple[str, str, int] | None:
    """A unit name, maybe plural, maybe with a prefix word: kilojoules, micrometre."""
    low = word.lower()
    for form in _singular(low):
        if form in NAMES:
            return NAMES[form]
    for pword, prefix in PREFIX_WORDS.items():
        if low.startswith(pword) and len(low) > len(pword):
            for form in _singular(low[len(pword) :]):
                found = NAMES.get(form)
                if found and not found[1] and _prefix_ok(prefix, found[0]):
                    return (found[0], prefix, found[2])
    return None


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
        while j < self.end and j - i < 24 and _is_letter(self.s[j]):
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

    def _atom(self, i: int) -> tuple[list[_Factors], int, bool] | None:
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
            if k < end and s[k] in "CF" and not (k + 1 < end and _is_letter(s[k + 1])):
                return [((f"°{s[k]}", "", Fraction(1)),)], k + 1, False
            return [(("°", "", Fraction(1)),)], j, False
        if not _is_letter(ch):
            return None
        word, j = self._word(i)
        if j < end and s[j] == "%" and word in ("wt", "at", "vol", "mol"):
            return [((word + "%", "", Fraction(1)),)], j + 1, False
        if word in _NOT_UNITS:
            return None
        readings = list(_symbol_readings(word))
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
            name = _name_reading(word)
            if name:
                sym, pfx, exp = name
                return [((sym, pfx, Fraction(exp)),)], j, False
            readings = list(_glued_readings(word))
            is_symbol = bool(readings)
        if self.fold and len(word) >= 2 and (not readings or word.isupper()):
            extra = [r for r in _folded_readings(word) if r not in readings]
            readings = readings + extra
            is_symbol = is_symbol or bool(extra)
        if not readings:
            return None
        return readings[:_MAX_ALTERNATIVES], j, is_symbol

    def _two_word_name(self, word: str, j: int) -> tuple[list[_Factors], int, bool] | None:
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
        for second in _singular(nxt.lower()):
            key = f"{first} {second}"
            for prefix_word, prefix in prefixes:
                base = key[len(prefix_word) :] if prefix_word else key
                if base in NAMES:
                    sym, pfx, exp = NAMES[base]
                    if prefix and (pfx or not _prefix_ok(prefix, sym)):
                        continue
                    return [((sym, prefix or pfx, Fraction(exp)),)], k2, False
        return None

    def term(self, i: int, depth: int, after_space: bool) -> tuple[list[_Factors], int] | None:
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

    def unit(self, i: int, depth: int = 0) -> tuple[list[_Factors], int] | None:
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
        self, left: list[_Factors], k: int, depth: int
    ) -> tuple[list[_Factors], int] | None:
        """ "N m", "kW h", "Pa s": a bare m / s / h after N, W, A, V, Pa or J."""
        if not left or left[0][-1][0] not in _SPACE_PRODUCT[0]:
            return None
        term = self.term(k, depth, after_space=False)
        if term and all(r[-1][0] in _SPACE_PRODUCT[1] for r in term[0]):
            return term
        return None

    def _bare_before_power(self, k: int, depth: int) -> tuple[list[_Factors], int] | None:
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
    def _scaled(reading: _Factors, sign: int) -> _Factors:
        return reading if sign == 1 else tuple((a, b, -e) for a, b, e in reading)


def _units_of(readings: list[_Factors]) -> list[Unit]:
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

_FIRST_WORDS = frozenset(
    ["square", "sq", "cubic", "cu", "per", "degree", "degrees", "deg"]
    + [name.split()[0] for name in NAMES if " " in name]
)


@functools.lru_cache(maxsize=65536)
def may_start_unit(word: str) -> bool:
    """Whether a unit can begin with this letter run (a cheap filter before parsing)."""
    low = word.lower()
    if low in ("wt", "at", "vol"):  # wt% / at% / vol%: "at" is also a word, read on
        return True
    if word in _NOT_UNITS:
        return False
    if low in _FIRST_WORDS or low.startswith(tuple(PREFIX_WORDS)):
        return True
    return bool(
        _symbol_readings(word)
        or _name_reading(word)
        or _glued_readings(word)
        or (len(word) >= 2 and _folded_readings(word))
    )


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
