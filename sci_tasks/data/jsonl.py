"""Reading record files (JSON Lines) the same way for every benchmark: each problem names
the file and line."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from sci_tasks.data import read_once
from sci_tasks.data.locate import DataError, DataLocation
from sci_tasks.text import safe_value

log = logging.getLogger(__name__)


def read_objects(path: Path) -> Iterator[tuple[str, int, dict[str, Any]]]:
    """(``"<path>:<line>"``, line number, object) for every non-blank line of ``path``.

    Every problem names the file and line: bytes that are not UTF-8, invalid JSON (with
    the column in the line), nesting too deep to parse, a line that is not an object, and
    an escape of a lone surrogate (``\\ud800``: text that is not Unicode)."""
    for where, lineno, raw in _parsed_lines(path):
        if safe_value(raw)[1]:
            raise DataError(
                f"{where}: a string holds a lone surrogate escape (such as \\ud800), "
                "which is not Unicode text"
            )
        yield where, lineno, raw


def read_logged(path: Path) -> tuple[list[dict[str, Any]], int]:
    """Every object of a file this package or lm-eval wrote (a samples file), and how many
    of its strings held a lone surrogate (a model reply can) and were made safe (U+FFFD):
    such a sample is kept, not lost. Other problems are errors naming file and line."""
    records, changed = [], 0
    for _, _, raw in _parsed_lines(path):
        safe, n = safe_value(raw)
        records.append(safe)
        changed += n
    return records, changed


def read_samples(path: Path) -> list[dict[str, Any]]:
    """Every sample of an lm-eval samples file (``samples_<task>_<time>.jsonl``): the one
    reader of logged samples (sci-report, sci-leaderboard, sci-view, sci-score). A lone
    surrogate in a reply is made safe (U+FFFD), so the sample is kept; any other problem is
    a DataError naming file and line."""
    return read_logged(path)[0]


DETAIL = "record"  # the logged sample's entry holding its per-sample detail (metric ``record``)


def sample_detail(
    sample: Mapping[str, Any], where: str, keys: Sequence[str] = ()
) -> dict[str, Any]:
    """A logged sample's per-sample detail (the ``record`` entry its scorer logs: SciMIF's
    constraint verdicts and correctness, the SPM-Bench question record, the SciGen-Verify and
    SciGen-Rubric records), checked to hold ``keys``; ``where`` names the file and line."""
    detail = sample.get(DETAIL)
    if not isinstance(detail, Mapping):
        raise DataError(
            f"{where}: no per-sample {DETAIL!r} entry, so no scores (predict-only?): run "
            "sci-score on it first"
        )
    missing = [k for k in keys if k not in detail]
    if missing:
        raise DataError(f"{where}: the {DETAIL!r} entry lacks {', '.join(missing)}")
    return dict(detail)


def _parsed_lines(path: Path) -> Iterator[tuple[str, int, dict[str, Any]]]:
    with path.open("rb") as fh:
        for lineno, raw_line in enumerate(fh, start=1):
            where = f"{path}:{lineno}"
            try:
                # without its newline: an error at the end of the line would otherwise be
                # reported at column 1 of the next line
                line = raw_line.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError as exc:
                byte = raw_line[exc.start]
                raise DataError(
                    f"{where}: not UTF-8 (byte 0x{byte:02x} at byte {exc.start + 1} of the line)"
                ) from None
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(f"{where}: invalid JSON: {exc.msg} (column {exc.colno})") from None
            except RecursionError:
                raise DataError(f"{where}: JSON nested too deeply to read") from None
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


@read_once()
def read_location(
    location: DataLocation,
    what: str,
    normalise: Callable[[dict[str, Any], str, Path], dict[str, Any]],
) -> tuple[dict[str, Any], ...]:
    """Every record at ``location`` (a folder of ``*.jsonl``, a hub copy, or the bundled
    samples, which are announced as not benchmark numbers); read once per process."""
    source = location.describe()
    if location.is_samples:
        log.warning("%s: using the %s; results are NOT benchmark numbers", what, source)
    return tuple(
        read_folder_records(location.folder(), what, normalise, source, location.is_samples)
    )
