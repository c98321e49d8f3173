"""lm-eval glue for SciGen-Verify and SciGen-Rubric: prompts, images and targets.
Loading: ``.loader``; scoring: ``.metrics`` and ``.rubric`` (this package's)."""

from __future__ import annotations

import json
from typing import Any

from PIL import Image

from sci_tasks.benchmarks.scigen_verify.metrics import edit_images
from sci_tasks.images import open_images
from sci_tasks.prompts import render, with_image_placeholders


def doc_to_text(doc: dict[str, Any]) -> str:
    return with_image_placeholders(render("scigen_verify.jinja", doc), len(edit_images(doc)))


def doc_to_image(doc: dict[str, Any]) -> list[Image.Image]:
    """The source image(s) of an editing record first, then the candidate image(s), within
    at full resolution (the task fits them into its image budget, ``SciTask.doc_to_image``;
    the edit judge sees the same images: ``verify.edit_images``)."""
    return open_images(edit_images(doc))


def doc_to_target(doc: dict[str, Any]) -> str:
    """The reference reply in the format the prompt asks for (few-shot examples, logs)."""
    edit = "" if doc["label"] else f"<edit>{doc['edit']}</edit>"
    answer = "true" if doc["label"] else "false"
    return f"<answer>{answer}</answer><explanation>{doc['explanation']}</explanation>{edit}"


def rubric_doc_to_text(doc: dict[str, Any]) -> str:
    return render("scigen_rubric.jinja", doc)


def rubric_doc_to_target(doc: dict[str, Any]) -> str:
    """The gold rules as a one-criterion rubric (a reference for logs, not a scoring target)."""
    criteria = [{"criterion": "gold rules", "weight": 10, "checking_points": doc["gold_rules"]}]
    return json.dumps({"criteria": criteria}, ensure_ascii=False)
