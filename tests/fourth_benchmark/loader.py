"""The loader of the units benchmark: its eight records (``data/units.jsonl``), or a folder
of ``*.jsonl`` in the same form named by ``UNITS_DATA_DIR`` (the data-location convention
of ``sci_tasks.data.locate``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import datasets

from sci_tasks.data.jsonl import read_folder_records
from sci_tasks.data.locate import DataError, locate

from . import BENCHMARK, HERE, KINDS

FIELDS = ("id", "kind", "question", "value", "unit")


def normalise(raw: dict[str, Any], where: str, folder: Path) -> dict[str, Any]:
    """One record, checked: every field present, a known kind, a number and a unit."""
    missing = [f for f in FIELDS if f not in raw]
    if missing:
        raise DataError(f"{where}: missing field(s) {', '.join(missing)}")
    if raw["kind"] not in KINDS:
        raise DataError(f"{where}: kind {raw['kind']!r} is not one of {', '.join(KINDS)}")
    value = raw["value"]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DataError(f"{where}: value {value!r} is not a number")
    if not isinstance(raw["unit"], str) or not raw["unit"].strip():
        raise DataError(f"{where}: unit {raw['unit']!r} is not a unit")
    return {"id": str(raw["id"]), "kind": raw["kind"], "question": str(raw["question"]),
            "value": float(value), "unit": raw["unit"].strip()}  # fmt: skip


def load(metadata: dict[str, Any] | None = None, kind: str | None = None) -> list[dict[str, Any]]:
    location = locate(BENCHMARK.name, metadata or {})
    folder = HERE / "data" if location.is_samples else location.folder()
    source = "the units benchmark's records" if location.is_samples else location.describe()
    records = read_folder_records(folder, BENCHMARK.title, normalise, source)
    return [r for r in records if kind is None or r["kind"] == kind]


def load_for_lm_eval(kind: str | None = None, **metadata: Any) -> datasets.DatasetDict:
    """lm-eval ``custom_dataset`` hook: the split from ``dataset_kwargs``, the location
    from the task metadata."""
    records = load(metadata, kind)
    if not records:
        raise DataError(f"units: no records of kind {kind!r}")
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(records)})
