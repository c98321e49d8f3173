"""lm-eval glue for SPM-Bench: prompt, images and target. Data: ``.loader``; scoring:
``.metrics`` (this package's)."""

from __future__ import annotations

from typing import Any

from PIL import Image

from sci_tasks.images import open_images
from sci_tasks.prompts import render, with_image_placeholders


def doc_to_text(doc: dict[str, Any]) -> str:
    return with_image_placeholders(render("spm_bench.jinja", doc), len(doc["images"]))


def doc_to_image(doc: dict[str, Any]) -> list[Image.Image]:
    """Every image of the question, in the record's order (questions refer to "image 1", ...),
    at full resolution (the task fits them into its image budget: ``SciTask.doc_to_image``)."""
    return open_images(doc["images"])


def doc_to_target(doc: dict[str, Any]) -> str:
    """The gold labels as the prompt asks for them, e.g. ``A, C``."""
    return ", ".join(doc["answer"])
