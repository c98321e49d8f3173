"""SPM-Bench loader: every ``*.jsonl`` of a folder (or a hub copy of one) -> ``datasets.Dataset``.

The record format is the project's own (spec ``spm_bench.md``, documented in
``samples/README.md`` here): ``id``, ``question``, ``options`` (a list, labelled
A, B, C, ... by position, or a label->text map), ``answer`` (labels), ``images`` (paths
relative to the folder), ``technique`` (STM / AFM / SEM / TEM), ``field`` and an optional
``bloom_level`` (1-6). Splits are filters on the loaded records, so one folder serves every
technique and field task; a split with no records is an error that names it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import datasets

from sci_tasks.data.jsonl import read_folder_records, read_location
from sci_tasks.data.locate import DataError, DataLocation, locate
from sci_tasks.data.records import image_files, name_key

from . import TECHNIQUES

log = logging.getLogger(__name__)

# The fields the spec names; other field names in a user's data are kept as written.
FIELDS = (
    "Crystal Structure",
    "Defect Engineering",
    "Topology",
    "Morphology",
    "Magnetic Materials",
    "Energy Materials",
)
REQUIRED_FIELDS = ("id", "question", "options", "answer", "images", "technique", "field")
LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
DEFAULT_SIP_LAMBDA = 0.6
DEFAULT_SIP_GAMMA = 6.0

FEATURES = datasets.Features(
    {
        "id": datasets.Value("string"),
        "question": datasets.Value("string"),
        "labels": [datasets.Value("string")],  # option labels, in display order
        "options": [datasets.Value("string")],  # option texts, aligned with labels
        "answer": [datasets.Value("string")],  # gold labels, sorted
        "images": [datasets.Value("string")],  # absolute paths
        "technique": datasets.Value("string"),
        "field": datasets.Value("string"),
        "bloom_level": datasets.Value("int64"),  # None when the record has none
        "data_source": datasets.Value("string"),
        "bundled_sample": datasets.Value("bool"),
        "record": datasets.Value("string"),  # "<file>:<line>", to trace a sample back
    }
)


_FIELD_BY_KEY = {name_key(f): f for f in FIELDS}


def field_name(name: str) -> str:
    """The spec's spelling of a known field; any other name is kept (trimmed)."""
    return _FIELD_BY_KEY.get(name_key(name), name.strip())


def load(
    location: DataLocation | None = None,
    *,
    technique: str | None = None,
    field: str | None = None,
) -> datasets.Dataset:
    """The records of one split (all records when neither filter is given): the records'
    own fields only (the SIP-F1 parameters and the image budget are the run's settings,
    ``sci_tasks.run_settings``)."""
    location = location or locate("spm_bench")
    records = read_location(location, "SPM-Bench", _normalise)
    split = []
    if technique is not None:
        wanted = technique.strip().upper()
        if wanted not in TECHNIQUES:
            raise DataError(
                f"unknown SPM-Bench technique {technique!r}; known: {', '.join(TECHNIQUES)}"
            )
        split.append(("technique", wanted))
    if field is not None:
        split.append(("field", field))
    kept = [r for r in records if all(name_key(r[k]) == name_key(v) for k, v in split)]
    if not kept:
        name = " and ".join(f"{k}={v!r}" for k, v in split)
        present = {k: sorted({r[k] for r in records}) for k, _ in split}
        seen = "; ".join(f"{k}s present: {', '.join(v)}" for k, v in present.items())
        raise DataError(f"SPM-Bench split {name} has no records in {location.describe()} ({seen})")
    return datasets.Dataset.from_list(list(kept), features=FEATURES)


def sip_parameters(sip_lambda: Any, sip_gamma: Any) -> tuple[float, float]:
    """Validated SIP-F1 parameters: lambda in (0, 1], Gamma >= 1 (a wrong pick never
    weighs less than a right one)."""
    try:
        lam, gamma = float(sip_lambda), float(sip_gamma)
    except (TypeError, ValueError) as exc:
        raise DataError(
            f"sip_lambda / sip_gamma must be numbers, got {sip_lambda!r}, {sip_gamma!r}"
        ) from exc
    if not 0.0 < lam <= 1.0:  # NaN fails too
        raise DataError(f"sip_lambda must be in (0, 1], got {lam}")
    if not gamma >= 1.0:
        raise DataError(f"sip_gamma must be >= 1, got {gamma}")
    return lam, gamma


