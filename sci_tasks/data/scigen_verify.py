"""SciGen-Verify loader: every ``*.jsonl`` of a folder (or a hub copy) -> ``datasets.Dataset``.

The record format is the project's own (spec ``scigen_verify.md``, documented in
``sci_tasks/samples/scigen_verify/README.md``): ``id``, ``category``, ``discipline``,
``instruction``, ``images`` (the candidate image(s), paths relative to the folder), an
optional ``source_images`` (the image an editing instruction starts from), ``label``,
``explanation`` and ``edit`` (negatives only), plus the optional ``pair_id`` and
``perturbation``. Categories are filters on the loaded records, so one folder serves the
three category tasks; a category with no records is an error that names it.

SciGen-Rubric records (``id``, ``domain``, ``instruction``, ``gold_rules``) live in the
``rubric/`` subfolder of the same data folder, read the same way.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import datasets

from sci_tasks.data.jsonl import read_folder_records, read_location
from sci_tasks.data.locate import DataError, DataLocation, locate
from sci_tasks.images import ImageBudget

log = logging.getLogger(__name__)

CATEGORIES = ("instruction_following", "multidisciplinary_reasoning", "world_knowledge")
DISCIPLINES = ("mathematics", "physics", "chemistry", "biology", "geography")
_CATEGORY_ALIASES = {"if": "instruction_following", "mr": "multidisciplinary_reasoning",
                     "wk": "world_knowledge"}  # fmt: skip
_DISCIPLINE_ALIASES = {"math": "mathematics", "maths": "mathematics", "phys": "physics",
                       "chem": "chemistry", "bio": "biology", "life": "biology",
                       "geo": "geography"}  # fmt: skip
PERTURBATIONS = ("image", "text")
REQUIRED_FIELDS = ("id", "category", "discipline", "instruction", "images", "label", "explanation")
RUBRIC_DIR = "rubric"
RUBRIC_FIELDS = ("id", "domain", "instruction", "gold_rules")

FEATURES = datasets.Features(
    {
        "id": datasets.Value("string"),
        "category": datasets.Value("string"),
        "discipline": datasets.Value("string"),
        "instruction": datasets.Value("string"),
        "images": [datasets.Value("string")],  # candidate image(s), absolute paths
        "source_images": [datasets.Value("string")],  # editing: the image(s) before the edit
        "task_type": datasets.Value("string"),  # "generation" or "editing"
        "label": datasets.Value("bool"),
        "explanation": datasets.Value("string"),
        "edit": datasets.Value("string"),  # None on positives
        "pair_id": datasets.Value("string"),
        "perturbation": datasets.Value("string"),  # "image" / "text" on negatives, else None
        "data_source": datasets.Value("string"),
        "bundled_sample": datasets.Value("bool"),
        "record": datasets.Value("string"),  # "<file>:<line>", to trace a sample back
        # the task's image budget (sci_tasks.images); None: full resolution
        "max_image_pixels": datasets.Value("int64"),
        "max_image_bytes": datasets.Value("int64"),
    }
)

RUBRIC_FEATURES = datasets.Features(
    {
        "id": datasets.Value("string"),
        "domain": datasets.Value("string"),
        "instruction": datasets.Value("string"),
        "gold_rules": [datasets.Value("string")],
        "data_source": datasets.Value("string"),
        "bundled_sample": datasets.Value("bool"),
        "record": datasets.Value("string"),
    }
)


def _key(name: str) -> str:
    return re.sub(r"[\s_-]+", "_", name).strip("_").lower()


def category_name(name: str) -> str:
    """``Instruction Following``, ``instruction-following``, ``IF`` -> ``instruction_following``."""
    key = _key(name)
    key = _CATEGORY_ALIASES.get(key, key)
    if key not in CATEGORIES:
        raise KeyError(f"unknown SciGen-Verify category {name!r}; known: {', '.join(CATEGORIES)}")
    return key


def discipline_name(name: str) -> str:
    key = _key(name)
    key = _DISCIPLINE_ALIASES.get(key, key)
    if key not in DISCIPLINES:
        raise KeyError(f"unknown discipline {name!r}; known: {', '.join(DISCIPLINES)}")
    return key


# --- SciGen-Verify records ---------------------------------------------------------------------


def load(
    location: DataLocation | None = None,
    *,
    category: str | None = None,
    image_budget: ImageBudget | None = None,
) -> datasets.Dataset:
    """The records of one category (all records when no category is given), each carrying
    the task's image budget."""
    location = location or locate("scigen_verify")
    budget = (image_budget or ImageBudget()).fields()
    records = _read_cached(location)
    if category is not None:
        try:
            wanted = category_name(category)
        except KeyError as exc:
            raise DataError(str(exc.args[0])) from None
        records = tuple(r for r in records if r["category"] == wanted)
        if not records:
            raise DataError(
                f"SciGen-Verify category {wanted!r} has no records in {location.describe()}"
            )
    rows = [{**r, **budget} for r in records]
    return datasets.Dataset.from_list(rows, features=FEATURES)


