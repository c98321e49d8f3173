"""Reading one side of an equation as a formula (``relations.py`` compares relations).

``Reader`` turns a side written in LaTeX (commands, ``\\frac``, ``^{}``, ``_{}``), Unicode
(Greek letters, super- and subscripts) or plain text into a Python expression over
placeholder names; ``parse_side`` parses that with sympy's ``parse_expr``. A symbol is a
letter (Latin or Greek) with an optional subscript and primes; its *base* is the letter.
Runs of two or three Latin letters are products (``nRT``); a longer word, an English short
word, or punctuation ends the formula (``NotFormula``). Numbers become *slots* when the
reader generalises them (a solution's equation), else stay numbers.
"""

from __future__ import annotations

import re

import sympy
from sympy.parsing.sympy_parser import parse_expr

GREEK = (
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu "
    "xi pi rho sigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma "
    "Upsilon Phi Psi Omega"
).split()
_UNICODE_GREEK = dict(
    zip(
        "αβγδεζηθικλμνξπρστυφχψωΓΔΘΛΞΠΣΥΦΨΩϵϑϕµ",
        "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi pi rho sigma "
        "tau upsilon phi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi "
        "Omega epsilon theta phi mu".split(),
        strict=True,
    )
)
_ALIASES = {"varepsilon": "epsilon", "vartheta": "theta", "varphi": "phi"}
FUNCTIONS = {
    "sin": sympy.sin, "cos": sympy.cos, "tan": sympy.tan, "cot": sympy.cot, "sec": sympy.sec,
    "csc": sympy.csc, "arcsin": sympy.asin, "arccos": sympy.acos, "arctan": sympy.atan,
    "sinh": sympy.sinh, "cosh": sympy.cosh, "tanh": sympy.tanh, "ln": sympy.log,
    "log": sympy.log, "exp": sympy.exp, "sqrt": sympy.sqrt,
}  # fmt: skip
# short English words that end a formula written in prose ("so the angle is sin θ = ...")
WORDS = frozenset(
    "a an the is are was be so as at by of to in on or and for we get gives its it if then "
    "use using with from into thus here where which that this has have let our one two per "
    "our you can not no yes".split()
)
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉ₐₑₒₓₘₙₖₚₛₜᵢⱼ", "0123456789aeoxmnkpstij")
_SUP_CHARS = "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺"
_DIGITS = "0123456789"
_SUB_CHARS = "₀₁₂₃₄₅₆₇₈₉ₐₑₒₓₘₙₖₚₛₜᵢⱼ"
DROP_COMMANDS = frozenset(
    "left right big Big bigg Bigg quad qquad displaystyle textstyle mathrm mathit mathbf "
    "boldsymbol mathsf operatorname limits nolimits , ; ! : space".split()
)
_TEXT_COMMANDS = ("\\text", "\\textrm", "\\mathrm", "\\operatorname", "\\mathit", "\\mathbf")
_NUMBER_RE = re.compile(r"[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|\.[0-9]+")


_DEGREE_RE = re.compile(r"\^\s*\{?\s*\\circ\s*\}?|\^\s*\{\s*o\s*\}")


# "Fmax", "Teff", "Vmin": a symbol with a descriptive subscript written on the line
_GLUED_SUBSCRIPT_RE = re.compile(
    r"(?<![A-Za-z\\])([A-Za-z])(max|min|avg|eff|tot|eng|crit|ext|obs|net)(?![A-Za-z])"
)
_AFTER_NUMBER_RE = re.compile(r"[0-9](?:\s|\\[,;!: ]|~)*$")


class NotFormula(ValueError):
    """The text is not a formula the reader can parse."""


# ---- reading ----------------------------------------------------------------------------

_TIMES_TEN_RE = re.compile(
    r"([0-9]+(?:\.[0-9]+)?)[ \t]*\*[ \t]*10[ \t]*"
    rf"(?:\^[ \t]*\(?[ \t]*([-+]?[ \t]*[0-9]+)[ \t]*\)?|([{_SUP_CHARS}]+))"
)


def _as_e_notation(m: re.Match[str]) -> str:
    power = (m.group(2) or m.group(3).translate(_SUPERSCRIPTS)).replace(" ", "")
    return f"{m.group(1)}e{power}"


