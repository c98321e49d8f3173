"""Line-drawing pieces of the sample figures: a plot frame mapping data to pixels, dashed
lines, a north arrow and a circuit's resistor (a sibling module of the scripts, as
``drawing.py``)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from drawing import BLACK, BLUE, Color, Font, Point, arrow, centred_text
from PIL import ImageDraw


class Axes:
    """A minimal plot frame mapping data coordinates to pixels; ``fonts``: (axis labels,
    tick labels)."""

    def __init__(
        self,
        d: ImageDraw.ImageDraw,
        box: tuple[int, int, int, int],
        xlim: tuple[float, float],
        ylim: tuple[float, float],
        fonts: tuple[Font, Font],
    ) -> None:
        self.d, self.box, self.xlim, self.ylim = d, box, xlim, ylim
        self.label_font, self.tick_font = fonts

    def px(self, x: float, y: float) -> tuple[float, float]:
        x0, y0, x1, y1 = self.box
        fx = (x - self.xlim[0]) / (self.xlim[1] - self.xlim[0])
        fy = (y - self.ylim[0]) / (self.ylim[1] - self.ylim[0])
        return x0 + fx * (x1 - x0), y1 - fy * (y1 - y0)

    def frame(
        self,
        xticks: Sequence[float],
        yticks: Sequence[float],
        xlabel: str,
        ylabel: str,
        fmt_x: Callable[[float], str] = lambda v: f"{v:g}",
        fmt_y: Callable[[float], str] = lambda v: f"{v:g}",
    ) -> None:
        d = self.d
        x0, y0, x1, y1 = self.box
        d.line([(x0, y0), (x0, y1), (x1, y1)], fill=BLACK, width=1)
        for t in xticks:
            px, _ = self.px(t, self.ylim[0])
            d.line([(px, y1), (px, y1 + 3)], fill=BLACK)
            centred_text(d, (px, y1 + 9), fmt_x(t), self.tick_font)
        for t in yticks:
            _, py = self.px(self.xlim[0], t)
            d.line([(x0 - 3, py), (x0, py)], fill=BLACK)
            d.text((x0 - 5, py), fmt_y(t), fill=BLACK, font=self.tick_font, anchor="rm")
        centred_text(d, ((x0 + x1) / 2, y1 + 21), xlabel, self.label_font)
        d.text((4, y0 - 14), ylabel, fill=BLACK, font=self.label_font)

    def curve(
        self, xs: Sequence[float], ys: Sequence[float], fill: Color = BLUE, width: int = 2
    ) -> None:
        self.d.line(
            [self.px(x, y) for x, y in zip(xs, ys, strict=True)],
            fill=fill,
            width=width,
            joint="curve",
        )


def dashed(d: ImageDraw.ImageDraw, a: Point, b: Point, fill: Color = BLACK) -> None:
    """A line from ``a`` to ``b`` in 5-pixel dashes."""
    n = max(1, int(math.dist(a, b) / 5.0))
    for i in range(0, n, 2):
        p = (a[0] + (b[0] - a[0]) * i / n, a[1] + (b[1] - a[1]) * i / n)
        q = (a[0] + (b[0] - a[0]) * (i + 1) / n, a[1] + (b[1] - a[1]) * (i + 1) / n)
        d.line([p, q], fill=fill, width=1)


def north_arrow(d: ImageDraw.ImageDraw, x: float, y: float, font: Font) -> None:
    """An arrow pointing up to ``(x, y)``, an N under its tail."""
    arrow(d, (x, y + 18), (x, y), width=2)
    centred_text(d, (x, y + 26), "N", font)


def resistor(d: ImageDraw.ImageDraw, a: Point, b: Point, label: str, font: Font) -> None:
    """Zig-zag resistor between two points on a horizontal or vertical wire."""
    (x0, y0), (x1, y1) = a, b
    horizontal = abs(y1 - y0) < 1
    n = 6
    pts = [a]
    for i in range(1, n + 1):
        t = (i - 0.5) / n
        off = 6 if i % 2 else -6
        if horizontal:
            pts.append((x0 + (x1 - x0) * t, y0 + off))
        else:
            pts.append((x0 + off, y0 + (y1 - y0) * t))
    pts.append(b)
    d.line(pts, fill=BLACK, width=2)
    if horizontal:
        centred_text(d, ((x0 + x1) / 2, y0 - 16), label, font)
    else:
        d.text((x0 + 10, (y0 + y1) / 2 - 6), label, fill=BLACK, font=font)