@lru_cache(maxsize=8)
def _read_cached(location: DataLocation) -> tuple[dict[str, Any], ...]:
    return read_location(location, "SciGen-Verify", _normalise)


def read_folder(folder: Path, source: str = "", bundled: bool = False) -> list[dict[str, Any]]:
    """Every ``*.jsonl`` directly in ``folder`` (sorted by name), normalised; ids unique."""
    return read_folder_records(folder, "SciGen-Verify", _normalise, source, bundled)


def _normalise(raw: Any, where: str, folder: Path) -> dict[str, Any]:
    missing = [f for f in REQUIRED_FIELDS if f not in raw]
    if missing:
        raise DataError(f"{where}: missing field(s) {', '.join(missing)}")
    label = _label(raw["label"], where)
    source_images = _images(raw.get("source_images"), folder, where, "source_images", True)
    edit = _optional_text(raw.get("edit"), where, "edit")
    if label and edit is not None:
        raise DataError(f"{where}: a positive record (label true) has no edit, got {edit!r}")
    if not label and edit is None:
        raise DataError(f"{where}: a negative record (label false) needs a reference edit")
    perturbation = _optional_text(raw.get("perturbation"), where, "perturbation")
    if perturbation is not None:
        perturbation = perturbation.lower()
        if label or perturbation not in PERTURBATIONS:
            raise DataError(
                f"{where}: perturbation is for negatives only, one of "
                f"{', '.join(PERTURBATIONS)}; got {raw['perturbation']!r} (label {label})"
            )
    return {
        "id": _id(raw["id"], where),
        "category": _choice(raw["category"], category_name, where, "category"),
        "discipline": _choice(raw["discipline"], discipline_name, where, "discipline"),
        "instruction": _text(raw["instruction"], where, "instruction"),
        "images": _images(raw["images"], folder, where, "images", False),
        "source_images": source_images,
        "task_type": "editing" if source_images else "generation",
        "label": label,
        "explanation": _text(raw["explanation"], where, "explanation"),
        "edit": edit,
        "pair_id": _optional_text(raw.get("pair_id"), where, "pair_id"),
        "perturbation": perturbation,
    }


def _id(value: Any, where: str) -> str:
    if not isinstance(value, (str, int)) or isinstance(value, bool) or str(value).strip() == "":
        raise DataError(f"{where}: id must be a non-empty string or an integer, got {value!r}")
    return str(value).strip()


def _choice(value: Any, normalise: Callable[[str], str], where: str, name: str) -> str:
    if not isinstance(value, str):
        raise DataError(f"{where}: {name} must be text, got {value!r}")
    try:
        return normalise(value)
    except KeyError as exc:
        raise DataError(f"{where}: {exc.args[0]}") from None


