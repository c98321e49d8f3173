"""What the sample-image scripts share: colour names, the default font and arrows.

The scripts import it as a sibling module (``python scripts/<script>.py`` puts ``scripts/``
first on ``sys.path``; ``tests/helpers.redrawn_sample_images`` does the same).
"""

from __future__ import annotations

import math

from PIL import ImageDraw, ImageFont

Color = tuple[int, int, int]
Point = tuple[float, float]
Font = ImageFont.FreeTypeFont | ImageFont.ImageFont
WHITE: Color = (255, 255, 255)
BLACK: Color = (0, 0, 0)
BLUE: Color = (40, 90, 200)
RED: Color = (200, 40, 40)


def font(size: int) -> Font:
    return ImageFont.load_default(size=size)


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