def read_folder(folder: Path, source: str = "", bundled: bool = False) -> list[dict[str, Any]]:
    """Every ``*.jsonl`` in ``folder`` (sorted by name), normalised; ids unique across files."""
    return read_folder_records(folder, "SPM-Bench", _normalise, source, bundled)


def _normalise(raw: Any, where: str, folder: Path) -> dict[str, Any]:
    missing = [f for f in REQUIRED_FIELDS if f not in raw]
    if missing:
        raise DataError(f"{where}: missing field(s) {', '.join(missing)}")
    if (
        not isinstance(raw["id"], (str, int))
        or isinstance(raw["id"], bool)
        or str(raw["id"]).strip() == ""
    ):
        raise DataError(f"{where}: id must be a non-empty string or an integer, got {raw['id']!r}")
    question = raw["question"]
    if not isinstance(question, str) or not question.strip():
        raise DataError(f"{where}: question must be non-empty text")
    labels, texts = _options(raw["options"], where)
    return {
        "id": str(raw["id"]).strip(),
        "question": question.strip(),
        "labels": labels,
        "options": texts,
        "answer": _answer(raw["answer"], labels, where),
        "images": image_files(raw["images"], folder, where),
        "technique": _technique(raw["technique"], where),
        "field": _field(raw["field"], where),
        "bloom_level": _bloom(raw.get("bloom_level"), where),
    }


def _options(value: Any, where: str) -> tuple[list[str], list[str]]:
    if isinstance(value, list):
        if len(value) > len(LABELS):
            raise DataError(f"{where}: at most {len(LABELS)} options, got {len(value)}")
        labels, texts = list(LABELS[: len(value)]), value
    elif isinstance(value, Mapping):
        labels = [str(k).strip().upper() for k in value]
        texts = list(value.values())
        bad = [
            str(k)
            for k, lab in zip(value, labels, strict=True)
            if len(lab) != 1 or lab not in LABELS
        ]
        if bad:
            raise DataError(
                f"{where}: option labels must be single letters A-Z, got {', '.join(bad)}"
            )
        if len(set(labels)) != len(labels):
            raise DataError(f"{where}: option labels repeat: {', '.join(labels)}")
    else:
        raise DataError(
            f"{where}: options must be a list or a label->text map, got {type(value).__name__}"
        )
    if len(texts) < 2:
        raise DataError(f"{where}: a question needs at least two options, got {len(texts)}")
    if not all(isinstance(t, str) and t.strip() for t in texts):
        raise DataError(f"{where}: every option must be non-empty text")
    return labels, [t.strip() for t in texts]


def _answer(value: Any, labels: list[str], where: str) -> list[str]:
    given = [value] if isinstance(value, str) else value
    if not isinstance(given, list) or not all(isinstance(a, str) for a in given) or not given:
        raise DataError(f"{where}: answer must be a non-empty list of labels, got {value!r}")
    answer = [a.strip().upper() for a in given]
    unknown = [a for a in answer if a not in labels]
    if unknown:
        raise DataError(
            f"{where}: answer label(s) {', '.join(unknown)} "
            f"not among the options {', '.join(labels)}"
        )
    if len(set(answer)) != len(answer):
        raise DataError(f"{where}: answer repeats a label: {', '.join(answer)}")
    return sorted(answer)


def _technique(value: Any, where: str) -> str:
    name = value.strip().upper() if isinstance(value, str) else None
    if name not in TECHNIQUES:
        raise DataError(f"{where}: technique must be one of {', '.join(TECHNIQUES)}, got {value!r}")
    return name


def _field(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise DataError(f"{where}: field must be non-empty text, got {value!r}")
    return field_name(value)


def _bloom(value: Any, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
        raise DataError(f"{where}: bloom_level must be an integer 1-6, got {value!r}")
    return value


def load_for_lm_eval(
    technique: str | None = None,
    field: str | None = None,
    sip_lambda: Any = DEFAULT_SIP_LAMBDA,
    sip_gamma: Any = DEFAULT_SIP_GAMMA,
    **metadata: Any,
) -> datasets.DatasetDict:
    """lm-eval ``custom_dataset`` hook.

    The split comes from the task's ``dataset_kwargs``, the data location from the task
    ``metadata`` (``--metadata`` overrides the YAML). The SIP-F1 parameters there are checked
    now, before any generation; scoring reads them from the task's settings
    (``metrics.spm.score``).
    """
    location = locate("spm_bench", metadata)
    sip_parameters(sip_lambda, sip_gamma)
    ds = load(location, technique=technique, field=field)
    return datasets.DatasetDict({"test": ds})