def _text(value: Any, where: str, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise DataError(f"{where}: {name} must be non-empty text, got {value!r}")
    return value.strip()


def _optional_text(value: Any, where: str, name: str) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise DataError(f"{where}: {name} must be text or null, got {value!r}")
    return value.strip()


def _label(value: Any, where: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise DataError(f"{where}: label must be true or false, got {value!r}")


def _images(value: Any, folder: Path, where: str, name: str, optional: bool) -> list[str]:
    if optional and value in (None, []):
        return []
    rels = [value] if isinstance(value, str) else value
    if not isinstance(rels, list) or not rels or not all(isinstance(r, str) and r for r in rels):
        raise DataError(f"{where}: {name} must be one or more paths, got {value!r}")
    paths = []
    for rel in rels:
        rel_path = Path(rel)
        if rel_path.is_absolute() or ".." in rel_path.parts:
            raise DataError(f"{where}: image path {rel!r} must be relative to the data folder")
        full = folder / rel_path
        if not full.is_file():
            raise DataError(f"{where}: image not found: {full}")
        paths.append(str(full))
    return paths


def load_for_lm_eval(category: str | None = None, **metadata: Any) -> datasets.DatasetDict:
    """lm-eval ``custom_dataset`` hook: the category from the task's ``dataset_kwargs``, the
    data location from ``--metadata`` / the environment / the bundled samples, the image
    budget from the task ``metadata`` / ``--metadata``."""
    location = locate("scigen_verify", metadata)
    try:
        budget = ImageBudget.from_settings(metadata)
    except ValueError as exc:
        raise DataError(f"SciGen-Verify task metadata: {exc}") from None
    return datasets.DatasetDict({"test": load(location, category=category, image_budget=budget)})


# --- SciGen-Rubric records ---------------------------------------------------------------------


def load_rubric(location: DataLocation | None = None) -> datasets.Dataset:
    """The rubric-generation records: every ``*.jsonl`` in the data folder's ``rubric/``."""
    location = location or locate("scigen_verify")
    return datasets.Dataset.from_list(list(_read_rubric_cached(location)), features=RUBRIC_FEATURES)


@lru_cache(maxsize=8)
def _read_rubric_cached(location: DataLocation) -> tuple[dict[str, Any], ...]:
    folder = location.folder() / RUBRIC_DIR
    source = location.describe()
    if not folder.is_dir():
        raise DataError(
            f"SciGen-Rubric: {source} has no {RUBRIC_DIR}/ subfolder (the rubric records live "
            f"in <scigen_verify folder>/{RUBRIC_DIR}/*.jsonl)"
        )
    if location.is_samples:
        log.warning("SciGen-Rubric: using the %s; results are NOT benchmark numbers", source)
    return tuple(read_rubric_folder(folder, source, location.is_samples))


def read_rubric_folder(
    folder: Path, source: str = "", bundled: bool = False
) -> list[dict[str, Any]]:
    return read_folder_records(folder, "SciGen-Rubric", _normalise_rubric, source, bundled)


def _normalise_rubric(raw: Any, where: str, folder: Path) -> dict[str, Any]:
    missing = [f for f in RUBRIC_FIELDS if f not in raw]
    if missing:
        raise DataError(f"{where}: missing field(s) {', '.join(missing)}")
    rules = raw["gold_rules"]
    if (
        not isinstance(rules, list)
        or not rules
        or not all(isinstance(r, str) and r.strip() for r in rules)
    ):
        raise DataError(f"{where}: gold_rules must be a non-empty list of texts, got {rules!r}")
    return {
        "id": _id(raw["id"], where),
        "domain": _choice(raw["domain"], discipline_name, where, "domain"),
        "instruction": _text(raw["instruction"], where, "instruction"),
        "gold_rules": [r.strip() for r in rules],
    }


def load_rubric_for_lm_eval(**metadata: Any) -> datasets.DatasetDict:
    location = locate("scigen_verify", metadata)
    return datasets.DatasetDict({"test": load_rubric(location)})
