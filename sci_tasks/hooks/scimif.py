"""lm-eval glue for SciMIF: prompt, images and the judge work of its scoring. Loading:
``sci_tasks.data.scimif``; scoring: ``sci_tasks.metrics.scimif``."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from PIL import Image

from sci_tasks.metrics.judge.prefetch import CONSTRAINTS, CORRECTNESS, Units
from sci_tasks.prompts import render, with_image_placeholders
from sci_tasks.run_settings import RunSettings


def doc_to_text(doc: dict[str, Any]) -> str:
    return with_image_placeholders(render("scimif.jinja", doc), len(doc["images"]))


def doc_to_image(doc: dict[str, Any]) -> list[Image.Image]:
    return [Image.open(path).convert("RGB") for path in doc["images"]]


def judge_work(doc: Mapping[str, Any], response: str, settings: RunSettings) -> Units:
    """SciMIF's ``judge_work``: each constraint whose checker may ask the judge, then the
    correctness grade (by the settings' correctness protocol)."""
    from sci_tasks.metrics import scimif
    from sci_tasks.metrics.constraints.registry import Kind, evaluate, resolve

    doc = dict(doc)
    for name, inp in scimif.check_inputs(doc, response):
        constraint = resolve(name)
        # rule-kind checkers never ask the judge; judge-kind ones do, and extract- and
        # RDKit-kind ones may (to copy a span out of the response)
        if constraint is not None and constraint.kind is not Kind.RULE:
            yield CONSTRAINTS, partial(evaluate, name, inp)
    protocol, _ = settings.grader()
    yield CORRECTNESS, partial(scimif.grade_correctness, doc, response, protocol=protocol)
