"""What the sample-image scripts share: where a benchmark's images go, colour names, the
default font, canvases, centred text, arrows and the quantised PNG they save.

The scripts import it as a sibling module (``python scripts/<script>.py`` puts ``scripts/``
first on ``sys.path``; ``tests/helpers.redrawn_sample_images`` does the same), as they do
``diagrams.py`` (plot frames, schematic symbols) and ``micrographs.py`` (microscope-like
fields).
"""

from __future__ import annotations

import math
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

Color = tuple[int, int, int]
Point = tuple[float, float]
Font = ImageFont.FreeTypeFont | ImageFont.ImageFont
WHITE: Color = (255, 255, 255)
BLACK: Color = (0, 0, 0)
BLUE: Color = (40, 90, 200)
RED: Color = (200, 40, 40)


def sample_images(benchmark: str) -> Path:
    """The committed images of a benchmark's bundled samples, in this repository (a script
    rewrites the repository's files, not an installed copy's)."""
    repository = Path(__file__).resolve().parents[1]
    return repository / "sci_tasks" / "benchmarks" / benchmark / "samples" / "images"


def font(size: int) -> Font:
    return ImageFont.load_default(size=size)


def canvas(size: tuple[int, int], color: Color = WHITE) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    image = Image.new("RGB", size, color)
    return image, ImageDraw.Draw(image)


def centred_text(
    draw: ImageDraw.ImageDraw, xy: Point, text: str, font: Font, fill: Color = BLACK
) -> None:
    draw.text(xy, text, fill=fill, font=font, anchor="mm")


def arrow(
    draw: ImageDraw.ImageDraw,
    start: Point,
    end: Point,
    fill: Color = BLACK,
    width: int = 2,
    head: float = 7.0,
    spread: float = 0.4,
) -> None:
    """A line from ``start`` with a filled head of length ``head`` (half-angle ``spread``
    radians) at ``end``."""
    draw.line([start, end], fill=fill, width=width)
    angle = math.atan2(end[1] - start[1], end[0] - start[0])
    left = (end[0] - head * math.cos(angle - spread), end[1] - head * math.sin(angle - spread))
    right = (end[0] - head * math.cos(angle + spread), end[1] - head * math.sin(angle + spread))
    draw.polygon([end, left, right], fill=fill)


def save_png(image: Image.Image, path: Path, colors: int = 32) -> Path:
    """``image`` as a PNG at ``path`` (folders made): quantised to a small adaptive palette,
    which keeps line drawings sharp and the files small, without dithering, which keeps the
    bytes the same on every run."""
    path.parent.mkdir(parents=True, exist_ok=True)
    image.quantize(colors=colors, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
        path, optimize=True
    )
    return path
