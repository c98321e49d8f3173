"""The SciMIF constraint catalogue, read from ``catalogue.csv`` beside this module.

One row per constraint: canonical name, the paper's functional group, domain (``general`` or
the discipline), how compliance is decided (kind), whether the paper's catalogue lists it
(``in_paper``: ``no`` for names the released data scores although the paper does not list
them), the spellings the released files use for it (``released_aliases``, ``;``-separated),
and what it requires in one line (``requirement``: what a labeller reads, ``sci-agree export``).
Nothing else in the project keeps a list of constraint names.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from pathlib import Path

CATALOGUE_FILE = Path(__file__).with_name("catalogue.csv")
COLUMNS = ("name", "group", "domain", "kind", "in_paper", "released_aliases", "requirement")


class Group(str, Enum):
    """The paper's ten functional groups (SciMIF Table 4)."""

    PRECISION = "Precision"
    LETTER = "Letter"
    FORMAT = "Format"
    SELECTION = "Selection"
    STRUCTURE = "Structure"
    NUMBER = "Number"
    UNIT = "Unit"
    TERMINOLOGY = "Terminology"
    METHOD = "Method"
    PROCEDURE = "Procedure"


class Kind(str, Enum):
    """How compliance is decided."""

    RULE = "rule"
    RDKIT = "rdkit"
    EXTRACT = "extract"  # an LLM may extract the span; a rule decides
    JUDGE = "judge"  # an LLM judge decides (may give a fraction)


@dataclass(frozen=True)
class Constraint:
    name: str
    group: Group
    kind: Kind
    in_catalogue: bool
    domain: str
    requirement: str = ""  # one line, as the spec's catalogue states it


def _row(line: int, row: dict[str, str]) -> tuple[Constraint, list[str]]:
    where = f"{CATALOGUE_FILE.name} line {line}"
    try:
        group, kind = Group(row["group"]), Kind(row["kind"])
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    name, domain = row["name"].strip(), row["domain"].strip()
    if not name.startswith(domain + "_"):
        raise ValueError(f"{where}: {name!r} does not start with its domain {domain!r}")
    if row["in_paper"] not in ("yes", "no"):
        raise ValueError(f"{where}: in_paper must be yes or no, got {row['in_paper']!r}")
    aliases = [a.strip() for a in row["released_aliases"].split(";") if a.strip()]
    requirement = (row.get("requirement") or "").strip()
    return Constraint(name, group, kind, row["in_paper"] == "yes", domain, requirement), aliases


def read_catalogue(path: Path = CATALOGUE_FILE) -> tuple[dict[str, Constraint], dict[str, str]]:
    """The constraints by canonical name, and each released alias's canonical name."""
    constraints: dict[str, Constraint] = {}
    aliases: dict[str, str] = {}
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        if tuple(reader.fieldnames or ()) != COLUMNS:
            raise ValueError(f"{path.name}: columns must be {','.join(COLUMNS)}")
        for line, row in enumerate(reader, start=2):
            constraint, names = _row(line, row)
            if constraint.name in constraints:
                raise ValueError(f"{path.name} line {line}: {constraint.name!r} listed twice")
            constraints[constraint.name] = constraint
            aliases.update(dict.fromkeys(names, constraint.name))
    return constraints, aliases


CONSTRAINTS, ALIASES = read_catalogue()
DOMAINS: tuple[str, ...] = tuple(dict.fromkeys(c.domain for c in CONSTRAINTS.values()))


def canonical_name(name: object) -> str:
    """The catalogue spelling of a name as written in the data (aliases, case, spaces)."""
    return _canonical(str(name))


@lru_cache(maxsize=4096)  # one lookup per constraint of every sample: names repeat
def _canonical(name: str) -> str:
    key = re.sub(r"\s+", "_", name.strip().lower())
    return ALIASES.get(key, key)


def resolve(name: object) -> Constraint | None:
    return CONSTRAINTS.get(canonical_name(name))
