"""SciMIF loader: the authors' two published layouts -> one ``datasets.Dataset`` per discipline.

- The per-discipline JSONL release: ``chemistry.jsonl`` ... ``physics.jsonl`` and ``images/``.
- The hub layout (``Sheryle7436/SciMIF``, split ``test``; spec "The hub release"), read with
  ``datasets.load_dataset`` from a hub id or from a local folder that ``datasets`` can load
  (parquet files and a README naming the split). Its embedded images are written once each
  to content-addressed files under the project cache (``<cache>/scimif/images/``), so a
  record's ``images`` are paths in both layouts and no decoded image is held in memory.

Both layouts give the same records (``FEATURES``). Handles, without editing the data, what
the published files contain (spec ``scimif.md``):
``life.jsonl`` / ``materials.jsonl`` file names, ``required_parameters`` null or absent,
``answer`` null, ``image`` as one path or a list of paths relative to ``images/``, and
``choose_instruction`` entries as objects or bare names. Constraint names are kept exactly
as written (``life_``/``materials_`` prefixes, names outside the catalogue): resolving them
is the constraint registry's job, so an unknown name is reported there, never dropped here.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import re
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

import datasets
from PIL import Image, UnidentifiedImageError

from sci_tasks.cache import cache_root
from sci_tasks.data import read_once
from sci_tasks.data.jsonl import UniqueIds, read_objects
from sci_tasks.data.locate import DataError, DataLocation, locate
from sci_tasks.data.records import image_files, known_name

log = logging.getLogger(__name__)

# discipline -> released file name; task suffix used in lm-eval task names.
FILES = {
    "chemistry": "chemistry.jsonl",
    "geography": "geography.jsonl",
    "biology": "life.jsonl",
    "material": "materials.jsonl",
    "physics": "physics.jsonl",
}
ALIASES = {"chem": "chemistry", "geo": "geography", "bio": "biology", "life": "biology",
           "mat": "material", "materials": "material", "phy": "physics"}  # fmt: skip

REQUIRED_FIELDS = ("id", "edit_question", "instruction_list")
HUB_SPLIT = "test"
HUB_REQUIRED = ("subject", "id", "edit_question", "instruction_list")
# the dataset card of a local copy of the hub layout: its front matter names the test split's
# parquet shards (data/test-*), as the authors' hub card does
HUB_CARD = f"""---
configs:
- config_name: default
  data_files:
  - split: {HUB_SPLIT}
    path: data/{HUB_SPLIT}-*
---
"""

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
        "images": [datasets.Value("string")],  # local image files, in order
        "image_path": [datasets.Value("string")],  # the same images, relative to images/
        "data_source": datasets.Value("string"),
        "bundled_sample": datasets.Value("bool"),
        # to trace a sample back: "<file>:<line>", or "<split>[<row>] <sample_id>" (hub layout)
        "record": datasets.Value("string"),
    }
)


def discipline_name(name: str) -> str:
    return known_name(name, tuple(FILES), ALIASES, "SciMIF discipline")


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


@read_once(maxsize=32)
def _load_cached(discipline: str, location: DataLocation) -> datasets.Dataset:
    source = location.describe()
    if location.is_samples:
        log.warning(
            "SciMIF %s: using the %s; results are NOT benchmark numbers", discipline, source
        )
    if location.kind == "hub" and not location.subdir:  # SCIMIF_DATA_DIR=owner/name[@rev]
        return _hub_discipline(discipline, location)
    folder = location.folder()
    if folder_layout(folder) == "hub":
        return _hub_discipline(discipline, location)
    path = folder / FILES[discipline]
    records = read_jsonl(path, folder / "images", discipline, source, location.is_samples)
    return datasets.Dataset.from_list(records, features=FEATURES)


def folder_layout(folder: Path) -> Literal["jsonl", "hub"]:
    """Which published layout a local folder holds: the per-discipline JSONL files, or the
    hub layout (parquet files, usually with a README whose YAML front matter names them)."""
    has_jsonl = any((folder / name).is_file() for name in FILES.values())
    has_parquet = next(folder.rglob("*.parquet"), None) is not None
    if has_parquet and has_jsonl and not _card_names_configs(folder):
        raise DataError(
            f"SciMIF folder {folder} holds both layouts (*.jsonl release files and parquet "
            "files) and no README.md naming the data files: keep one of them"
        )
    return "hub" if has_parquet or _card_names_configs(folder) else "jsonl"


def _card_names_configs(folder: Path) -> bool:
    card = folder / "README.md"
    if not card.is_file():
        return False
    text = card.read_text(encoding="utf-8", errors="replace")
    front = re.match(r"---\s*\n(.*?)\n---\s*(\n|$)", text, re.S)
    return bool(front and re.search(r"^configs\s*:", front.group(1), re.M))


# --- the hub layout ----------------------------------------------------------------------


def _hub_discipline(discipline: str, location: DataLocation) -> datasets.Dataset:
    records = [r for r in _hub_records(location) if r["discipline"] == discipline]
    if not records:
        raise DataError(
            f"SciMIF {location.describe()}: no {discipline} records in split {HUB_SPLIT!r}"
        )
    return datasets.Dataset.from_list(records, features=FEATURES)


@read_once()
def _hub_records(location: DataLocation) -> tuple[dict[str, Any], ...]:
    """Every record of the hub layout's ``test`` split, all disciplines (read once)."""
    table, label, base = _open_hub_layout(location)
    source = location.describe()
    sample_ids = UniqueIds()
    ids = UniqueIds()
    records = []
    for index, row in enumerate(undecoded_rows(table)):
        record = normalise_hub_row(row, index, label, base, source, location.is_samples)
        sample_id = hub_sample_id(row, index)
        where = f"{label} row {index} (sample_id {sample_id})"
        sample_ids.add(sample_id, f"{where}: sample_id", f"at row {index}")
        ids.add((record["discipline"], record["id"]), where, f"at row {index}")
        records.append(record)
    if not records:
        raise DataError(f"{label}: no records")
    return tuple(records)


