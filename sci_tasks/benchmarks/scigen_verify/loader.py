"""SciGen-Verify loader: every ``*.jsonl`` of a folder (or a hub copy) -> ``datasets.Dataset``.

The record format is the project's own (spec ``scigen_verify.md``, documented in
``samples/README.md`` here): ``id``, ``category``, ``discipline``,
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
from pathlib import Path
from typing import Any

import datasets

from sci_tasks.benchmarks.scigen_verify.parse import parse_verification
from sci_tasks.data import read_once
from sci_tasks.data.jsonl import read_folder_records, read_location
from sci_tasks.data.locate import DataError, DataLocation, locate
from sci_tasks.data.records import image_files, known_name
from sci_tasks.metrics.reply import normalise_reply

from . import CATEGORIES

log = logging.getLogger(__name__)

DISCIPLINES = ("mathematics", "physics", "chemistry", "biology", "geography")
_CATEGORY_ALIASES = {"if": "instruction_following", "mr": "multidisciplinary_reasoning",
                     "wk": "world_knowledge"}  # fmt: skip
_DISCIPLINE_ALIASES = {"math": "mathematics", "maths": "mathematics", "phys": "physics",
                       "chem": "chemistry", "bio": "biology", "life": "biology",
                       "geo": "geography"}  # fmt: skip

PERTURBATIONS = ("image", "text")
REQUIRED_FIELDS = ("id", "category", "discipline", "instruction", "images", "label", "explanation")
# the chat-message layout (see _from_chat)
CHAT_MESSAGES = "messages"
CHAT_REQUIRED_FIELDS = ("id", "category", "discipline", "messages", "images",
                        "explanation_edit_generation")  # fmt: skip
IMAGE_PLACEHOLDER = "<image>"
CHAT_KEPT_FIELDS = ("id", "category", "discipline", "pair_id", "perturbation")
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


def category_name(name: str) -> str:
    """``Instruction Following``, ``instruction-following``, ``IF`` -> ``instruction_following``."""
    return known_name(name, CATEGORIES, _CATEGORY_ALIASES, "SciGen-Verify category")


def discipline_name(name: str) -> str:
    return known_name(name, DISCIPLINES, _DISCIPLINE_ALIASES, "discipline")


# --- SciGen-Verify records ---------------------------------------------------------------------


def load(
    location: DataLocation | None = None,
    *,
    category: str | None = None,
) -> datasets.Dataset:
    """The records of one category (all records when no category is given)."""
    location = location or locate("scigen_verify")
    records = read_location(location, "SciGen-Verify", _normalise)
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
    return datasets.Dataset.from_list(list(records), features=FEATURES)


def read_folder(folder: Path, source: str = "", bundled: bool = False) -> list[dict[str, Any]]:
    """Every ``*.jsonl`` directly in ``folder`` (sorted by name), normalised; ids unique."""
    return read_folder_records(folder, "SciGen-Verify", _normalise, source, bundled)


def _normalise(raw: Any, where: str, folder: Path) -> dict[str, Any]:
    if CHAT_MESSAGES in raw:  # chosen per record: a folder may hold both layouts
        raw = _from_chat(raw, where)
    missing = [f for f in REQUIRED_FIELDS if f not in raw]
    if missing:
        raise DataError(f"{where}: missing field(s) {', '.join(missing)}")
    label = _label(raw["label"], where)
    source_images = image_files(
        raw.get("source_images"), folder, where, "source_images", optional=True
    )
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
        "images": image_files(raw["images"], folder, where),
        "source_images": source_images,
        "task_type": "editing" if source_images else "generation",
        "label": label,
        "explanation": _text(raw["explanation"], where, "explanation"),
        "edit": edit,
        "pair_id": _optional_text(raw.get("pair_id"), where, "pair_id"),
        "perturbation": perturbation,
    }


# --- the chat-message layout ------------------------------------------------------------------


def _turn_text(content: Any, where: str, turn: str) -> tuple[str, int]:
    """A turn's text and its number of image slots (``<image>`` placeholders in the text,
    plus ``{"type": "image"}`` parts of a content list)."""
    if isinstance(content, str):
        return content, content.count(IMAGE_PLACEHOLDER)
    if isinstance(content, list) and all(isinstance(p, dict) for p in content):
        texts, slots = [], 0
        for part in content:
            if part.get("type") == "text" and isinstance(part.get("text"), str):
                texts.append(part["text"])
                slots += part["text"].count(IMAGE_PLACEHOLDER)
            elif part.get("type") in ("image", "image_url"):
                slots += 1
            else:
                raise DataError(f"{where}: {turn} content part {part!r} is neither text nor image")
        return "".join(texts), slots
    raise DataError(f"{where}: {turn} content must be text or a list of parts, got {content!r}")


def _from_chat(raw: dict[str, Any], where: str) -> dict[str, Any]:
    """A chat-message record (the layout of the authors' training data, as read by the
    lmms-eval port) in the documented layout, for the same validation.

    ``messages``: exactly one user turn, whose text is the instruction with one ``<image>``
    placeholder per entry of ``images`` (in that order), and the reference answer as the
    last assistant turn, whose true / false is the label (read like a verifier reply);
    ``explanation_edit_generation``: ``{"explanation": ..., "edit": ...}``. ``question``,
    when present, is the instruction (the port gives it to the judge); else the user text
    without its placeholders is. ``source_images`` (optional) names which of ``images`` an
    editing instruction starts from: the first entries of ``images``.
    """
    mixed = [f for f in ("instruction", "label", "explanation", "edit") if f in raw]
    if mixed:
        raise DataError(
            f"{where}: a chat-message record ({CHAT_MESSAGES}) cannot also have "
            f"{', '.join(mixed)}: use one record layout"
        )
    missing = [f for f in CHAT_REQUIRED_FIELDS if f not in raw]
    if missing:
        raise DataError(f"{where}: missing field(s) {', '.join(missing)} (chat-message layout)")
    messages = raw[CHAT_MESSAGES]
    if not isinstance(messages, list) or not all(
        isinstance(m, dict) and isinstance(m.get("role"), str) for m in messages
    ):
        raise DataError(f"{where}: {CHAT_MESSAGES} must be a list of {{role, content}} objects")
    users = [i for i, m in enumerate(messages) if m["role"] == "user"]
    if len(users) != 1:
        raise DataError(f"{where}: a chat-message record has one user turn, found {len(users)}")
    user_text, slots = _turn_text(messages[users[0]].get("content"), where, "the user turn")
    assistants = [i for i, m in enumerate(messages) if m["role"] == "assistant" and i > users[0]]
    if not assistants:
        raise DataError(f"{where}: no assistant turn after the user turn (it holds the label)")
    answer_text, _ = _turn_text(messages[assistants[-1]].get("content"), where, "assistant turn")
    answer = parse_verification(normalise_reply(answer_text))  # a reasoning block is no label
    if answer.judgement is None:
        raise DataError(
            f"{where}: the last assistant turn gives no true / false label ({answer.note}): "
            f"{answer_text[:80]!r}"
        )

    images = raw["images"]
    rels = [images] if isinstance(images, str) else images
    if not isinstance(rels, list) or not rels:
        raise DataError(f"{where}: images must be one or more paths, got {images!r}")
    if slots != len(rels):
        raise DataError(
            f"{where}: the user turn has {slots} {IMAGE_PLACEHOLDER} placeholder(s) for "
            f"{len(rels)} image(s); they must match one to one, in order"
        )
    sources = raw.get("source_images") or []
    sources = [sources] if isinstance(sources, str) else sources
    if not isinstance(sources, list) or rels[: len(sources)] != sources:
        raise DataError(
            f"{where}: source_images must be the first entries of images (the image(s) the "
            f"edit starts from, in order), got {raw['source_images']!r}"
        )
    if len(sources) >= len(rels):
        raise DataError(f"{where}: every image is a source image; no candidate to verify")
    reference = raw["explanation_edit_generation"]
    if not isinstance(reference, dict):
        raise DataError(
            f"{where}: explanation_edit_generation must be an object with explanation and "
            f"edit, got {reference!r}"
        )
    question = raw.get("question")
    instruction = question if isinstance(question, str) and question.strip() else None
    if instruction is None:
        instruction = re.sub(rf"\s*{re.escape(IMAGE_PLACEHOLDER)}\s*", " ", user_text).strip()
    return {
        **{k: raw[k] for k in CHAT_KEPT_FIELDS if k in raw},
        "instruction": instruction,
        "images": rels[len(sources) :],
        "source_images": sources,
        "label": answer.judgement,
        "explanation": reference.get("explanation"),
        "edit": reference.get("edit"),
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


def load_for_lm_eval(category: str | None = None, **metadata: Any) -> datasets.DatasetDict:
    """lm-eval ``custom_dataset`` hook: the category from the task's ``dataset_kwargs``, the
    data location from ``--metadata`` / the environment / the bundled samples."""
    location = locate("scigen_verify", metadata)
    return datasets.DatasetDict({"test": load(location, category=category)})


# --- SciGen-Rubric records ---------------------------------------------------------------------


def load_rubric(location: DataLocation | None = None) -> datasets.Dataset:
    """The rubric-generation records: every ``*.jsonl`` in the data folder's ``rubric/``."""
    location = location or locate("scigen_verify")
    return datasets.Dataset.from_list(list(_read_rubric_cached(location)), features=RUBRIC_FEATURES)


@read_once()
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
