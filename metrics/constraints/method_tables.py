"""The known methods and their defining relations, read once from the data files beside
this module: ``methods.json`` (each method's names as a regex and its signature formulas)
and ``method_relations.json`` (two sides per relation, whose "about" defines the
spelling). A broken entry is an error naming the file and the entry. Used by the
``<discipline>_method_constraint`` rule (``methods.py``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import permutations
from pathlib import Path


@dataclass(frozen=True)
class Method:
    """A known law / equation / method: its names (regexes over ``method_text.name_text``)
    and its formulas (as written; compared by ``method_text.formula_regex``)."""

    name: str
    names: str
    formulas: tuple[str, ...] = ()


METHODS_FILE = Path(__file__).with_name("methods.json")


def _load_methods(path: Path = METHODS_FILE) -> tuple[Method, ...]:
    """The method table (``methods.json``: each method's names as a regex and its
    signature formulas); a broken entry is an error naming the file and the entry."""
    rows = json.loads(path.read_text(encoding="utf-8"))["methods"]
    out = []
    for i, row in enumerate(rows):
        try:
            re.compile(row["names"])
            out.append(Method(row["name"], row["names"], tuple(row.get("formulas", ()))))
        except (KeyError, TypeError, re.error) as exc:
            raise ValueError(f"{path}: method #{i + 1} ({row!r:.60}): {exc}") from exc
    return tuple(out)


METHODS: tuple[Method, ...] = _load_methods()

# =========================================================================== relations

RELATIONS_FILE = Path(__file__).with_name("method_relations.json")


@dataclass(frozen=True)
class Relation:
    """A defining relation of a method: two sides, each compiled twice, anchored at the
    end (the side left of an "=") and at the start (the side right of it)."""

    reads: str
    ends: tuple[re.Pattern[str], re.Pattern[str]]
    starts: tuple[re.Pattern[str], re.Pattern[str]]


_SYMBOL_CHARS = "A-Za-zΑ-Ωα-ωΔΣ∂"
_FACTOR_RE = re.compile(
    rf"(?P<neg>-)?(?P<base>sin|cos|tan|ln|log|[{_SYMBOL_CHARS}]+|[0-9]+/[0-9]+|[0-9.]+)"
    r"(?:_(?P<sub>[A-Za-z0-9]+))?(?:\^(?P<exp>-?[0-9]+))?"
)
_BETWEEN = r"[ \t(){}·×*]*"
_SUBSCRIPT = r"(?:_\{[^{}=\n]{1,10}\}|_[A-Za-z0-9]{1,4}|[0-9]{1,2}|[₀-₉])?['′]?"
_HALF = r"(?:1[ \t]*/[ \t]*2|\([ \t]*1[ \t]*\)[ \t]*/[ \t]*\([ \t]*2[ \t]*\)|0\.5|½)"
MAX_PRODUCT = 4  # factors permuted in a product (4! = 24 orders)


def _factor_regex(token: str) -> str:
    """One factor of a relation side (``method_relations.json`` "about")."""
    m = _FACTOR_RE.fullmatch(token)
    if m is None:
        raise ValueError(f"unreadable factor {token!r}")
    base, sub, exp = m.group("base"), m.group("sub"), m.group("exp")
    out = r"-[ \t]*" if m.group("neg") else ""
    if base == "1/2":
        out += _HALF
    elif base[0].isdigit() or base in ("sin", "cos", "tan", "ln", "log"):
        out += re.escape(base)
    else:
        out += re.escape(base)
        if sub:
            out += rf"(?:_\{{[ \t]*{re.escape(sub)}[ \t]*\}}|_?{re.escape(sub)})['′]?"
        else:
            out += _SUBSCRIPT
    if exp:
        out += rf"[ \t]*\^[ \t]*\{{?[ \t]*{re.escape(exp)}[ \t]*\}}?"
    return out


def _side_regex(spelling: str) -> str:
    """A side spelling -> regex: a product's factors in any order; "/" "+" kept in place;
    ``sqrt(...)`` -> √ or sqrt around its (product) argument."""
    text = spelling.strip()
    root = text.startswith("sqrt(") and text.endswith(")")
    if root:
        text = text[5:-1]
    tokens = text.replace("(", " ").replace(")", " ").split()
    ops = {"/": r"[ \t]*/[ \t]*", "+": r"[ \t]*\+[ \t]*"}
    if any(t in ops for t in tokens) or any(t.startswith("-") for t in tokens):
        body = _BETWEEN.join(ops.get(t) or _factor_regex(t) for t in tokens)
    else:
        if len(tokens) > MAX_PRODUCT:
            raise ValueError(f"{spelling!r}: more than {MAX_PRODUCT} factors")
        orders = dict.fromkeys(permutations(_factor_regex(t) for t in tokens))
        body = "|".join(_BETWEEN.join(order) for order in orders)
    if root:
        body = rf"(?:√|sqrt)[ \t]*[({{]?[ \t]*(?:{body})[ \t]*[)}}]?"
    return f"(?:{body})"


def _relation(row: Mapping[str, object], ignore_case: bool) -> Relation:
    sides = row["sides"]
    if not (isinstance(sides, list) and len(sides) == 2 and all(sides)):
        raise ValueError("'sides' must be two non-empty lists of spellings")
    alternatives = ["|".join(_side_regex(s) for s in side) for side in sides]
    flags = re.I if ignore_case else 0
    # left of "=": the side ends the text, not glued to a letter or digit before it
    ends = tuple(re.compile(rf"(?<![A-Za-z0-9])(?:{a})[ \t]*\Z", flags) for a in alternatives)
    # right of "=": the side begins the text, not glued to a letter or digit after it
    starts = tuple(re.compile(rf"[ \t]*(?:{a})(?![A-Za-z0-9])", flags) for a in alternatives)
    return Relation(str(row.get("reads", "")), ends, starts)  # type: ignore[arg-type]


def _load_relations(path: Path = RELATIONS_FILE) -> dict[str, tuple[Relation, ...]]:
    """The relation table by method name (``method_relations.json``); a broken entry or an
    unknown method name is an error naming the file and the entry."""
    known = {m.name for m in METHODS}
    out: dict[str, tuple[Relation, ...]] = {}
    for i, entry in enumerate(json.loads(path.read_text(encoding="utf-8"))["relations"]):
        try:
            name = entry["method"]
            if name not in known:
                raise ValueError(f"{name!r} is not a method of {METHODS_FILE.name}")
            ignore_case = bool(entry.get("ignore_case", False))
            out[name] = tuple(_relation(row, ignore_case) for row in entry["relations"])
        except (KeyError, TypeError, ValueError, re.error) as exc:
            raise ValueError(f"{path}: relation entry #{i + 1} ({entry!r:.60}): {exc}") from exc
    return out


RELATIONS: dict[str, tuple[Relation, ...]] = _load_relations()