def _open_hub_layout(location: DataLocation) -> tuple[datasets.Dataset, str, Path | None]:
    """``load_dataset(..., split="test")`` on a hub id or a local folder; also names the
    source for errors and gives the folder that relative image paths may refer to."""
    if location.kind == "hub" and not location.subdir:
        repo_id, revision = location.hub_ref
        label = f"hub dataset {location.where!r} split {HUB_SPLIT!r}"
        path, base = repo_id, None
    else:
        folder = location.folder()
        label = f"SciMIF folder {folder} split {HUB_SPLIT!r}"
        path, revision, base = str(folder), None, folder
    try:
        table = datasets.load_dataset(path, split=HUB_SPLIT, revision=revision)
    except Exception as exc:
        detail = " ".join(str(exc).split())
        verb = "cannot fetch" if base is None else "cannot load"
        raise DataError(f"{verb} {label} with datasets: {type(exc).__name__}: {detail}") from exc
    if not isinstance(table, datasets.Dataset):
        raise DataError(f"{label}: expected one split, got {type(table).__name__}")
    missing = [c for c in HUB_REQUIRED if c not in table.column_names]
    if missing:
        raise DataError(f"{label}: missing column(s) {', '.join(missing)}")
    return table, label, base


def undecoded_rows(table: datasets.Dataset, batch_size: int = 64) -> Iterator[dict[str, Any]]:
    """Rows as stored: images stay ``{bytes, path}`` dicts whatever the Image feature's
    ``decode`` setting, and only one batch of rows is in Python memory at a time."""
    for batch in table.with_format("arrow").iter(batch_size=batch_size):
        yield from batch.to_pylist()


def hub_sample_id(row: Mapping[str, Any], index: int) -> str:
    """The split-wide ``sample_id``; the row index where a row has none."""
    return _text(row.get("sample_id")) or str(index)


def normalise_hub_row(
    row: Mapping[str, Any],
    index: int,
    label: str,
    base: Path | None = None,
    source: str = "",
    bundled: bool = False,
) -> dict[str, Any]:
    """Row ``index`` of the hub layout (images as ``{bytes, path}`` dicts, decoded PIL
    images or paths) -> a record as the JSONL layout gives it. ``label`` names the dataset
    and split in errors, which also name the row and the sample."""
    sample_id = hub_sample_id(row, index)
    where = f"{label} row {index} (sample_id {sample_id})"
    missing = [c for c in HUB_REQUIRED if row.get(c) is None]
    if missing:
        raise DataError(f"{where}: missing value(s) for {', '.join(missing)}")
    try:
        discipline = discipline_name(str(row["subject"]))
    except KeyError as exc:
        raise DataError(f"{where}: unknown subject {row['subject']!r}") from exc
    raw = {
        key: row.get(key) for key in ("id", "task", "original_question", "edit_question", "answer")
    }
    raw["instruction_list"] = _json_list(row["instruction_list"], "instruction_list", where)
    chosen = row.get("choose_instruction")
    raw["choose_instruction"] = _json_list(chosen, "choose_instruction", where)
    # JSONL-layout rules for everything but images (whose paths the JSONL reader checks).
    record = _normalise(raw, where, Path(), discipline, source, bundled)
    record |= _hub_images(row.get("image"), row.get("image_path"), base, where)
    record["record"] = f"{HUB_SPLIT}[{index}] {sample_id}"
    return record


