"""SciMIF loader: the authors' released folder (or a hub copy of it) -> ``datasets.Dataset``.

Handles, without editing the data, what the published files contain (spec ``scimif.md``):
``life.jsonl`` / ``materials.jsonl`` file names, ``required_parameters`` null or absent,
``answer`` null, ``image`` as one path or a list of paths relative to ``images/``, and
``choose_instruction`` entries as objects or bare names. Constraint names are kept exactly
as written (``life_``/``materials_`` prefixes, names outside the catalogue): resolving them
is the constraint registry's job, so an unknown name is reported there, never dropped here.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import datasets

from sci_tasks.data.jsonl import UniqueIds, read_objects
from sci_tasks.data.locate import DataError, DataLocation, locate

log = logging.getLogger(__name__)

# discipline -> released file name; task suffix used in lm-eval task names.
FILES = {
    "chemistry": "chemistry.jsonl",
    "geography": "geography.jsonl",
    "biology": "life.jsonl",
    "material": "materials.jsonl",
    "physics": "physics.jsonl",
}
SHORT = {
    "chemistry": "chem",
    "geography": "geo",
    "biology": "bio",
    "material": "mat",
    "physics": "phy",
}
ALIASES = {"chem": "chemistry", "geo": "geography", "bio": "biology", "life": "biology",
           "mat": "material", "materials": "material", "phy": "physics"}  # fmt: skip
REQUIRED_FIELDS = ("id", "edit_question", "instruction_list")

# The paper's 22 task types per discipline. The released `task` values spell them
# differently ("formated_calculation_task", "MolCustom_AtomNum"); `task_type` maps them.
TASK_TYPES: dict[str, tuple[str, ...]] = {
    "chemistry": (
        "numerical_task", "entity_option", "reaction_steps", "molecular_format", "open_ended",
        "molcustom_bondnum", "molcustom_functionalgroup", "molcustom_atomnum",
    ),
    "geography": ("calculation_task", "reasoning_steps", "address_format", "scene_option"),
    "biology": ("sequence_qa", "entity_relationship", "analysis_steps"),
    "material": (
        "numerical_problem", "characterization_technique", "property_prediction",
        "reasoning_process",
    ),
    "physics": (
        "formatted_numerical_task", "formatted_reasoning_process", "formatted_open_ended",
    ),
}  # fmt: skip

FEATURES = datasets.Features(
    {
        "id": datasets.Value("int64"),
        "discipline": datasets.Value("string"),
        "task": datasets.Value("string"),
        "task_type": datasets.Value("string"),  # the paper's name; None if unmapped
        "original_question": datasets.Value("string"),
        "edit_question": datasets.Value("string"),
        "answer": datasets.Value("string"),
        "choose_instruction": [datasets.Value("string")],
        "instruction_list": [
            {
                "instruction_name": datasets.Value("string"),
                "source": datasets.Value("string"),
                "required_parameters": datasets.Value("string"),
            }
        ],
        "images": [datasets.Value("string")],
        "data_source": datasets.Value("string"),
        "bundled_sample": datasets.Value("bool"),
        "record": datasets.Value("string"),  # "<file>:<line>", to trace a sample back
    }
)


def discipline_name(name: str) -> str:
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if key not in FILES:
        raise KeyError(f"unknown SciMIF discipline {name!r}; known: {', '.join(FILES)}")
    return key


def _type_key(name: str) -> str:
    key = re.sub(r"[\s-]+", "_", name.strip().lower())
    return re.sub(r"^(formated|formatted)_", "", key)


def task_type(discipline: str, released: str) -> str | None:
    """The paper's task type for a released ``task`` value, or None when it maps to none."""
    wanted = _type_key(released)
    for name in TASK_TYPES[discipline]:
        if _type_key(name) == wanted:
            return name
    return None


def load(discipline: str, location: DataLocation | None = None) -> datasets.Dataset:
    """One discipline's records, normalised, with absolute image paths."""
    discipline = discipline_name(discipline)
    location = location or locate("scimif")
    return _load_cached(discipline, location)


@lru_cache(maxsize=32)
def _load_cached(discipline: str, location: DataLocation) -> datasets.Dataset:
    folder = location.folder()
    path = folder / FILES[discipline]
    source = location.describe()
    if location.is_samples:
        log.warning(
            "SciMIF %s: using the %s; results are NOT benchmark numbers", discipline, source
        )
    records = read_jsonl(path, folder / "images", discipline, source, location.is_samples)
    return datasets.Dataset.from_list(records, features=FEATURES)


