"""lm-eval glue for SciMIF: prompt and images. Loading: ``.loader``; scoring: ``.metrics``
(this package's)."""

from __future__ import annotations

from typing import Any

from PIL import Image

from sci_tasks.prompts import render, with_image_placeholders


def doc_to_text(doc: dict[str, Any]) -> str:
    return with_image_placeholders(render("scimif.jinja", doc), len(doc["images"]))


def doc_to_image(doc: dict[str, Any]) -> list[Image.Image]:
    return [Image.open(path).convert("RGB") for path in doc["images"]]
