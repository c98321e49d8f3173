"""Draw the images of the project's own SciGen-Verify samples
(``sci_tasks/benchmarks/scigen_verify/samples``).

Every image is synthesised here with numpy and Pillow (fixed seeds), so the sample set ships
no third-party data. Images come in pairs: one that satisfies its record's instruction and a
perturbed one that does not (a force arrow reversed, a double bond missing, an organelle
missing, a label misplaced, axis labels swapped, a wrong length, a wrong graph shape).
Records refer to the paths relative to the sample folder (``images/<discipline>/``).

Run from the repository root::

    python scripts/make_scigen_verify_sample_images.py

Re-running it reproduces the PNGs byte for byte.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import drawing
import numpy as np
from drawing import BLACK, BLUE, RED, Color, Point, centred_text, font, save_png
from PIL import Image, ImageDraw

ROOT = drawing.sample_images("scigen_verify")
W = H = 256
GREEN: Color = (40, 140, 60)
SAND: Color = (236, 220, 170)
SEA: Color = (170, 205, 240)


F = font(13)
F_SMALL = font(11)
canvas = functools.partial(drawing.canvas, (W, H))


def paper(seed: int) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    """A white sheet with faint fixed-seed grain, so each drawing has its own texture."""
    rng = np.random.default_rng(seed)
    grain = 248 + rng.integers(0, 8, size=(H, W, 1), dtype=np.uint8)
    img = Image.fromarray(np.repeat(grain, 3, axis=2), "RGB")
    return img, ImageDraw.Draw(img)


def arrow(
    draw: ImageDraw.ImageDraw, start: Point, end: Point, color: Color, width: int = 3
) -> None:
    drawing.arrow(draw, start, end, color, width, head=10, spread=0.45)


# --- physics: free-body diagram ----------------------------------------------------------------


def free_body(normal_up: bool) -> Image.Image:
    """A block at rest on a table: weight W down, normal force N up (or, wrongly, down)."""
    img, d = paper(11)
    d.line([(20, 170), (236, 170)], fill=BLACK, width=3)  # table top
    for x in range(24, 236, 14):
        d.line([(x, 172), (x - 8, 184)], fill=BLACK, width=1)  # hatching under the table
    d.rectangle([(93, 120), (163, 170)], outline=BLACK, width=3, fill=(225, 225, 225))
    cx, cy = 128, 145
    arrow(d, (cx, cy), (cx, cy + 70), RED)  # weight, down
    d.text((cx + 8, cy + 52), "W", font=F, fill=RED)
    if normal_up:
        arrow(d, (cx, cy), (cx, cy - 70), BLUE)
        d.text((cx + 8, cy - 68), "N", font=F, fill=BLUE)
    else:
        arrow(d, (cx - 22, cy), (cx - 22, cy + 70), BLUE)  # the perturbation: N points down
        d.text((cx - 40, cy + 52), "N", font=F, fill=BLUE)
    centred_text(d, (128, 20), "Block at rest on a table", F)
    return img


# --- biology: animal cell ----------------------------------------------------------------------


def animal_cell(with_mitochondria: bool) -> Image.Image:
    img, d = paper(23)
    d.ellipse([(18, 40), (238, 220)], outline=(120, 60, 140), width=4, fill=(250, 236, 240))
    d.ellipse([(98, 95), (158, 150)], outline=(60, 40, 120), width=3, fill=(205, 190, 235))
    d.ellipse([(118, 112), (134, 128)], fill=(120, 90, 170))  # nucleolus
    d.text((100, 152), "nucleus", font=F_SMALL, fill=BLACK)
    d.text((22, 22), "cell membrane", font=F_SMALL, fill=(120, 60, 140))
    d.line([(60, 30), (64, 50)], fill=(120, 60, 140), width=1)
    if with_mitochondria:
        rng = np.random.default_rng(23)
        for x0, y0 in ((48, 110), (170, 92), (150, 178)):
            jx, jy = (int(v) for v in rng.integers(-4, 5, size=2))
            box = [(x0 + jx, y0 + jy), (x0 + jx + 38, y0 + jy + 18)]
            d.ellipse(box, outline=(170, 80, 20), width=2, fill=(250, 200, 150))
            for k in range(1, 4):  # cristae
                x = x0 + jx + 9 * k
                d.line([(x, y0 + jy + 4), (x + 4, y0 + jy + 14)], fill=(170, 80, 20), width=1)
        d.text((160, 200), "mitochondrion", font=F_SMALL, fill=(170, 80, 20))
    return img


# --- mathematics: a plot of y = x^2 ------------------------------------------------------------


def parabola(labels_correct: bool) -> Image.Image:
    """y = x^2 on -3 <= x <= 3; axis labels right (x across, y up) or swapped."""
    img, d = canvas()
    x0, y0, sx, sy = 128, 220, 30.0, 20.0  # pixel origin and scales (x: 30 px/unit, y: 20 px/unit)
    d.line([(20, y0), (236, y0)], fill=BLACK, width=2)
    d.line([(x0, 232), (x0, 22)], fill=BLACK, width=2)
    for t in range(-3, 4):
        px = x0 + t * sx
        d.line([(px, y0 - 4), (px, y0 + 4)], fill=BLACK, width=1)
        centred_text(d, (px, y0 + 13), str(t), F_SMALL)
    for t in (3, 6, 9):
        py = y0 - t * sy
        d.line([(x0 - 4, py), (x0 + 4, py)], fill=BLACK, width=1)
        centred_text(d, (x0 - 14, py), str(t), F_SMALL)
    xs = np.linspace(-3.0, 3.0, 121)
    points = [(x0 + float(x) * sx, y0 - float(x * x) * sy) for x in xs]
    d.line(points, fill=BLUE, width=2)
    across, up = ("x", "y") if labels_correct else ("y", "x")
    d.text((228, y0 - 20), across, font=F, fill=BLACK)
    d.text((x0 + 8, 18), up, font=F, fill=BLACK)
    d.text((150, 60), "y = x^2", font=F, fill=BLUE)  # the curve is right in both images
    return img


# --- mathematics: right triangle ---------------------------------------------------------------


def right_triangle(hypotenuse_label: str) -> Image.Image:
    img, d = canvas()
    a, b, c = (40, 200), (200, 200), (40, 80)  # legs 160 px (4 units) and 120 px (3 units)
    d.polygon([a, b, c], outline=BLACK, width=3)
    d.rectangle([(40, 186), (54, 200)], outline=BLACK, width=2)  # right angle mark
    centred_text(d, (120, 216), "4", F)
    centred_text(d, (26, 140), "3", F)
    centred_text(d, (132, 128), hypotenuse_label, font(15), fill=RED)
    return img


# --- physics: velocity-time graph of a ball thrown upward --------------------------------------


def velocity_time(straight: bool) -> Image.Image:
    """v(t) with up positive: a straight line through zero at the top (right), or |v| (wrong)."""
    img, d = canvas()
    x0, y0 = 36, 128
    d.line([(x0, 232), (x0, 22)], fill=BLACK, width=2)
    d.line([(x0, y0), (240, y0)], fill=BLACK, width=2)
    d.text((226, y0 + 6), "t", font=F, fill=BLACK)
    d.text((x0 + 6, 14), "v", font=F, fill=BLACK)
    d.text((x0 - 22, y0 - 90), "+v0", font=F_SMALL, fill=BLACK)
    if straight:
        d.line([(x0, y0 - 90), (220, y0 + 90)], fill=RED, width=3)
    else:
        d.line([(x0, y0 - 90), (128, y0), (220, y0 - 90)], fill=RED, width=3)
    centred_text(d, (150, 226), "ball thrown upward", F_SMALL)
    return img


# --- chemistry: benzene ------------------------------------------------------------------------


def benzene(double_bonds: int) -> Image.Image:
    """Kekulé hexagon: ``double_bonds`` of the alternating edges get an inner second line."""
    img, d = canvas()
    cx, cy, r = 128, 128, 80
    corners = [
        (cx + r * math.cos(math.radians(90 + 60 * k)), cy - r * math.sin(math.radians(90 + 60 * k)))
        for k in range(6)
    ]
    for k in range(6):
        d.line([corners[k], corners[(k + 1) % 6]], fill=BLACK, width=3)
    for k in range(0, 2 * double_bonds, 2):  # edges 0, 2, 4: alternating
        (ax, ay), (bx, by) = corners[k], corners[(k + 1) % 6]
        shrink = 0.8
        ia = (cx + (ax - cx) * shrink, cy + (ay - cy) * shrink)
        ib = (cx + (bx - cx) * shrink, cy + (by - cy) * shrink)
        mx, my = (ia[0] + ib[0]) / 2, (ia[1] + ib[1]) / 2
        trim = 0.8  # the inner line is a little shorter than the edge
        d.line(
            [
                (mx + (ia[0] - mx) * trim, my + (ia[1] - my) * trim),
                (mx + (ib[0] - mx) * trim, my + (ib[1] - my) * trim),
            ],
            fill=BLACK,
            width=3,
        )
    return img


# --- geography: the Nile -----------------------------------------------------------------------


def nile(cairo_at_delta: bool) -> Image.Image:
    """Schematic map: Mediterranean at the top, the Nile flowing north, Cairo at the delta
    head and Aswan upstream; the perturbed map puts the Cairo label far upstream."""
    img, d = canvas(SAND)
    d.rectangle([(0, 0), (W, 34)], fill=SEA)
    d.text((60, 10), "Mediterranean Sea", font=F_SMALL, fill=(30, 60, 120))
    rng = np.random.default_rng(41)
    ys = np.arange(230, 70, -8)
    xs = 128 + np.cumsum(rng.integers(-3, 4, size=ys.size))
    course = [(float(x), float(y)) for x, y in zip(xs, ys, strict=True)]
    d.line(course, fill=BLUE, width=4)
    head = course[-1]
    for dx in (-30, -10, 10, 30):  # delta distributaries
        d.line([head, (head[0] + dx, 34)], fill=BLUE, width=2)
    aswan = course[2]
    d.ellipse([(aswan[0] - 4, aswan[1] - 4), (aswan[0] + 4, aswan[1] + 4)], fill=BLACK)
    d.text((aswan[0] + 8, aswan[1] - 6), "Aswan", font=F_SMALL, fill=BLACK)
    cairo = head if cairo_at_delta else course[6]
    d.ellipse([(cairo[0] - 5, cairo[1] - 5), (cairo[0] + 5, cairo[1] + 5)], fill=RED)
    d.text((cairo[0] + 8, cairo[1] - 6), "Cairo", font=F, fill=RED)
    arrow(d, (228, 220), (228, 180), BLACK, 2)  # north arrow
    centred_text(d, (228, 170), "N", F_SMALL)
    return img


IMAGES: dict[str, Callable[[], Image.Image]] = {
    "physics/fbd_correct.png": lambda: free_body(normal_up=True),
    "physics/fbd_normal_down.png": lambda: free_body(normal_up=False),
    "biology/cell_complete.png": lambda: animal_cell(with_mitochondria=True),
    "biology/cell_no_mitochondria.png": lambda: animal_cell(with_mitochondria=False),
    "mathematics/parabola_correct.png": lambda: parabola(labels_correct=True),
    "mathematics/parabola_axes_swapped.png": lambda: parabola(labels_correct=False),
    "mathematics/triangle_hyp5.png": lambda: right_triangle("5"),
    "mathematics/triangle_hyp7.png": lambda: right_triangle("7"),
    "physics/vt_line.png": lambda: velocity_time(straight=True),
    "physics/vt_vshape.png": lambda: velocity_time(straight=False),
    "chemistry/benzene_kekule.png": lambda: benzene(3),
    "chemistry/benzene_two_double_bonds.png": lambda: benzene(2),
    "geography/nile_correct.png": lambda: nile(cairo_at_delta=True),
    "geography/nile_cairo_misplaced.png": lambda: nile(cairo_at_delta=False),
}


def main() -> None:
    for rel, draw in IMAGES.items():
        path = save_png(draw(), ROOT / rel)
        print(f"{path}  {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
