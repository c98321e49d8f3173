"""Reading record files (JSON Lines) the same way for every benchmark: each problem names
the file and line."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Hashable, Iterator
from pathlib import Path
from typing import Any

from sci_tasks.data.locate import DataError, DataLocation

log = logging.getLogger(__name__)


def read_objects(path: Path) -> Iterator[tuple[str, int, dict[str, Any]]]:
    """(``"<path>:<line>"``, line number, object) for every non-blank line of ``path``."""
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                raw = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(f"{where}: invalid JSON: {exc.msg} (column {exc.colno})") from exc
            if not isinstance(raw, dict):
                raise DataError(f"{where}: expected a JSON object, got {type(raw).__name__}")
            yield where, lineno, raw


class UniqueIds:
    """Refuses a record id seen before, naming where it was first seen."""

    def __init__(self) -> None:
        self._seen: dict[Hashable, str] = {}

    def add(self, record_id: Hashable, where: str, first_at: str) -> None:
        if record_id in self._seen:
            raise DataError(f"{where}: duplicate id {record_id!r} (first {self._seen[record_id]})")
        self._seen[record_id] = first_at


def read_folder_records(
    folder: Path,
    what: str,
    normalise: Callable[[dict[str, Any], str, Path], dict[str, Any]],
    source: str = "",
    bundled: bool = False,
) -> list[dict[str, Any]]:
    """Every ``*.jsonl`` directly in ``folder`` (by name), each object through ``normalise``
    (which raises DataError naming ``where``); ids unique across the files. ``what`` names
    the benchmark in errors."""
    files = sorted(p for p in folder.glob("*.jsonl") if p.is_file())
    if not files:
        raise DataError(f"{what} folder {folder} has no *.jsonl files")
    records: list[dict[str, Any]] = []
    ids = UniqueIds()
    for path in files:
        for where, lineno, raw in read_objects(path):
            record = normalise(raw, where, folder)
            ids.add(record["id"], where, f"at {path.name}:{lineno}")
            record["record"] = f"{path.name}:{lineno}"
            record["data_source"] = source or f"folder {folder}"
            record["bundled_sample"] = bundled
            records.append(record)
    if not records:
        raise DataError(f"{what} folder {folder}: no records in {', '.join(p.name for p in files)}")
    return records


def read_location(
    location: DataLocation,
    what: str,
    normalise: Callable[[dict[str, Any], str, Path], dict[str, Any]],
) -> tuple[dict[str, Any], ...]:
    """Every record at ``location`` (a folder of ``*.jsonl``, a hub copy, or the bundled
    samples, which are announced as not benchmark numbers)."""
    source = location.describe()
    if location.is_samples:
        log.warning("%s: using the %s; results are NOT benchmark numbers", what, source)
    return tuple(
        read_folder_records(location.folder(), what, normalise, source, location.is_samples)
    )
