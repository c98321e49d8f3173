"""Items (one check of one logged sample) and the sources that give them values.

A source is a folder of logged samples (a run, a sweep job, a sci-score output folder: the
newest ``samples_<task>_*.jsonl`` of each task, read as sci-report reads them) or a filled
labelling sheet (``export``'s lines plus ``label``: 1, 0 or ``"undecidable"``). An item's
id is ``<task>/<doc_id>/<position>/<check>``: the check's position among the sample's checks
keeps two checks of the same name apart, and nothing in it depends on the scorer, so an
export of a run matches the run and every re-scoring of it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sci_tasks.data.jsonl import UniqueIds, read_objects
from sci_tasks.data.locate import DataError
from sci_tasks.logged.samples import checks_of, image_paths, prompt_of
from sci_tasks.metrics.constraints.catalogue import resolve
from sci_tasks.report import logged_samples
from sci_tasks.run_folder import newest_samples

UNSCORED = "unscored"  # a scorer's check without a score
UNDECIDABLE = "undecidable"  # a labeller's: the requirement is absent (docs/labelling.md)
NO_VALUE = frozenset({UNSCORED, UNDECIDABLE})  # left out of kappa, counted apart
Value = float | str  # a score in [0, 1], or one of NO_VALUE

# what a sheet's line holds besides its label: the export's fields
ITEM_FIELDS = ("item_id", "task", "doc_id", "constraint", "question", "reply", "requirement")


class AgreeError(ValueError):
    """Input sci-agree cannot use, said in one line naming the file (and line)."""


@dataclass(frozen=True)
class Item:
    """What a labeller sees of one check: never its score, verdict, reason or judge."""

    item_id: str
    task: str
    doc_id: Any
    constraint: str
    question: str
    reply: str
    requirement: dict[str, Any]
    images: tuple[str, ...] = ()

    def sheet_line(self) -> dict[str, Any]:
        line = {name: getattr(self, name) for name in ITEM_FIELDS}
        if self.images:
            line["images"] = list(self.images)
        return line


@dataclass
class Source:
    """One scoring of the items: a folder's checks or a sheet's labels."""

    name: str
    path: Path
    values: dict[str, Value] = field(default_factory=dict)  # item_id -> value
    items: dict[str, Item] = field(default_factory=dict)
    unlabelled: int = 0  # sheet lines whose label is still empty


def item_id(task: str, doc_id: Any, position: int, check: str) -> str:
    return f"{task}/{doc_id}/{position}/{check}"


def shown(value: Value) -> Any:
    """A value as written out: 1 and 0 as integers, a fraction as it is, a word as it is."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


# --- folders of logged samples --------------------------------------------------------------


def requirement_of(sample: Mapping[str, Any], check: str, position: int) -> dict[str, Any]:
    """What a check requires, as the labeller reads it: a SciMIF constraint's catalogue line
    and the ``required_parameters`` of its ``instruction_list`` item (the checks are that
    list, in order); any other benchmark's check, its name and the reference it is
    compared with (the logged target)."""
    doc = sample.get("doc") or {}
    listed = doc.get("instruction_list") if isinstance(doc, Mapping) else None
    if isinstance(listed, list) and position < len(listed) and isinstance(listed[position], dict):
        entry = listed[position]
        constraint = resolve(entry.get("instruction_name"))
        text = constraint.requirement if constraint else "(a name the catalogue does not know)"
        return {"text": text, "parameters": entry.get("required_parameters")}
    return {"text": check, "reference": first_text(sample.get("target"))}


def first_text(value: Any) -> str:
    """The text of a logged ``resps`` / ``filtered_resps`` / ``target`` entry."""
    while isinstance(value, list) and value:
        value = value[0]
    return "" if value is None or value == [] else str(value)


def read_folder(path: Path, name: str) -> Source:
    """The checks of every sample of the newest samples file of each task under ``path``."""
    try:
        newest = newest_samples(path, "")
    except ValueError as exc:  # several runs / models below: which one is meant?
        raise AgreeError(f"{path}: {exc}") from None
    if not newest:
        raise AgreeError(
            f"{path}: no samples_*.jsonl here: give a run, sweep job or sci-score output "
            "folder written with --log_samples, or a labelling sheet"
        )
    source = Source(name, path)
    ids = UniqueIds()
    for task, file in sorted(newest.items()):
        for where, sample in logged_samples(file):
            doc_id = sample.get("doc_id")
            for position, check in enumerate(checks_of(task, sample)):
                key = item_id(task, doc_id, position, check["name"])
                ids.add(key, where, where)
                score = check["score"]
                source.values[key] = UNSCORED if check["verdict"] == UNSCORED else float(score)
                source.items[key] = Item(
                    key, task, doc_id, check["name"], prompt_of(sample),
                    first_text(sample.get("filtered_resps")),
                    requirement_of(sample, check["name"], position),
                    tuple(image_paths(sample.get("doc") or {})),
                )  # fmt: skip
    if not source.values:
        raise AgreeError(
            f"{path}: its samples hold no scored checks (a --predict_only run?): "
            "run sci-score on it first"
        )
    return source


# --- labelling sheets -----------------------------------------------------------------------


def label_value(label: Any, where: str) -> Value:
    """A sheet's label: 1, 0 or "undecidable" ("unscored", the labelling guide's word, is
    the same); anything else is an error naming the line."""
    if isinstance(label, (int, float)) and not isinstance(label, bool) and label in (0, 1):
        return float(label)
    if isinstance(label, str) and label.strip().lower() in NO_VALUE:
        return label.strip().lower()
    raise AgreeError(f'{where}: label must be 1, 0 or "undecidable", got {label!r}')


def read_sheet(path: Path, name: str) -> Source:
    """A filled labelling sheet. A line whose ``label`` is missing or null is not labelled
    yet: counted (``unlabelled``), not an error, so a half-done sheet can be compared."""
    source = Source(name, path)
    ids = UniqueIds()
    try:
        for where, _, line in read_objects(path):
            key = line.get("item_id")
            if not isinstance(key, str) or not key:
                raise AgreeError(f"{where}: no item_id (is this a sheet sci-agree export wrote?)")
            ids.add(key, where, where)
            source.items[key] = Item(
                key, str(line.get("task", "")), line.get("doc_id"),
                str(line.get("constraint", "")), str(line.get("question", "")),
                str(line.get("reply", "")), dict(line.get("requirement") or {}),
                tuple(line.get("images") or ()),
            )  # fmt: skip
            label = line.get("label")
            if label is None or (isinstance(label, float) and math.isnan(label)):
                source.unlabelled += 1
            else:
                source.values[key] = label_value(label, where)
    except DataError as exc:  # not UTF-8, not JSON, not an object, a duplicate id
        raise AgreeError(str(exc)) from None
    if not source.items:
        raise AgreeError(f"{path}: an empty sheet (no line)")
    if not source.values:
        raise AgreeError(
            f"{path}: no line has a label yet: fill each line's label with 1, 0 or "
            '"undecidable" (docs/labelling.md)'
        )
    return source


def read_source(path: Path, name: str | None = None) -> Source:
    """A folder of logged samples or a sheet (a file), named ``name`` (default: the path)."""
    name = name or str(path)
    if path.is_dir():
        return read_folder(path, name)
    if path.is_file():
        return read_sheet(path, name)
    raise AgreeError(f"{path}: no such folder or file")
