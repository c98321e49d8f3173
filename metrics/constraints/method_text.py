"""Method names and formulas as text, normalised for the ``<discipline>_method_constraint``
rule (``methods.py``): names lower-cased without possessives or punctuation
(``name_text``); formulas with LaTeX rewritten (``\\lambda`` -> λ, ``\\sin`` -> sin,
``\\frac{a}{b}`` -> a/b, ``°`` -> 0) and Unicode variants in one spelling (``formula_text``),
compared with spaces, brackets, ``_``, ``^``, ``·``, ``×``, ``*`` ignored between characters
(``formula_regex``); the symbols of a formula and the content words of a description.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

METHOD_WORDS = (
    "law laws equation equations formula formulas formulae method methods relation relations "
    "relationship principle principles rule rules theorem model approach technique analysis "
    "test plot criterion index procedure algorithm theory effect cycle function"
).split()
STOP_WORDS = frozenset(
    (
        "the a an of for to in on at by with and or using use used apply applying applied "
        "via from into its their your this that these those as is are be then than "
        "calculate compute determine find estimate predict give show explain describe "
        "based according first second order step steps value values over per "
    ).split()
    + METHOD_WORDS
)

_POSSESSIVE_RE = re.compile(r"['’ʼ`](?:s\b|(?!\w))")
_NON_WORD_RE = re.compile(r"[\W_]+")


def name_text(text: str) -> str:
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


def formula_text(text: str) -> str:
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
    return "".join(ch for ch in formula_text(formula) if ch not in _GAP_CHARS)


@functools.lru_cache(maxsize=1024)
def formula_regex(formulas: tuple[str, ...]) -> re.Pattern[str] | None:
    """One regex matching any of ``formulas`` (and each with its sides swapped), with the
    ``_GAP`` characters allowed between any two characters; lower case, to be searched in
    lower-cased text by ``formula_search`` (no IGNORECASE flag and no leading assertion,
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


def formula_search(regex: re.Pattern[str], lower: str, limit: int = 10_000) -> str | None:
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


def formula_symbols(text: str) -> set[str]:
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


def content_words(text: str) -> list[str]:
    words = []
    for w in name_text(formula_text(text)).split():
        if w in STOP_WORDS or w.isdigit() or (len(w) < 3 and not any(c.isdigit() for c in w)):
            continue
        stem = _stem(w)
        if stem not in words:
            words.append(stem)
    return words