def read_jsonl(
    path: Path, images_dir: Path, discipline: str, source: str, bundled: bool = False
) -> list[dict[str, Any]]:
    """Parse and normalise one released file; every problem names the file and line."""
    if not path.is_file():
        raise DataError(
            f"SciMIF file not found: {path} (expected the authors' layout: "
            f"{', '.join(FILES.values())} and images/)"
        )
    records: list[dict[str, Any]] = []
    ids = UniqueIds()
    for where, lineno, raw in read_objects(path):
        record = _normalise(raw, where, images_dir, discipline, source, bundled)
        ids.add(record["id"], where, f"on line {lineno}")
        record["record"] = f"{path.name}:{lineno}"
        records.append(record)
    if not records:
        raise DataError(f"{path}: no records")
    return records


def _normalise(
    raw: Any, where: str, images_dir: Path, discipline: str, source: str, bundled: bool
) -> dict[str, Any]:
    missing = [f for f in REQUIRED_FIELDS if f not in raw]
    if missing:
        raise DataError(f"{where}: missing field(s) {', '.join(missing)}")
    try:
        sample_id = int(raw["id"])
    except (TypeError, ValueError) as exc:
        raise DataError(f"{where}: id must be an integer, got {raw['id']!r}") from exc
    instructions = raw["instruction_list"]
    if not isinstance(instructions, list):
        raise DataError(f"{where}: instruction_list must be a list")
    released_task = _text(raw.get("task")) or ""
    return {
        "id": sample_id,
        "discipline": discipline,
        "task": released_task,
        "task_type": task_type(discipline, released_task),
        "original_question": _text(raw.get("original_question")) or "",
        "edit_question": _text(raw["edit_question"]) or "",
        "answer": _text(raw.get("answer")),
        "choose_instruction": [_name(c, where) for c in raw.get("choose_instruction") or []],
        "instruction_list": [_instruction(i, where) for i in instructions],
        "images": _images(raw.get("image", raw.get("images")), images_dir, where),
        "data_source": source,
        "bundled_sample": bundled,
    }


def _text(value: Any) -> str | None:
    """Free text as a string; numbers and structures keep their JSON spelling."""
    if value is None:
        return None
    if isinstance(value, str):
        return value.strip() or None
    return json.dumps(value, ensure_ascii=False)


def _name(entry: Any, where: str) -> str:
    if isinstance(entry, str):
        return entry
    if isinstance(entry, Mapping) and isinstance(entry.get("instruction_name"), str):
        return str(entry["instruction_name"])
    raise DataError(f"{where}: choose_instruction entry without a name: {entry!r}")


def _instruction(entry: Any, where: str) -> dict[str, str | None]:
    if not isinstance(entry, Mapping) or not isinstance(entry.get("instruction_name"), str):
        raise DataError(f"{where}: instruction_list entry without instruction_name: {entry!r}")
    return {
        "instruction_name": entry["instruction_name"],
        "source": _text(entry.get("source")),
        "required_parameters": _text(entry.get("required_parameters")),
    }


def _images(value: Any, images_dir: Path, where: str) -> list[str]:
    if value in (None, "", []):
        return []
    rels = [value] if isinstance(value, str) else value
    if not isinstance(rels, list) or not all(isinstance(r, str) for r in rels):
        raise DataError(f"{where}: image must be a path or a list of paths, got {value!r}")
    paths = []
    for rel in rels:
        # Paths are relative to images/; tolerate a leading "images/" written into the path.
        rel_path = Path(rel.removeprefix("images/"))
        full = images_dir / rel_path
        if rel_path.is_absolute() or ".." in rel_path.parts:
            raise DataError(f"{where}: image path {rel!r} must be relative to images/")
        if not full.is_file():
            raise DataError(f"{where}: image not found: {full}")
        paths.append(str(full))
    return paths


def load_for_lm_eval(
    discipline: str = "all", task_type: str | None = None, **metadata: Any
) -> datasets.DatasetDict:
    """lm-eval ``custom_dataset`` hook: one discipline, optionally one task type, or
    ``discipline="all"`` (every discipline pooled); the data location may come from
    ``--metadata``."""
    location = locate("scimif", metadata)
    if discipline == "all":
        data = datasets.concatenate_datasets([load(d, location) for d in FILES])
    else:
        data = load(discipline, location)
    if task_type is not None:
        data = data.filter(lambda doc: doc["task_type"] == task_type)
        if len(data) == 0:
            raise DataError(
                f"SciMIF {discipline}: no records of task type {task_type!r} in "
                f"{location.describe()}"
            )
    unmapped = sorted(
        {t for t, k in zip(data["task"], data["task_type"], strict=True) if k is None}
    )
    if unmapped:
        log.warning("SciMIF %s: task values with no paper task type: %s", discipline, unmapped)
    return datasets.DatasetDict({"test": data})
