"""The image budget: the one place where a task's images are fitted to a size limit before
they reach the evaluated model or the judge.

Hosted APIs refuse requests above a size limit (and bill by image tiles); a scientific
figure at full resolution can exceed both. A task sets ``max_image_pixels`` (width x
height) and / or ``max_image_bytes`` (the encoded image) in its YAML ``metadata`` or a
run's ``--metadata``; both are off by default, so local backends see full resolution.

* Pixels: an image above ``max_image_pixels`` is scaled down, aspect ratio kept (Lanczos),
  to the largest size within the budget.
* Bytes: measured on the PNG encoding that is actually sent (lm-eval's API backends send
  every image as PNG; the judge gets the PNG files written here), shrinking further until
  it fits. PNG is lossless, so only the size changes, never the colours.

The model (the task's ``doc_to_image``: ``sci_tasks.task.SciTask``) and the judge
(``judge_file``) get the same pixels. The budget is a run setting
(``sci_tasks.run_settings.RunSettings.image_budget``), resolved once per task from its
metadata, never a document field: it is in the results' task ``configs`` metadata and each
scored record's ``image_budget``, and a re-score applies the run's budget.
"""

from __future__ import annotations

import hashlib
import io
import math
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

from sci_tasks.cache import cache_root

PIXELS_KEY = "max_image_pixels"  # the options (task metadata) that set the budget
BYTES_KEY = "max_image_bytes"

MIN_BYTES = 1024  # room for a small PNG: a lower limit is a typo, not a budget
_SHRINK_STEPS = 16  # each step aims below the limit; PNG size follows the pixel count


@dataclass(frozen=True)
class ImageBudget:
    max_pixels: int | None = None
    max_bytes: int | None = None

    @property
    def active(self) -> bool:
        return self.max_pixels is not None or self.max_bytes is not None

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> ImageBudget:
        """The budget from task metadata / run settings; a bad value is an error naming
        the option (``ValueError``). Absent, null, empty or 0: no limit."""
        return cls(
            _limit(settings.get(PIXELS_KEY), PIXELS_KEY, 1),
            _limit(settings.get(BYTES_KEY), BYTES_KEY, MIN_BYTES),
        )

    def fields(self) -> dict[str, int | None]:
        """The budget as its options (a scored record's ``image_budget`` entry)."""
        return {PIXELS_KEY: self.max_pixels, BYTES_KEY: self.max_bytes}


NO_BUDGET = ImageBudget()


def _limit(value: Any, name: str, minimum: int) -> int | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and value.strip().isdigit():
        number = int(value.strip())
    if number is None:
        raise ValueError(f"{name} must be a whole number or null, got {value!r}")
    if number == 0:
        return None
    if number < minimum:
        raise ValueError(f"{name} must be at least {minimum} (or 0 / null: no limit), got {value}")
    return number


def png_bytes(image: Image.Image) -> bytes:
    """The image as lm-eval's API backends encode it (``create_image_prompt``: PNG)."""
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def _scaled(image: Image.Image, factor: float) -> Image.Image:
    w, h = image.size
    size = (max(1, math.floor(w * factor)), max(1, math.floor(h * factor)))
    return image if size == image.size else image.resize(size, Image.Resampling.LANCZOS)


def fit(image: Image.Image, budget: ImageBudget) -> Image.Image:
    """``image`` within ``budget`` (the same object when it already fits)."""
    w, h = image.size
    if budget.max_pixels is not None and w * h > budget.max_pixels:
        # floor of both sides keeps the product within the limit
        image = _scaled(image, math.sqrt(budget.max_pixels / (w * h)))
    if budget.max_bytes is not None:
        for _ in range(_SHRINK_STEPS):
            size = len(png_bytes(image))
            if size <= budget.max_bytes:
                break
            smaller = _scaled(image, 0.95 * math.sqrt(budget.max_bytes / size))
            if smaller.size == image.size:  # already 1 x 1
                break
            image = smaller
        else:
            size = len(png_bytes(image))
        if size > budget.max_bytes:
            raise ValueError(f"cannot fit an image into {BYTES_KEY}={budget.max_bytes}")
    return image


def open_image(path: str, budget: ImageBudget = NO_BUDGET) -> Image.Image:
    """One image for the model: RGB, within the budget."""
    with Image.open(path) as img:
        return fit(img.convert("RGB"), budget)


def open_images(paths: Sequence[str], budget: ImageBudget = NO_BUDGET) -> list[Image.Image]:
    return [open_image(p, budget) for p in paths]


def cache_folder() -> Path:
    """Budgeted copies for the judge: next to the judge cache (``$SCI_TASKS_CACHE/images``)."""
    return cache_root() / "images"


def judge_file(path: str, budget: ImageBudget, folder: Path | None = None) -> str:
    """The file to send the judge for ``path``: the file itself when there is no budget or
    it already fits, else a PNG of exactly the pixels the model gets, written once (named
    by the original's content and the budget) so the judge cache key is stable."""
    if not budget.active:
        return path
    original = Path(path).read_bytes()
    with Image.open(io.BytesIO(original)) as img:
        source_size = img.size
        fitted = fit(img.convert("RGB"), budget)
        if fitted.size == source_size and (
            budget.max_bytes is None or len(original) <= budget.max_bytes
        ):
            return path
    digest = hashlib.sha256(original).hexdigest()[:32]
    target = (folder or cache_folder()) / f"{digest}-{budget.max_pixels}-{budget.max_bytes}.png"
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_bytes(png_bytes(fitted))
        os.replace(tmp, target)
    return str(target)


def judge_files(paths: Sequence[str], budget: ImageBudget) -> list[str]:
    return [judge_file(p, budget) for p in paths]
