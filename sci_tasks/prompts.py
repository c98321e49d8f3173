"""Render the Jinja prompt templates shipped under ``templates/`` (``sci_tasks.templates``)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from functools import lru_cache
from importlib.resources import files
from typing import Any

import jinja2


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(files("sci_tasks.templates"))),
        undefined=jinja2.StrictUndefined,  # a field missing from a record is an error, not ""
        keep_trailing_newline=False,
        autoescape=False,
    )


def render(template: str, context: Mapping[str, Any]) -> str:
    return environment().get_template(template).render(**context)


# lm-eval's image placeholder: hf-multimodal and vllm-vlm put the i-th image of a request
# where the i-th placeholder stands (and refuse images without one); chat APIs get the images
# before the text, so the placeholders go first, one per image, in the images' order
IMAGE_PLACEHOLDER = "<image>"


def with_image_placeholders(prompt: str, n_images: int) -> str:
    """``prompt`` after one ``<image>`` per image (none for a text-only record)."""
    return f"{IMAGE_PLACEHOLDER * n_images}\n{prompt}" if n_images else prompt


@lru_cache(maxsize=64)
def version(template: str) -> str:
    """``<template>@<hash of its source>``: recorded with every judge verdict, so a changed
    prompt can never pass for the old one."""
    source, _, _ = environment().loader.get_source(environment(), template)  # type: ignore[union-attr]
    return f"{template}@{hashlib.sha256(source.encode()).hexdigest()[:10]}"
