"""Where a benchmark's data lives: the one convention of ``shared/spec/README.md``.

Order of precedence (first set wins):

1. per-run settings (lm-eval ``--metadata``, Hydra ``data.*``, ``TaskManager(metadata=)``):
   the benchmark's own key (``SCIMIF_DATA_DIR``), then the common root ``SCI_TASKS_DATA_DIR``;
2. the same names as environment variables, benchmark key first;
3. the bundled sample set shipped inside the package.

A value is a local folder or a Hugging Face dataset id (``owner/name``, optionally
``owner/name@revision``). Under the common root, each benchmark is the subfolder named
after it (``scimif/``, ``spm_bench/``, ``scigen_verify/``), for folders and hub ids alike.
How a hub id is read is the benchmark loader's business: SciMIF reads ``SCIMIF_DATA_DIR=
owner/name`` with ``datasets.load_dataset`` (the authors' hub layout); a hub subfolder (a
common-root hub id) and the other benchmarks are fetched as folders (``DataLocation.folder``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any, Literal

from sci_tasks import registry

ROOT_KEY = "SCI_TASKS_DATA_DIR"
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+(@[\w./-]+)?$")

SourceKind = Literal["folder", "hub", "samples"]


class DataError(ValueError):
    """Data that cannot be used, with the file (and line) to look at."""


@dataclass(frozen=True)
class DataLocation:
    benchmark: str
    kind: SourceKind
    where: str  # a folder path, or a hub id
    subdir: str = ""  # within a hub repository
    set_by: str = "default"

    @property
    def is_samples(self) -> bool:
        return self.kind == "samples"

    def describe(self) -> str:
        if self.is_samples:
            return f"bundled {self.benchmark} samples (no data location set)"
        sub = f" [{self.subdir}]" if self.subdir else ""
        return f"{self.kind} {self.where}{sub} (from {self.set_by})"

    @property
    def hub_ref(self) -> tuple[str, str | None]:
        """``(repo_id, revision)`` of a hub location: ``owner/name@rev`` -> revision ``rev``."""
        if self.kind != "hub":
            raise ValueError(f"{self.describe()} is not a hub dataset id")
        repo_id, _, revision = self.where.partition("@")
        return repo_id, revision or None

    def folder(self) -> Path:
        """A local folder holding the data; hub ids are fetched into the HF cache first."""
        if self.kind != "hub":
            return Path(self.where)
        return _hub_snapshot(self, self.subdir)


def samples_dir(benchmark: str) -> Path:
    return Path(str(files("sci_tasks.benchmarks") / benchmark / "samples"))


def locate(benchmark: str, overrides: Mapping[str, Any] | None = None) -> DataLocation:
    """Find ``benchmark``'s data following the convention above."""
    key = registry.get(benchmark).data_key  # KeyError naming the known ones
    sources: list[tuple[str, Mapping[str, Any]]] = [
        ("run settings", overrides or {}),
        ("environment", os.environ),
    ]
    for origin, values in sources:
        for name, is_root in ((key, False), (ROOT_KEY, True)):
            value = values.get(name)
            if value is None or str(value).strip() == "":
                continue
            return _parse(benchmark, str(value).strip(), is_root, f"{name} ({origin})")
    return DataLocation(benchmark, "samples", str(samples_dir(benchmark)))


def _parse(benchmark: str, value: str, is_root: bool, set_by: str) -> DataLocation:
    path = Path(value).expanduser()
    if path.is_dir():
        folder = path / benchmark if is_root else path
        if not folder.is_dir():
            raise DataError(f"{set_by} is {value!r} but it has no {benchmark}/ subfolder")
        return DataLocation(benchmark, "folder", str(folder.resolve()), set_by=set_by)
    if _HUB_ID.match(value) and not value.startswith((".", "/", "~")):
        return DataLocation(benchmark, "hub", value, benchmark if is_root else "", set_by)
    raise DataError(f"{set_by} is {value!r}: neither an existing folder nor a hub dataset id")


def _hub_snapshot(location: DataLocation, subdir: str) -> Path:
    # huggingface_hub is what `datasets` itself uses to fetch repositories; reusing it keeps
    # the released folder layout so one folder loader serves both sources.
    from huggingface_hub import snapshot_download

    repo = location.where
    repo_id, revision = location.hub_ref
    try:
        root = snapshot_download(
            repo_id=repo_id,
            repo_type="dataset",
            revision=revision,
            allow_patterns=[f"{subdir}/**"] if subdir else None,
        )
    except Exception as exc:
        raise DataError(f"cannot fetch hub dataset {repo!r}: {type(exc).__name__}: {exc}") from exc
    folder = Path(root) / subdir if subdir else Path(root)
    if not folder.is_dir():
        raise DataError(f"hub dataset {repo!r} has no {subdir}/ folder")
    return folder
