"""What every loader checks in a record the same way: image paths and names of splits.

Each problem is a DataError naming ``where`` (the file and line of the record).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sci_tasks.data.locate import DataError


def image_files(
    value: Any,
    folder: Path,
    where: str,
    name: str = "images",
    optional: bool = False,
    relative_to: str = "the data folder",
    spelled: Callable[[str], str] = str.strip,
) -> list[str]:
    """The local files of a record's image field: one path or a list of paths, each (as
    ``spelled`` reads it) relative to ``folder`` (``relative_to`` names it in errors),
    inside it and an existing file. ``optional``: no value (null, "", []) is no image;
    otherwise at least one is needed."""
    if optional and value in (None, "", []):
        return []
    rels = [value] if isinstance(value, str) else value
    if not isinstance(rels, list) or not rels or not all(isinstance(r, str) and r for r in rels):
        raise DataError(f"{where}: {name} must be one or more paths, got {value!r}")
    paths = []
    for rel in rels:
        rel_path = Path(spelled(rel))
        if rel_path.is_absolute() or ".." in rel_path.parts:
            raise DataError(f"{where}: image path {rel!r} must be relative to {relative_to}")
        full = folder / rel_path
        if not full.is_file():
            raise DataError(f"{where}: image not found: {full}")
        paths.append(str(full))
    return paths


def name_key(name: str) -> str:
    """The form in which two spellings of one name match: case, surrounding space and runs
    of spaces, underscores and hyphens do not count (``Crystal-Structure`` =
    ``crystal_structure`` = `` Crystal  Structure``)."""
    return re.sub(r"[\s_-]+", "_", name).strip("_").lower()


def known_name(name: str, known: tuple[str, ...], aliases: dict[str, str], what: str) -> str:
    """The one of ``known`` that ``name`` spells (through ``aliases``, keyed by
    ``name_key``); KeyError naming the known ones otherwise."""
    key = name_key(name)
    by_key = {name_key(k): k for k in known}
    found = by_key.get(aliases.get(key, key))
    if found is None:
        raise KeyError(f"unknown {what} {name!r}; known: {', '.join(known)}")
    return found
