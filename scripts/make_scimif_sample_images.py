"""Draw the images of the project's own SciMIF sample set (``sci_tasks/benchmarks/scimif/samples``).

Every image is drawn here from scratch with Pillow and numpy (fixed seeds), so the sample
set ships no third-party data. The layout follows the authors' release:
``images/<discipline>/<source>/images/<file>``; records refer to the path relative to
``images/``. Each image shows exactly the quantities its sample question asks about.

Run from the repository root::

    python scripts/make_scimif_sample_images.py

Labels use only ASCII and the degree sign, which the default font renders.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from pathlib import Path

import drawing
import numpy as np
from diagrams import Axes, dashed, north_arrow, resistor
from drawing import BLACK, BLUE, RED, WHITE, Color, arrow, centred_text, font, save_png
from micrographs import grain_edges, on_white, scale_bar, voronoi_labels
from PIL import Image, ImageDraw

ROOT = drawing.sample_images("scimif")
W, H = 320, 240

GREY: Color = (150, 150, 150)
GREEN: Color = (60, 150, 60)
BROWN: Color = (140, 90, 40)
F = font(11)
F_SMALL = font(9)
F_TITLE = font(12)
FONTS = (F, F_SMALL)  # a plot's axis and tick labels
canvas = functools.partial(drawing.canvas, (W, H))


def save(im: Image.Image, discipline: str, source: str, name: str) -> Path:
    path = ROOT / discipline / source / "images" / name
    if name.endswith(".png"):
        return save_png(im, path)
    path.parent.mkdir(parents=True, exist_ok=True)
    im.save(path, quality=70, optimize=True)
    return path


# ----------------------------------------------------------------------------- geography


def geo_contour() -> Path:
    """Topographic map of a hill: contours 100-400 m, summit A (420 m), point B (180 m)."""
    im, d = canvas((246, 241, 226))
    cx, cy = 150, 115
    rng = np.random.default_rng(11)
    wobble = rng.uniform(-0.08, 0.08, size=5)
    for k, elev in enumerate((100, 200, 300, 400)):
        r = 105 - 25 * k
        pts = []
        for t in np.linspace(0, 2 * math.pi, 90, endpoint=False):
            f = 1 + sum(wobble[j] * math.sin((j + 2) * t + j) for j in range(5))
            pts.append((cx + 1.25 * r * f * math.cos(t), cy + 0.85 * r * f * math.sin(t)))
        d.polygon(pts, outline=BROWN)
        lx, ly = pts[0]
        d.rectangle([lx - 11, ly - 6, lx + 11, ly + 6], fill=(246, 241, 226))
        centred_text(d, (lx, ly), f"{elev}", F_SMALL, fill=BROWN)
    km = 85  # pixels per kilometre
    ax, ay = cx + 2, cy - 2
    ux, uy = -0.93, 0.37
    norm = math.hypot(ux, uy)
    bx, by = ax + 1.2 * km * ux / norm, ay + 1.2 * km * uy / norm
    dashed(d, (ax, ay), (bx, by), fill=RED)
    for (x, y), lab, dx in (((ax, ay), "A 420 m", 5), ((bx, by), "B 180 m", -48)):
        d.ellipse([x - 3, y - 3, x + 3, y + 3], fill=RED)
        d.text((x + dx, y + 4), lab, fill=BLACK, font=F)
    mx, my = (ax + bx) / 2, (ay + by) / 2 - 12
    d.rectangle([mx - 33, my - 6, mx + 33, my + 6], fill=(246, 241, 226))
    centred_text(d, (mx, my), "A-B = 1.2 km", F_SMALL, fill=RED)
    north_arrow(d, 295, 12, F)
    d.line([(20, 225), (20 + km, 225)], fill=BLACK, width=2)
    for frac, lab in ((0.0, "0"), (0.5, "0.5"), (1.0, "1 km")):
        tx = 20 + frac * km
        d.line([(tx, 221), (tx, 229)], fill=BLACK)
        centred_text(d, (tx + (8 if frac == 1 else 0), 213), lab, F_SMALL)
    d.text((175, 212), "Contour interval 100 m", fill=BLACK, font=F_SMALL)
    return save(im, "geography", "SampleGeo", "contour_01.png")


def geo_farmland() -> Path:
    """Top-down view of a farmland scene: crop fields, a farm track, one farmstead."""
    im, d = canvas()
    rng = np.random.default_rng(12)
    crops = [(214, 190, 90), (120, 170, 70), (170, 200, 100), (200, 170, 110), (95, 145, 60)]
    xs, ys = [0, 70, 150, 230, 320], [0, 80, 160, 240]
    for i in range(4):
        for j in range(3):
            col = crops[int(rng.integers(len(crops)))]
            x0, y0, x1, y1 = xs[i], ys[j], xs[i + 1], ys[j + 1]
            d.rectangle([x0, y0, x1, y1], fill=col, outline=(90, 110, 50))
            shade = tuple(max(0, c - 30) for c in col)
            if (i + j) % 2:
                for x in range(x0 + 4, x1, 7):
                    d.line([(x, y0 + 3), (x, y1 - 3)], fill=shade)
            else:
                for y in range(y0 + 4, y1, 7):
                    d.line([(x0 + 3, y), (x1 - 3, y)], fill=shade)
    d.line([(0, 160), (320, 160)], fill=(170, 150, 120), width=6)
    d.line([(150, 0), (150, 240)], fill=(170, 150, 120), width=5)
    d.rectangle([158, 166, 180, 184], fill=(180, 60, 50), outline=BLACK)
    d.rectangle([186, 168, 198, 190], fill=(150, 150, 160), outline=BLACK)
    for x, y in ((20, 200), (35, 210), (50, 198)):
        d.ellipse([x - 7, y - 7, x + 7, y + 7], fill=(40, 100, 40))
    return save(im, "geography", "SampleGeo", "landuse_01.png")


def geo_street_map() -> Path:
    """Town plan of Riverton, Old Town district, with a starred building at No. 12 Mill Street."""
    im, d = canvas((238, 236, 228))
    d.rectangle([0, 0, W - 1, 22], fill=(60, 70, 90))
    centred_text(d, (W / 2, 11), "RIVERTON  -  Old Town district", F_TITLE, fill=WHITE)
    d.rectangle([0, 100, W, 118], fill=WHITE, outline=GREY)
    d.rectangle([150, 22, 168, H], fill=WHITE, outline=GREY)
    d.text((12, 103), "Mill Street", fill=BLACK, font=F)
    d.text((212, 103), "Mill Street", fill=BLACK, font=F)
    tall = Image.new("RGBA", (110, 14), (0, 0, 0, 0))
    ImageDraw.Draw(tall).text((0, 0), "Station Road", fill=BLACK, font=F)
    label = tall.rotate(90, expand=True)
    im.paste(label, (153, 126), label)
    numbers_n = [2, 4, 6, 8, 10, 12]
    numbers_s = [1, 3, 5, 7, 9, 11]
    for k, x in enumerate((8, 58, 108, 178, 228, 278)):
        for nums, y0 in ((numbers_n, 62), (numbers_s, 124)):
            d.rectangle([x, y0, x + 34, y0 + 32], fill=(205, 190, 170), outline=BLACK)
            centred_text(d, (x + 17, y0 + 16), str(nums[k]), F)
    sx, sy = 295, 46
    star = []
    for i in range(10):
        r = 9 if i % 2 == 0 else 4
        a = -math.pi / 2 + i * math.pi / 5
        star.append((sx + r * math.cos(a), sy + r * math.sin(a)))
    d.polygon(star, fill=RED, outline=BLACK)
    d.text((8, 200), "Building numbers shown\non each plot", fill=BLACK, font=F_SMALL)
    return save(im, "geography", "SampleGeo", "street_map_01.png")


def geo_climograph() -> Path:
    """Climate graph: monthly precipitation bars and mean temperature line (humid tropical)."""
    im, d = canvas()
    precip = [260, 240, 280, 270, 220, 190, 180, 200, 210, 230, 250, 270]
    temp = [27, 27, 27.5, 27.5, 27, 26.5, 26, 26.5, 27, 27, 27, 27]
    ax = Axes(d, (40, 28, 280, 200), (0, 12), (0, 400), FONTS)
    ax.frame([], [0, 100, 200, 300, 400], "Month", "Precipitation (mm)")
    for m, p in enumerate(precip):
        x0, y0 = ax.px(m + 0.15, p)
        x1, y1 = ax.px(m + 0.85, 0)
        d.rectangle([x0, y0, x1, y1], fill=(120, 160, 230), outline=BLUE)
        centred_text(d, (ax.px(m + 0.5, 0)[0], 209), "JFMAMJJASOND"[m], F_SMALL)
    tax = Axes(d, (40, 28, 280, 200), (0, 12), (0, 40), FONTS)
    tax.curve([m + 0.5 for m in range(12)], temp, fill=RED, width=2)
    for t in (0, 10, 20, 30, 40):
        _, py = tax.px(12, t)
        d.line([(280, py), (283, py)], fill=RED)
        d.text((286, py), f"{t}", fill=RED, font=F_SMALL, anchor="lm")
    d.text((180, 4), "Temperature (°C)", fill=RED, font=F)
    d.text((200, 224), "Annual total: 2800 mm", fill=BLACK, font=F_SMALL)
    return save(im, "geography", "SampleGeo", "climograph_01.png")


def geo_rock() -> Path:
    """Hand specimen: coarse interlocking pink feldspar, grey quartz, black mica crystals."""
    h, w = 200, 320
    lab = voronoi_labels(h, w, 90, seed=13)
    rng = np.random.default_rng(14)
    palette = np.array(
        [
            (222, 160, 150),
            (230, 180, 170),
            (200, 200, 205),
            (175, 178, 185),
            (245, 240, 232),
            (30, 30, 30),
        ],
        dtype=float,
    )
    weights = np.array([0.22, 0.18, 0.17, 0.13, 0.18, 0.12])
    choice = rng.choice(len(palette), size=lab.max() + 1, p=weights)
    rgb = palette[choice[lab]] + rng.normal(0, 6, size=(h, w, 1))
    edges = grain_edges(lab)
    rgb[edges] *= 0.6
    im, d = on_white(rgb, (W, H))
    scale_bar(d, (20, 100, 222), "1 cm", (20, 205), F)
    d.text((120, 206), "crystals 3-10 mm, interlocking;\npink feldspar, quartz, black mica",
           fill=BLACK, font=F_SMALL)  # fmt: skip
    return save(im, "geography", "SampleGeo", "rock_01.jpeg")


LANDUSE = {"B": (150, 150, 160), "F": (60, 130, 60), "A": (225, 205, 110)}


def geo_landuse_year(year: int, grid: Sequence[str]) -> Path:
    """The same 6 x 4 km area in a given year; each 1 km cell is built-up, forest or farmland."""
    im, d = canvas()
    centred_text(d, (W / 2, 10), f"Land use {year} (each cell = 1 km2)", F_TITLE)
    cell, x0, y0 = 38, 20, 24
    for r, row in enumerate(grid):
        for c, ch in enumerate(row):
            d.rectangle(
                [x0 + c * cell, y0 + r * cell, x0 + (c + 1) * cell, y0 + (r + 1) * cell],
                fill=LANDUSE[ch],
                outline=WHITE,
            )
            if ch == "B":
                bx, by = x0 + c * cell, y0 + r * cell
                for i in range(3):
                    for j in range(3):
                        d.rectangle(
                            [bx + 5 + 11 * i, by + 5 + 11 * j, bx + 12 + 11 * i, by + 12 + 11 * j],
                            fill=(110, 110, 120),
                        )
    lx = 256
    for k, (ch, name) in enumerate((("B", "built-up"), ("F", "forest"), ("A", "farmland"))):
        d.rectangle([lx, 40 + 30 * k, lx + 12, 52 + 30 * k], fill=LANDUSE[ch], outline=BLACK)
        d.text((lx, 54 + 30 * k), name, fill=BLACK, font=F_SMALL)
    counts = {ch: sum(row.count(ch) for row in grid) for ch in LANDUSE}
    d.text(
        (20, 186),
        f"built-up {counts['B']} km2   forest {counts['F']} km2   farmland {counts['A']} km2",
        fill=BLACK,
        font=F_SMALL,
    )
    return save(im, "geography", "SampleGeo", f"landuse_{year}.png")


def geo_scale_map() -> Path:
    """Map extract at 1:50 000 with two towns 6.4 cm apart on the printed map."""
    im, d = canvas((234, 244, 234))
    d.line([(0, 170), (90, 150), (180, 175), (320, 140)], fill=(110, 160, 220), width=5)
    a, b = (50, 70), (270, 95)
    for (x, y), name in ((a, "Ashford"), (b, "Bramley")):
        d.rectangle([x - 6, y - 6, x + 6, y + 6], fill=RED, outline=BLACK)
        centred_text(d, (x, y - 15), name, F)
    dashed(d, a, b, fill=BLACK)
    centred_text(
        d, ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2 + 14), "measured on the map: 6.4 cm", F_SMALL
    )
    d.rectangle([10, 200, 150, 232], fill=WHITE, outline=BLACK)
    d.text((16, 204), "Scale 1 : 50 000", fill=BLACK, font=F)
    d.text((16, 218), "(1 cm on map = 500 m)", fill=BLACK, font=F_SMALL)
    north_arrow(d, 296, 190, F)
    return save(im, "geography", "SampleGeo", "scale_map_01.png")


# ----------------------------------------------------------------------------- materials


def mat_xrd() -> Path:
    """Powder XRD pattern (Cu K-alpha) of an FCC metal: (111), (200), (220) peaks."""
    im, d = canvas()
    ax = Axes(d, (40, 34, 305, 200), (30, 90), (0, 110), FONTS)
    ax.frame([30, 40, 50, 60, 70, 80, 90], [0, 50, 100], "2-theta (degrees)", "Intensity (a.u.)")
    rng = np.random.default_rng(21)
    x = np.linspace(30, 90, 600)
    peaks = [(43.30, 100, "(111) 43.30°"), (50.43, 46, "(200) 50.43°"), (74.13, 22, "(220) 74.13°")]
    y = 4 + rng.normal(0, 0.8, x.size)
    for c, amp, _ in peaks:
        y += amp * np.exp(-0.5 * ((x - c) / 0.25) ** 2)
    ax.curve(list(x), list(y), fill=BLUE, width=1)
    for c, amp, lab in peaks:
        px, py = ax.px(c, amp + 4)
        centred_text(d, (px + (12 if c > 45 else 0), py - 8), lab, F_SMALL, fill=RED)
    d.text((190, 4), "Cu K-alpha, 1.5406 A", fill=BLACK, font=F_SMALL)
    return save(im, "materials", "SampleMat", "xrd_01.png")


def mat_stress_strain() -> Path:
    """Engineering stress-strain curve of a ductile steel with labelled key points."""
    im, d = canvas()
    ax = Axes(d, (46, 30, 305, 200), (0, 0.25), (0, 600), FONTS)
    ax.frame(
        [0, 0.05, 0.10, 0.15, 0.20, 0.25], [0, 200, 400, 600], "Engineering strain", "Stress (MPa)"
    )
    eps = [0.0, 0.002]
    sig = [0.0, 400.0]
    for e in np.linspace(0.004, 0.22, 80):
        s = 400 + 120 * (1 - math.exp(-(e - 0.002) / 0.04))
        if e > 0.15:
            s -= 900 * (e - 0.15) ** 2 * 10
        eps.append(float(e))
        sig.append(s)
    ax.curve(eps, sig, fill=BLUE, width=2)
    fx, fy = ax.px(eps[-1], sig[-1])
    d.line([(fx - 4, fy - 4), (fx + 4, fy + 4)], fill=RED, width=2)
    d.line([(fx - 4, fy + 4), (fx + 4, fy - 4)], fill=RED, width=2)
    d.text((fx - 40, fy + 8), f"fracture\n(0.22, {sig[-1]:.0f} MPa)", fill=RED, font=F_SMALL)
    yx, yy = ax.px(0.002, 400)
    d.ellipse([yx - 3, yy - 3, yx + 3, yy + 3], fill=RED)
    d.text((yx + 8, yy + 6), "end of linear region\n(0.002, 400 MPa)", fill=RED, font=F_SMALL)
    smax = max(sig)
    ux, uy = ax.px(eps[sig.index(smax)], smax)
    d.text((ux - 30, uy - 22), f"UTS {smax:.0f} MPa", fill=RED, font=F_SMALL)
    return save(im, "materials", "SampleMat", "stress_strain_01.png")


def mat_grains() -> Path:
    """Optical micrograph-like image of an etched polycrystal with scale bar."""
    h, w = 210, 320
    lab = voronoi_labels(h, w, 70, seed=22)
    rng = np.random.default_rng(23)
    tone = rng.uniform(150, 225, size=lab.max() + 1)
    g = tone[lab] + rng.normal(0, 5, size=(h, w))
    edges = grain_edges(lab)
    g[edges] = 40
    im, d = on_white(g, (W, H))
    d.rectangle([232, 186, 314, 206], fill=WHITE)
    scale_bar(d, (240, 304, 200), "50 um", (254, 187), F_SMALL)
    d.text((6, 216), "Etched polycrystalline Fe; mean grain diameter d = 25 um",
           fill=BLACK, font=F_SMALL)  # fmt: skip
    return save(im, "materials", "SampleMat", "grains_01.jpeg")


def mat_tauc() -> Path:
    """Tauc plot (direct gap) with the linear extrapolation meeting the axis at 3.20 eV."""
    im, d = canvas()
    ax = Axes(d, (46, 30, 305, 200), (2.5, 4.0), (0, 10), FONTS)
    ax.frame(
        [2.5, 3.0, 3.5, 4.0],
        [0, 5, 10],
        "Photon energy hv (eV)",
        "(alpha h v)^2 (a.u.)",
        fmt_x=lambda v: f"{v:.1f}",
    )
    e = np.linspace(2.5, 3.9, 120)
    # weak absorption tail below the gap, straight line above it
    y = np.where(
        e < 3.2, 0.25 * np.exp((e - 3.2) * 6), 12 * (e - 3.2) + 0.25 * np.exp(-(e - 3.2) * 10)
    )
    ax.curve(list(e), list(y), fill=BLUE, width=2)
    dashed(d, ax.px(3.2, 0), ax.px(3.9, 8.4), fill=RED)
    px, py = ax.px(3.2, 0)
    arrow(d, (px - 20, py - 35), (px, py - 2), fill=RED, width=1)
    d.text((px - 70, py - 50), "intercept 3.20 eV", fill=RED, font=F_SMALL)
    return save(im, "materials", "SampleMat", "tauc_01.png")


# ----------------------------------------------------------------------------- physics


def phys_incline() -> Path:
    """Free-body diagram of a block on a 30° incline with kinetic friction."""
    im, d = canvas()
    th = math.radians(30)
    base_l, base_r = (30, 210), (290, 210)
    top = (290, 210 - 260 * math.tan(th))
    d.polygon([base_l, base_r, top], fill=(230, 230, 230), outline=BLACK)
    d.arc([base_l[0] - 40, base_l[1] - 40, base_l[0] + 40, base_l[1] + 40], -30, 0, fill=BLACK)
    d.text((base_l[0] + 44, base_l[1] - 16), "30°", fill=BLACK, font=F)
    # block centred on the slope
    s = 150
    ux, uy = math.cos(th), -math.sin(th)  # up the slope
    nx, ny = -math.sin(th), -math.cos(th)  # outward normal
    cx, cy = base_l[0] + s * ux, base_l[1] + s * uy
    hw, hh = 22, 14
    corners = [
        (cx + a * hw * ux + b * hh * nx + hh * nx, cy + a * hw * uy + b * hh * ny + hh * ny)
        for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))
    ]
    d.polygon(corners, fill=(170, 190, 230), outline=BLACK)
    mx, my = cx + hh * nx, cy + hh * ny
    centred_text(d, (mx, my), "m", F)
    arrow(d, (mx, my), (mx, my + 60), fill=RED)
    d.text((mx + 4, my + 50), "mg", fill=RED, font=F)
    arrow(d, (mx, my), (mx + 50 * nx, my + 50 * ny), fill=BLUE)
    d.text((mx + 50 * nx - 14, my + 50 * ny - 14), "N", fill=BLUE, font=F)
    arrow(d, (cx, cy), (cx + 45 * ux, cy + 45 * uy), fill=GREEN)
    d.text((cx + 45 * ux + 2, cy + 45 * uy - 14), "f", fill=GREEN, font=F)
    d.text(
        (8, 6),
        "m = 2.0 kg,  mu_k = 0.20,  g = 9.8 m/s^2\nblock slides DOWN the incline",
        fill=BLACK,
        font=F_SMALL,
    )
    return save(im, "physics", "SamplePhys", "incline_01.png")


def phys_circuit() -> Path:
    """12 V battery, R1 = 4 ohm in series with R2 = 6 ohm parallel to R3 = 3 ohm."""
    im, d = canvas()
    L, R, T, B = 40, 250, 50, 200
    # battery on the left branch
    d.line([(L, T), (L, 110)], fill=BLACK, width=2)
    d.line([(L, 140), (L, B)], fill=BLACK, width=2)
    d.line([(L - 14, 110), (L + 14, 110)], fill=BLACK, width=2)
    d.line([(L - 7, 140), (L + 7, 140)], fill=BLACK, width=4)
    d.text((L + 18, 103), "+", fill=BLACK, font=F)
    d.text((L + 18, 118), "12 V", fill=BLACK, font=F)
    # top wire with R1
    d.line([(L, T), (90, T)], fill=BLACK, width=2)
    resistor(d, (90, T), (150, T), "R1 = 4 ohm", F)
    d.line([(150, T), (R, T)], fill=BLACK, width=2)
    # bottom wire
    d.line([(L, B), (R, B)], fill=BLACK, width=2)
    # two parallel vertical branches
    for x, lab, lx in ((180, "R2 = 6 ohm", 110), (R, "R3 = 3 ohm", R + 12)):
        d.line([(x, T), (x, 95)], fill=BLACK, width=2)
        resistor(d, (x, 95), (x, 155), "", F)
        d.line([(x, 155), (x, B)], fill=BLACK, width=2)
        d.text((lx, 119), lab, fill=BLACK, font=F)
        d.ellipse([x - 3, T - 3, x + 3, T + 3], fill=BLACK)
        d.ellipse([x - 3, B - 3, x + 3, B + 3], fill=BLACK)
    arrow(d, (60, T - 14), (84, T - 14), fill=RED, width=1)
    d.text((58, T - 32), "I", fill=RED, font=F)
    d.text((8, 218), "ideal battery, ideal wires", fill=GREY, font=F_SMALL)
    return save(im, "physics", "SamplePhys", "circuit_01.png")


def phys_projectile() -> Path:
    """Projectile launched at 20 m/s, 45° above level ground (no air resistance)."""
    im, d = canvas()
    g, v0, th = 9.8, 20.0, math.radians(45)
    rng_m = v0**2 * math.sin(2 * th) / g
    ax = Axes(d, (40, 40, 300, 200), (0, 45), (0, 15), FONTS)
    ax.frame([0, 10, 20, 30, 40], [0, 5, 10, 15], "x (m)", "y (m)")
    ts = np.linspace(0, 2 * v0 * math.sin(th) / g, 60)
    xs = v0 * math.cos(th) * ts
    ys = v0 * math.sin(th) * ts - 0.5 * g * ts**2
    ax.curve(list(xs), list(ys), fill=BLUE, width=2)
    ox, oy = ax.px(0, 0)
    arrow(d, (ox, oy), (ox + 40, oy - 40), fill=RED, width=2)
    d.text((ox + 44, oy - 44), "v0 = 20 m/s", fill=RED, font=F)
    d.arc([ox - 22, oy - 22, ox + 22, oy + 22], -45, 0, fill=BLACK)
    d.text((ox + 24, oy - 14), "45°", fill=BLACK, font=F_SMALL)
    rx, ry = ax.px(rng_m, 0)
    d.text((rx - 30, ry - 18), "lands: R = ?", fill=BLACK, font=F_SMALL)
    d.text((150, 4), "g = 9.8 m/s^2, no air drag", fill=BLACK, font=F_SMALL)
    return save(im, "physics", "SamplePhys", "projectile_01.png")


def phys_vt() -> Path:
    """Velocity-time graph: 0-4 s accelerate to 10 m/s, 4-10 s constant, 10-14 s stop."""
    im, d = canvas()
    ax = Axes(d, (40, 30, 300, 200), (0, 16), (0, 12), FONTS)
    ax.frame(list(range(0, 17, 2)), [0, 2, 4, 6, 8, 10, 12], "t (s)", "v (m/s)")
    for t in (4, 10, 14):
        dashed(d, ax.px(t, 0), ax.px(t, 10 if t < 14 else 0), fill=GREY)
    dashed(d, ax.px(0, 10), ax.px(4, 10), fill=GREY)
    ax.curve([0, 4, 10, 14], [0, 10, 10, 0], fill=BLUE, width=3)
    for t, v in ((4, 10), (10, 10), (14, 0)):
        x, y = ax.px(t, v)
        d.ellipse([x - 3, y - 3, x + 3, y + 3], fill=RED)
    return save(im, "physics", "SamplePhys", "vt_graph_01.png")


DRAWERS: tuple[Callable[[], Path], ...] = (
    geo_contour,
    geo_farmland,
    geo_street_map,
    geo_climograph,
    geo_rock,
    lambda: geo_landuse_year(2005, ["FFFAAA", "FFBAAA", "FBBBAA", "FFBAAA"]),
    lambda: geo_landuse_year(2020, ["FFBAAA", "FBBBBA", "BBBBBA", "FBBBAA"]),
    geo_scale_map,
    mat_xrd,
    mat_stress_strain,
    mat_grains,
    mat_tauc,
    phys_incline,
    phys_circuit,
    phys_projectile,
    phys_vt,
)


def main() -> None:
    for draw in DRAWERS:
        path = draw()
        print(f"{path.relative_to(ROOT)}  {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
