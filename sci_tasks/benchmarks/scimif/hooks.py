"""lm-eval glue for SciMIF: prompt, images and the judge work of its scoring. Loading:
``sci_tasks.benchmarks.scimif.loader``; scoring: ``sci_tasks.benchmarks.scimif.metrics``."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from PIL import Image

from sci_tasks.metrics.judge.prefetch import CONSTRAINTS, CORRECTNESS, Units
from sci_tasks.prompts import render, with_image_placeholders
from sci_tasks.run_settings import RunSettings

if TYPE_CHECKING:
    from sci_tasks.metrics.constraints.base import CheckInput
    from sci_tasks.metrics.judge.client import JudgeClient


def doc_to_text(doc: dict[str, Any]) -> str:
    return with_image_placeholders(render("scimif.jinja", doc), len(doc["images"]))


def doc_to_image(doc: dict[str, Any]) -> list[Image.Image]:
    return [Image.open(path).convert("RGB") for path in doc["images"]]


def judge_work(doc: Mapping[str, Any], response: str, settings: RunSettings) -> Units:
    """SciMIF's ``judge_work``: each constraint whose checker may ask the judge (and, where
    the task declares a cascade for its family, the cascade's question after it), then the
    correctness grade (by the settings' correctness protocol)."""
    from sci_tasks.benchmarks.scimif import metrics as scimif
    from sci_tasks.metrics import cascade
    from sci_tasks.metrics.constraints.registry import Kind, evaluate, resolve

    doc = dict(doc)
    policy_of = cascade.policies(settings.options)
    for name, inp in scimif.check_inputs(doc, response):
        constraint = resolve(name)
        if constraint is None:
            continue
        policy = policy_of.get(cascade.family(constraint.name, constraint.domain) or "")
        if policy is not None:  # the rule's verdict, then the question scoring asks of it
            yield CONSTRAINTS, partial(cascaded, name, inp, policy)
        # rule-kind checkers never ask the judge; judge-kind ones do, and extract- and
        # RDKit-kind ones may (to copy a span out of the response)
        elif constraint.kind is not Kind.RULE:
            yield CONSTRAINTS, partial(evaluate, name, inp)
    protocol, _ = settings.grader()
    yield CORRECTNESS, partial(scimif.grade_correctness, doc, response, protocol=protocol)


def cascaded(name: str, inp: CheckInput, policy: str, judge: JudgeClient) -> dict[str, Any]:
    """One constraint as scoring decides it under a cascade ``policy``
    (``metrics.scimif.cascaded``): the rule's verdict, then ``cascade.decide``."""
    from sci_tasks.metrics import cascade
    from sci_tasks.metrics.constraints.registry import evaluate

    return cascade.decide(evaluate(name, inp, judge).as_dict(), inp, policy, judge)