class Reader:
    """Turns one side of an equation into a Python expression over placeholder names."""

    def __init__(self, generalise_numbers: bool) -> None:
        self.generalise = generalise_numbers
        self.names: dict[str, sympy.Symbol] = {}  # placeholder -> symbol
        self.bases: dict[sympy.Symbol, str] = {}
        self.slots: list[tuple[sympy.Symbol, float]] = []
        self.functions: set[str] = set()

    # -- LaTeX to a linear form
    def linear(self, text: str) -> str:
        text = text.replace("\\left", "").replace("\\right", "")
        text = _DEGREE_RE.sub("°", text)
        for cmd in _TEXT_COMMANDS:
            # \text{...} after a number is its unit (dropped); elsewhere a name (kept)
            while cmd + "{" in text:
                i = text.index(cmd + "{")
                close = _close(text, i + len(cmd))
                inner = text[i + len(cmd) + 1 : close]
                if _AFTER_NUMBER_RE.search(text[:i]):
                    inner = ""
                if text[:i].endswith("_"):  # F_\text{max}: the subscript max
                    text = text[:i] + "{" + inner + "}" + text[close + 1 :]
                    continue
                text = text[:i] + " " + inner + " " + text[close + 1 :]
        out = []
        i = 0
        while i < len(text):
            ch = text[i]
            if ch == "\\":
                m = re.match(r"\\([A-Za-z]+|.)", text[i:])
                if not m:
                    i += 1
                    continue
                name = m.group(1)
                i += len(m.group())
                if name in ("frac", "dfrac", "tfrac"):
                    a_end = _close(text, _skip(text, i))
                    a = text[_skip(text, i) + 1 : a_end]
                    b_start = _skip(text, a_end + 1)
                    b_end = _close(text, b_start)
                    out.append(f"(({self.linear(a)})/({self.linear(text[b_start + 1 : b_end])}))")
                    i = b_end + 1
                elif name == "sqrt":
                    j = _skip(text, i)
                    if j < len(text) and text[j] == "[":
                        k = text.index("]", j)
                        root = text[j + 1 : k]
                        j = _skip(text, k + 1)
                        end = _close(text, j)
                        inner = self.linear(text[j + 1 : end])
                        out.append(f"(({inner})^(1/({root})))")
                    else:
                        end = _close(text, j)
                        out.append(f" sqrt({self.linear(text[j + 1 : end])})")
                    i = end + 1
                elif name in ("cdot", "times", "ast"):
                    out.append("*")
                elif name in ("circ", "degree"):
                    out.append("°")
                elif name in ("div",):
                    out.append("/")
                elif name in FUNCTIONS:
                    out.append(f" {name} ")
                elif name in GREEK:  # no space after: a subscript may follow
                    out.append(f" {name}")
                elif name in ("hbar",):
                    out.append(" hbar ")
                elif name in DROP_COMMANDS or not name.isalpha():
                    out.append(" ")
                else:
                    raise NotFormula(f"LaTeX command \\{name}")
            elif ch in "{}":
                out.append("(" if ch == "{" else ")")
                i += 1
            else:
                out.append(ch)
                i += 1
        return "".join(out)

    # -- the linear form to a Python expression
    def python(self, text: str) -> str:
        text = text.replace("−", "-").replace("–", "-").replace("×", "*").replace("·", "*")
        text = text.replace("⋅", "*").replace("∙", "*").replace("÷", "/").replace("√", " sqrt")
        text = text.replace("½", "(1/2)").replace("[", "(").replace("]", ")")
        # "1.0 × 10⁻³", "1.0*10^(-3)": one number (one slot), as "1.0e-3"
        text = _TIMES_TEN_RE.sub(_as_e_notation, text)
        text = _GLUED_SUBSCRIPT_RE.sub(r"\1_(\2)", text)
        out: list[str] = []
        i, n = 0, len(text)
        prev_atom = False  # the previous token ends an operand (implicit product follows)
        pending_function = False
        while i < n:
            ch = text[i]
            if ch.isspace():
                i += 1
                continue
            if ch in _DIGITS or (ch == "." and i + 1 < n and text[i + 1] in _DIGITS):
                m = _NUMBER_RE.match(text, i)
                assert m
                raw = m.group().replace(",", ".")
                i = m.end()
                if i < n and text[i] == "°":
                    i += 1
                if prev_atom:
                    out.append("*")
                # an exponent stays a number: v^2 is a square whatever the values
                exponent = bool(out) and out[-1] in ("**", "**(")
                out.append(raw if exponent else self._number(raw))
                prev_atom, pending_function = True, False
                continue
            if ch in _SUP_CHARS:
                j = i
                while j < n and text[j] in _SUP_CHARS:
                    j += 1
                out.append(f"**({text[i:j].translate(_SUPERSCRIPTS)})")
                i = j
                continue
            if ch == "^":
                out.append("**")
                if text[i + 1 : i + 2] == "(":  # ^{2} became ^(2)
                    out.append("(")
                    i += 1
                i += 1
                prev_atom = False
                continue
            if ch in "+-*/":
                out.append(ch)
                i += 1
                prev_atom = pending_function = False
                continue
            if ch == "(":
                if prev_atom and not pending_function:
                    out.append("*")
                out.append("(")
                i += 1
                prev_atom = pending_function = False
                continue
            if ch == ")":
                out.append(")")
                i += 1
                prev_atom = True
                continue
            if ch in _UNICODE_GREEK or (ch.isalpha() and ch.isascii()):
                j = i
                if ch in _UNICODE_GREEK:
                    word, j = _UNICODE_GREEK[ch], i + 1
                else:
                    while j < n and text[j].isascii() and text[j].isalpha():
                        j += 1
                    word = text[i:j]
                tokens = self._word(word)
                for kind, value in tokens:
                    if kind == "function":
                        if prev_atom:
                            out.append("*")
                        out.append(value)
                        self.functions.add(value)
                        # "sin θ2" / "sin 2θ": the argument is the next operand
                        j, arg = self._bare_argument(text, j)
                        out.append(f"({arg})" if arg is not None else "")
                        prev_atom, pending_function = arg is not None, arg is None
                        continue
                    # a symbol, with its subscript and primes from the text after it
                    sub, j = _subscript(text, j) if (kind, value) == tokens[-1] else ("", j)
                    if (kind, value) == tokens[-1]:  # n(Na2CO3), c(HCl): a label, not a product
                        label, j = _species_label(text, j)
                        sub += label
                    if prev_atom:
                        out.append("*")
                    out.append(self._symbol(value, sub))
                    prev_atom, pending_function = True, False
                i = j
                continue
            if ch == "_":  # a subscript after something that is not a symbol: ignore it
                _, k = _subscript(text, i)
                i = max(k, i + 1)
                continue
            if ch in "°'′!":
                i += 1
                continue
            if ch in _SUB_CHARS:
                i += 1
                continue
            raise NotFormula(f"character {ch!r}")
        return "".join(out)

    def _bare_argument(self, text: str, j: int) -> tuple[int, str | None]:
        """The argument of a function written without brackets: an optional number and one
        symbol with its subscript (``sin 2θ_1``), or nothing when a bracket follows."""
        k = j
        while k < len(text) and text[k] == " ":
            k += 1
        if k >= len(text) or text[k] == "(":
            return j, None
        if text[k] == "^":  # sin^2 θ
            return j, None
        m = re.match(r"(\d+(?:\.\d+)?)?[ ]?(°)?", text[k:])
        number = m.group(1) if m else None
        k2 = k + (m.end() if m else 0)
        if k2 < len(text) and (
            text[k2] in _UNICODE_GREEK or (text[k2].isascii() and text[k2].isalpha())
        ):
            if text[k2] in _UNICODE_GREEK:
                word, end = _UNICODE_GREEK[text[k2]], k2 + 1
            else:
                end = k2
                while end < len(text) and text[end].isascii() and text[end].isalpha():
                    end += 1
                word = text[k2:end]
                if word not in GREEK:
                    word, end = word[0], k2 + 1
            sub, end = _subscript(text, end)
            sym = self._symbol(_ALIASES.get(word, word), sub)
            return end, (f"{self._number(number)}*{sym}" if number else sym)
        if number:
            return k2, self._number(number)
        return j, None

    def _word(self, word: str) -> list[tuple[str, str]]:
        if word in FUNCTIONS:
            return [("function", word)]
        if word in GREEK:
            return [("symbol", _ALIASES.get(word, word))]
        if word == "hbar":
            return [("symbol", "hbar")]
        if (len(word) > 1 and word.lower() in WORDS) or len(word) > 3:
            # a Greek name glued to letters ("thetaB") or a word: not a formula
            for g in GREEK:
                if word.startswith(g) and len(word) - len(g) <= 2:
                    return [("symbol", g), *[("symbol", c) for c in word[len(g) :]]]
            raise NotFormula(f"word {word!r}")
        return [("symbol", c) for c in word]

    def _symbol(self, base: str, sub: str) -> str:
        name = f"{base}_{sub}" if sub else base
        placeholder = f"s{len(self.names)}_"
        for key, sym in self.names.items():
            if sym.name == name:
                return key
        symbol = sympy.Symbol(name, positive=True)
        self.names[placeholder] = symbol
        self.bases[symbol] = base.lower() if len(base) == 1 else base
        return placeholder

    def _number(self, raw: str) -> str:
        if not self.generalise:
            return raw
        value = float(raw)
        for symbol, known in self.slots:
            if known == value:  # "700 × 343/(343 − 25)": one value substituted for one variable
                return str(symbol)
        placeholder = f"c{len(self.slots)}_"
        symbol = sympy.Symbol(placeholder, positive=True)
        self.slots.append((symbol, value))
        self.names[placeholder] = symbol
        return placeholder


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t":
        i += 1
    return i


