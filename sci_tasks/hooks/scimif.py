"""lm-eval glue for SciMIF: data hook, prompt and images. Loading: ``sci_tasks.data.scimif``;
scoring: ``sci_tasks.metrics.scimif``."""

from __future__ import annotations

from typing import Any

from PIL import Image

from sci_tasks.data.scimif import load_for_lm_eval
from sci_tasks.metrics.judge import configure_from_metadata
from sci_tasks.prompts import render


def doc_to_text(doc: dict[str, Any]) -> str:
    return render("scimif.jinja", doc)


def doc_to_image(doc: dict[str, Any]) -> list[Image.Image]:
    return [Image.open(path).convert("RGB") for path in doc["images"]]


def load(discipline: str, **metadata: Any) -> Any:
    """``custom_dataset``: lm-eval passes ``--metadata`` here, the one hook that sees it, so
    the per-run judge settings (``{"judge": {...}}``) are taken up here too."""
    configure_from_metadata(metadata)
    return load_for_lm_eval(discipline, **metadata)