def _json_list(value: Any, column: str, where: str) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else []
        except json.JSONDecodeError as exc:
            raise DataError(f"{where}: {column} is not valid JSON: {exc.msg}") from exc
    if not isinstance(value, list):
        raise DataError(f"{where}: {column} must be a list, got {type(value).__name__}")
    return value


def _hub_images(
    images: Any, image_path: Any, base: Path | None, where: str
) -> dict[str, list[str]]:
    values = images if isinstance(images, list | tuple) else [images]
    files = [_image_file(v, k, base, where) for k, v in enumerate(values) if v is not None]
    rels = image_path if isinstance(image_path, list | tuple) else [image_path]
    rels = [r for r in rels if r is not None]
    if len(rels) == 1 and isinstance(rels[0], str) and rels[0].strip().startswith("["):
        rels = _json_list(rels[0], "image_path", where)  # a list stored as a JSON string
    names = [_release_path(str(r)).as_posix() for r in rels if str(r).strip()]
    if names and len(names) != len(files):
        raise DataError(f"{where}: {len(files)} image(s) but {len(names)} image_path value(s)")
    return {"images": files, "image_path": names}


def _image_file(value: Any, k: int, base: Path | None, where: str) -> str:
    """A local file for one image value: embedded bytes go to the content-addressed image
    cache; a path must name an existing file (absolute, or relative to the folder)."""
    what = f"{where}: image {k}"
    if isinstance(value, Image.Image):
        buffer = io.BytesIO()
        value.save(buffer, format=value.format or "PNG")
        return str(_cached_image(buffer.getvalue(), what))
    if isinstance(value, Mapping) and value.get("bytes") is not None:
        return str(_cached_image(bytes(value["bytes"]), what))
    path = value.get("path") if isinstance(value, Mapping) else value
    if not isinstance(path, str) or not path.strip():
        raise DataError(f"{what}: neither image bytes nor a path, got {type(value).__name__}")
    candidates = [Path(path)]
    if base is not None and not Path(path).is_absolute():
        candidates += [base / path, base / "images" / _release_path(path)]
    for candidate in candidates:
        if candidate.is_absolute() and candidate.is_file():
            return str(candidate)
    raise DataError(f"{what}: no embedded bytes and image not found: {path}")


def image_cache_dir() -> Path:
    return cache_root() / "scimif" / "images"


def _cached_image(data: bytes, what: str) -> Path:
    """``<cache>/scimif/images/<sha[:2]>/<sha256>.<format>``, written once per content."""
    try:
        with Image.open(io.BytesIO(data)) as image:  # reads the header only
            image_format = (image.format or "img").lower()
    except (UnidentifiedImageError, OSError) as exc:
        raise DataError(f"{what}: not a readable image ({len(data)} bytes): {exc}") from exc
    digest = hashlib.sha256(data).hexdigest()
    path = image_cache_dir() / digest[:2] / f"{digest}.{image_format}"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        # write then rename: concurrent loaders never see a half-written file
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as tmp:
            tmp.write(data)
        os.replace(tmp.name, path)
    return path


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
        **_images(raw.get("image", raw.get("images")), images_dir, where),
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


def _images(value: Any, images_dir: Path, where: str) -> dict[str, list[str]]:
    """``images`` (files under ``images_dir``) and ``image_path`` (relative to images/)."""
    paths = image_files(value, images_dir, where, "image", optional=True,
                        relative_to="images/", spelled=lambda r: str(_release_path(r)))  # fmt: skip
    rels = [value] if isinstance(value, str) else value or []
    return {"images": paths, "image_path": [_release_path(r).as_posix() for r in rels]}


def _release_path(rel: str) -> Path:
    # Paths are relative to images/; tolerate a leading "images/" written into the path.
    return Path(rel.strip().removeprefix("images/"))


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