def _close(text: str, open_pos: int) -> int:
    """Index of the brace closing the one at ``open_pos`` (a bare token when no brace)."""
    if open_pos >= len(text):
        raise NotFormula("unclosed group")
    if text[open_pos] != "{":
        # \frac12: single-character arguments
        return open_pos
    depth = 0
    for k in range(open_pos, len(text)):
        if text[k] == "{":
            depth += 1
        elif text[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    raise NotFormula("unclosed brace")


def _subscript(text: str, j: int) -> tuple[str, int]:
    """A subscript (``_1``, ``_{in}``, ``_(in)`` after LaTeX braces became brackets,
    Unicode ``₁``, a digit run glued to the letter ``θ2``) and primes after a symbol."""
    sub = ""
    if j < len(text) and text[j] == "_":
        k = j + 1
        if k < len(text) and text[k] == "(":
            end = text.find(")", k)
            if end < 0:
                raise NotFormula("unclosed subscript")
            sub, j = text[k + 1 : end], end + 1
        else:
            m = re.match(r"[A-Za-z0-9]+", text[k:])
            if m:
                sub, j = (m.group()[0] if len(m.group()) > 3 else m.group()), k + len(m.group())
    elif j < len(text) and text[j] in _SUB_CHARS:
        k = j
        while k < len(text) and text[k] in _SUB_CHARS:
            k += 1
        sub, j = text[j:k].translate(_SUBSCRIPTS), k
    else:
        m = re.match(r"\d+(?![.\d])", text[j:])
        if m and len(m.group()) <= 2:
            sub, j = m.group(), j + len(m.group())
    primes = 0
    while j < len(text) and text[j] in "'′":
        primes += 1
        j += 1
    sub = re.sub(r"[^A-Za-z0-9]", "", sub.translate(_SUBSCRIPTS))
    return sub + "p" * primes, j


_SPECIES_RE = re.compile(r"\(([ A-Za-z0-9_()]{2,40}?)\)")


def _species_label(text: str, j: int) -> tuple[str, int]:
    """A species or label in brackets right after a symbol (``n(Na2CO3)``, ``c(HCl)``), read
    as the symbol's subscript: letters and digits only, with two capitals or a capital and
    a lower-case letter (``n(x)`` stays a product)."""
    m = _SPECIES_RE.match(text, j)
    if not m:
        return "", j
    inner = re.sub(r"[^A-Za-z0-9]", "", m.group(1))
    if len(inner) < 2 or not re.search(r"[A-Z]", inner) or not re.fullmatch(r"[A-Za-z0-9]+", inner):
        return "", j
    return inner, m.end()


def parse_side(reader: Reader, text: str) -> sympy.Expr:
    python = reader.python(reader.linear(text))
    if not python.strip():
        raise NotFormula("empty side")
    local = {**reader.names, **{name: FUNCTIONS[name] for name in FUNCTIONS}}
    try:
        expr = parse_expr(python, local_dict=local, evaluate=True)
    except Exception as exc:  # sympy's parser says why; the side is simply not a formula
        raise NotFormula(f"unparsable {python!r}") from exc
    if not isinstance(expr, sympy.Expr):
        raise NotFormula("not an expression")
    return expr
