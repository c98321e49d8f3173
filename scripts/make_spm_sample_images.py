"""Draw the images of the project's own SPM-Bench sample set
(``sci_tasks/benchmarks/spm_bench/samples``).

Every image is synthesised here with numpy and Pillow (fixed seeds), so the sample set ships
no third-party data. Each image shows exactly what its question asks about: the lattice,
defect, step height, particle size or diffraction pattern, with a scale bar where a size
matters. Records refer to the paths relative to the sample folder (``images/<technique>/``).

Run from the repository root::

    python scripts/make_spm_sample_images.py

Re-running it reproduces the PNGs byte for byte.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
from drawing import BLACK, WHITE, Color, font, sample_images, save_png
from micrographs import (
    Array,
    N,
    afmhot,
    blue_red,
    bumps,
    grey,
    grid,
    hex_points,
    normalise,
    scatter,
    smooth_noise,
    voronoi_grains,
)
from PIL import Image, ImageDraw

ROOT = sample_images("spm_bench")
BAR_H = 22  # information bar under the data area
F = font(11)


# --- framing: scale bar, information bar, colour scale -----------------------------------------


def framed(
    rgb: Array,
    bar_px: float,
    bar_label: str,
    info: str,
    bar_color: Color = WHITE,
) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    """The data area with a scale bar in its lower-left corner and an information bar below."""
    im = Image.new("RGB", (N, N + BAR_H), BLACK)
    im.paste(Image.fromarray(rgb, "RGB"), (0, 0))
    d = ImageDraw.Draw(im)
    x0, y0 = 12, N - 14
    d.rectangle([x0 - 6, y0 - 16, x0 + bar_px + 6, y0 + 9], fill=BLACK)  # keeps the bar legible
    d.rectangle([x0, y0, x0 + bar_px, y0 + 4], fill=bar_color)
    d.text((x0 + bar_px / 2, y0 - 8), bar_label, fill=bar_color, font=F, anchor="mm")
    d.text((6, N + BAR_H / 2), info, fill=WHITE, font=F, anchor="lm")
    return im, d


def colour_bar(
    im: Image.Image, label_lo: str, label_hi: str, cmap: Callable[[Array], Array]
) -> Image.Image:
    """A vertical colour scale to the right of the image (for height / signal maps)."""
    w = 44
    out = Image.new("RGB", (im.width + w, im.height), WHITE)
    out.paste(im, (0, 0))
    ramp = np.linspace(1, 0, N)[:, None].repeat(10, axis=1)
    out.paste(Image.fromarray(cmap(ramp), "RGB"), (im.width + 4, 0))
    d = ImageDraw.Draw(out)
    d.text((im.width + 16, 6), label_hi, fill=BLACK, font=font(9), anchor="lm")
    d.text((im.width + 16, N - 6), label_lo, fill=BLACK, font=font(9), anchor="lm")
    return out


def save(im: Image.Image, technique: str, name: str) -> Path:
    # colour maps need a few more shades than grey images
    return save_png(im, ROOT / technique / name, 32 if technique in ("sem", "tem") else 64)


# --- STM --------------------------------------------------------------------------------------


def stm_hex_vacancy() -> None:
    """Close-packed lattice (0.25 nm spacing, 1 nm = 100 px) with one missing atom."""
    rng = np.random.default_rng(101)
    pts = hex_points(25.0, angle=math.radians(8))
    centre = min(pts, key=lambda p: (p[0] - 150) ** 2 + (p[1] - 110) ** 2)
    pts.remove(centre)
    z = bumps(pts, 6.0) + 0.02 * smooth_noise(rng, 1.5)
    im, _ = framed(afmhot(0.1 + 0.8 * normalise(z)), 100, "1 nm", "STM  Vs = -0.5 V  It = 0.8 nA")
    save(im, "stm", "hex_vacancy.png")


def stm_square_lattice() -> None:
    """Square lattice with period 0.40 nm (1 nm = 80 px, period 32 px)."""
    rng = np.random.default_rng(102)
    pts = [(8 + 32 * i, 8 + 32 * j) for i in range(-1, 10) for j in range(-1, 10)]
    z = bumps(pts, 7.0) + 0.015 * smooth_noise(rng, 1.5)
    im, _ = framed(afmhot(0.1 + 0.8 * normalise(z)), 80, "1 nm", "STM  Vs = +1.0 V  It = 0.2 nA")
    save(im, "stm", "square_lattice.png")


def _step_mask(x: Array, y: Array) -> tuple[Array, Array]:
    """Upper terrace to the right of a gently curved step edge."""
    edge = 118 + 0.25 * (y - 128) + 10 * np.sin(y / 37.0)
    return 1.0 / (1.0 + np.exp(-(x - edge) / 1.5)), edge


def stm_ti_step() -> None:
    """Topography with one step (left low, right high) and an in-gap dI/dV map that is
    bright only along the step edge (a one-dimensional edge state)."""
    rng = np.random.default_rng(103)
    x, y = grid()
    upper, edge = _step_mask(x, y)
    topo = upper + 0.03 * smooth_noise(rng, 2.0)
    im, _ = framed(afmhot(0.15 + 0.7 * normalise(topo)), 64, "10 nm", "STM topography  Vs = +0.3 V")
    save(colour_bar(im, "0", "0.9 nm", afmhot), "stm", "ti_step_topography.png")
    didv = 0.15 + 0.85 * np.exp(-((x - edge) ** 2) / (2 * 3.5**2)) + 0.025 * smooth_noise(rng, 2.0)
    im, _ = framed(afmhot(np.clip(didv, 0, 1)), 64, "10 nm", "dI/dV map  Vs = +0.05 V (in gap)")
    save(colour_bar(im, "low", "high", afmhot), "stm", "ti_step_didv.png")


def stm_spin_polarised() -> None:
    """The same square lattice seen with a non-magnetic tip (all atoms alike) and with a
    spin-polarised tip (checkerboard of bright and dim atoms: twice the atomic period)."""
    rng = np.random.default_rng(104)
    sites = [(i, j) for i in range(-1, 10) for j in range(-1, 10)]
    pts = [(8 + 32 * i, 8 + 32 * j) for i, j in sites]
    plain = bumps(pts, 7.0) + 0.015 * smooth_noise(rng, 1.5)
    im, _ = framed(afmhot(0.1 + 0.8 * normalise(plain)), 80, "1 nm", "W tip (non-magnetic)")
    save(im, "stm", "spin_plain_tip.png")
    heights = [1.0 if (i + j) % 2 == 0 else 0.55 for i, j in sites]
    sp = bumps(pts, 7.0, heights) + 0.015 * smooth_noise(rng, 1.5)
    im, _ = framed(afmhot(0.1 + 0.8 * normalise(sp)), 80, "1 nm", "Cr tip (spin-polarised)")
    save(im, "stm", "spin_polarised_tip.png")


# --- AFM --------------------------------------------------------------------------------------


def afm_terraces() -> None:
    """Four parallel steps of 0.30 nm each; heights fall from left (1.2 nm) to right (0 nm).
    The image is 2 um wide (128 px per um); a line profile crosses all terraces."""
    rng = np.random.default_rng(201)
    x, y = grid()
    h = np.zeros((N, N))
    edges = [52, 104, 156, 208]
    for e in edges:
        wavy = e + 0.15 * (y - 128) + 5 * np.sin(y / 29.0 + e)
        h += 0.30 / (1.0 + np.exp((x - wavy) / 1.2))  # 0.3 nm more to the left of each edge
    h += 0.006 * smooth_noise(rng, 2.0)
    im, d = framed(afmhot(np.clip(h / 1.25, 0, 1)), 128, "1 um", "AFM tapping  height")
    d.line([(10, 40), (246, 40)], fill=(80, 200, 255), width=2)
    d.text((232, 30), "1", fill=(80, 200, 255), font=F, anchor="mm")
    save(colour_bar(im, "0 nm", "1.2 nm", afmhot), "afm", "terraces_height.png")

    # the line profile along y = 40
    row = h[40]
    w, hgt = 300, 200
    prof = Image.new("RGB", (w, hgt), WHITE)
    d = ImageDraw.Draw(prof)
    x0, x1, y0, y1 = 46, 290, 170, 16  # plot frame (pixels); height 0..1.4 nm
    d.rectangle([x0, y1, x1, y0], outline=BLACK)
    for v in (0.0, 0.3, 0.6, 0.9, 1.2):
        yy = y0 - (y0 - y1) * v / 1.4
        d.line([(x0 - 4, yy), (x0, yy)], fill=BLACK)
        d.line([(x0, yy), (x1, yy)], fill=(225, 225, 225))
        d.text((x0 - 6, yy), f"{v:.1f}", fill=BLACK, font=font(10), anchor="rm")
    for um in (0.0, 0.5, 1.0, 1.5, 2.0):
        xx = x0 + (x1 - x0) * um / 2.0
        d.line([(xx, y0), (xx, y0 + 4)], fill=BLACK)
        d.text((xx, y0 + 12), f"{um:g}", fill=BLACK, font=font(10), anchor="mm")
    pts = [(x0 + (x1 - x0) * i / (N - 1), y0 - (y0 - y1) * row[i] / 1.4) for i in range(N)]
    d.line(pts, fill=(30, 80, 200), width=2)
    d.text(
        ((x0 + x1) / 2, hgt - 8),
        "distance along line 1 (um)",
        fill=BLACK,
        font=font(10),
        anchor="mm",
    )
    d.text((4, 8), "height (nm)", fill=BLACK, font=font(10), anchor="lm")
    save(prof, "afm", "terraces_profile.png")


def afm_perovskite_grains() -> None:
    """Polycrystalline film, 2 um wide: grains about 0.2 um across (~100 seeds), two pinholes."""
    rng = np.random.default_rng(202)
    centre_dist, boundary = voronoi_grains(rng, 100)
    z = (
        0.3
        + 0.3 * np.tanh(boundary / 3.0)
        + 0.15 * np.exp(-centre_dist / 12.0)
        + 0.015 * smooth_noise(rng, 1.5)
    )
    x, y = grid()
    for px, py in ((70, 180), (190, 70)):
        z = np.where((x - px) ** 2 + (y - py) ** 2 < 6**2, 0.0, z)
    im, _ = framed(afmhot(np.clip(z, 0, 1)), 64, "500 nm", "AFM  height  perovskite film")
    save(colour_bar(im, "0 nm", "40 nm", afmhot), "afm", "perovskite_grains.png")


def afm_mfm() -> None:
    """Topography (flat, three small particles) and MFM phase of the same 2 um area: a maze
    of stripe domains with a period of about 200 nm (domains about 100 nm wide)."""
    rng = np.random.default_rng(203)
    topo = (
        0.3 + 0.02 * smooth_noise(rng, 1.5) + 0.6 * bumps([(60, 70), (180, 150), (110, 210)], 4.0)
    )
    im, _ = framed(afmhot(np.clip(topo, 0, 1)), 64, "500 nm", "AFM topography")
    save(colour_bar(im, "0 nm", "5 nm", afmhot), "afm", "mfm_topography.png")
    # band-pass filtered noise around a wavelength of 25.6 px (200 nm at 128 px / um)
    k = np.fft.fftfreq(N)
    kx, ky = np.meshgrid(k, k)
    kr = np.sqrt(kx**2 + ky**2)
    ring = np.exp(-((kr - 1 / 25.6) ** 2) / (2 * 0.006**2))
    field = np.real(np.fft.ifft2(np.fft.fft2(rng.standard_normal((N, N))) * ring))
    phase = 0.5 + 0.4 * np.tanh(field / (0.5 * field.std())) + 0.015 * smooth_noise(rng, 1.0)
    im, _ = framed(blue_red(phase), 64, "500 nm", "MFM phase  lift 30 nm")
    save(colour_bar(im, "-2 deg", "+2 deg", blue_red), "afm", "mfm_phase.png")


def afm_triangular_pits() -> None:
    """A monolayer flake with five etched triangular pits, all pointing the same way."""
    rng = np.random.default_rng(204)
    z = 0.7 + 0.015 * smooth_noise(rng, 1.5)
    im_mask = Image.new("L", (N, N), 0)
    d = ImageDraw.Draw(im_mask)
    for cx, cy, s in ((60, 60, 16), (170, 50, 12), (120, 130, 20), (55, 190, 14), (195, 185, 17)):
        d.polygon(
            [(cx, cy - s), (cx - 0.87 * s, cy + 0.5 * s), (cx + 0.87 * s, cy + 0.5 * s)], fill=255
        )
    pits = np.asarray(im_mask, dtype=float) / 255.0
    z = z - 0.6 * pits
    im, _ = framed(afmhot(np.clip(z, 0, 1)), 64, "200 nm", "AFM height  MoS2 monolayer, etched")
    save(colour_bar(im, "0 nm", "1.0 nm", afmhot), "afm", "triangular_pits.png")


# --- SEM --------------------------------------------------------------------------------------


def _sem_sphere(z: Array, cx: float, cy: float, r: float) -> None:
    """A sphere with the bright rim that secondary-electron images show at edges."""
    x, y = grid()
    rho = np.sqrt((x - cx) ** 2 + (y - cy) ** 2) / r
    inside = rho < 1
    shade = 0.45 + 0.5 * rho**4 - 0.12 * (y - cy) / r  # brighter rim, lit from the top
    z[inside] = shade[inside]


def sem_spheres() -> None:
    """Monodisperse spheres 200 nm across (25 px at 128 px / um)."""
    rng = np.random.default_rng(301)
    z = 0.12 + 0.015 * smooth_noise(rng, 2.0)
    for cx, cy in scatter(rng, 45, 27.0, 14.0):
        _sem_sphere(z, cx, cy, 12.5 * rng.uniform(0.97, 1.03))
    z += 0.015 * rng.standard_normal((N, N))
    im, _ = framed(grey(z), 128, "1 um", "SEM  SE  5 kV  x40k")
    save(im, "sem", "spheres.png")


def _secondary_particle(rng: np.random.Generator, cracked: bool) -> Array:
    """A round agglomerate of primary grains, about 9 um across; optionally with cracks."""
    x, y = grid()
    r = np.sqrt((x - 128) ** 2 + (y - 124) ** 2)
    _, boundary = voronoi_grains(rng, 260)
    body = r < 100
    z = np.where(body, 0.55 + 0.2 * np.tanh(boundary / 2.0) - 0.25 * (r / 100) ** 6, 0.08)
    rim = np.exp(-((r - 100) ** 2) / 8.0)
    z = z + 0.3 * rim
    if cracked:
        crack = Image.new("L", (N, N), 0)
        d = ImageDraw.Draw(crack)
        for pts in (
            [(60, 70), (95, 110), (120, 118), (160, 150), (205, 168)],
            [(128, 30), (133, 80), (120, 118), (112, 170), (125, 222)],
            [(160, 150), (190, 105), (220, 95)],
        ):
            d.line(pts, fill=255, width=3)
        z = np.where((np.asarray(crack) > 0) & body, 0.02, z)
    return z + 0.015 * rng.standard_normal((N, N))


def sem_cathode() -> None:
    """The same kind of cathode agglomerate before and after cycling (cracks after)."""
    rng = np.random.default_rng(302)
    im, _ = framed(
        grey(_secondary_particle(rng, False)), 106, "5 um", "SEM  pristine electrode  x5k"
    )
    save(im, "sem", "cathode_pristine.png")
    im, _ = framed(grey(_secondary_particle(rng, True)), 106, "5 um", "SEM  after 200 cycles  x5k")
    save(im, "sem", "cathode_cycled.png")


def sem_hexagonal_rods() -> None:
    """Top view of an array of rods with hexagonal cross-sections, about 100 nm across
    (1 um = 256 px, so about 26 px)."""
    rng = np.random.default_rng(303)
    im = Image.new("L", (N, N), 40)
    d = ImageDraw.Draw(im)
    for cx, cy in scatter(rng, 36, 33.0, 16.0):
        r = 13 * rng.uniform(0.9, 1.1)
        rot = math.radians(rng.uniform(0, 5))  # c-axis aligned: facets nearly parallel
        hexagon = [
            (cx + r * math.cos(rot + k * math.pi / 3), cy + r * math.sin(rot + k * math.pi / 3))
            for k in range(6)
        ]
        d.polygon(hexagon, fill=150, outline=235)
    z = np.asarray(im, dtype=float) / 255.0 + 0.015 * rng.standard_normal((N, N))
    out, _ = framed(grey(z), 51, "200 nm", "SEM  top view  x80k")
    save(out, "sem", "hexagonal_rods.png")


def sem_cubes() -> None:
    """Cubic crystals with sharp edges, edge length about 1 um (1 um = 40 px here; 2 um bar)."""
    rng = np.random.default_rng(304)
    im = Image.new("L", (N, N), 30)
    d = ImageDraw.Draw(im)
    for cx, cy in ((52, 60), (150, 48), (215, 120), (90, 150), (180, 205), (50, 222), (130, 110)):
        a = 40 * rng.uniform(0.92, 1.08)
        o = 0.45 * a  # oblique depth offset: top and right faces visible
        front = [(cx, cy), (cx + a, cy), (cx + a, cy + a), (cx, cy + a)]
        top = [(cx, cy), (cx + o, cy - o), (cx + a + o, cy - o), (cx + a, cy)]
        side = [(cx + a, cy), (cx + a + o, cy - o), (cx + a + o, cy + a - o), (cx + a, cy + a)]
        d.polygon(front, fill=140, outline=220)
        d.polygon(top, fill=200, outline=235)
        d.polygon(side, fill=95, outline=220)
    z = np.asarray(im, dtype=float) / 255.0 + 0.015 * rng.standard_normal((N, N))
    out, _ = framed(grey(z), 80, "2 um", "SEM  SE  10 kV  x15k")
    save(out, "sem", "cubes.png")


# --- TEM --------------------------------------------------------------------------------------


def tem_hrtem_cubic() -> None:
    """Two perpendicular fringe sets, both 0.20 nm apart (1 nm = 100 px), and the matching
    diffraction pattern: a square grid of spots."""
    rng = np.random.default_rng(401)
    x, y = grid()
    z = 0.5 + 0.22 * np.cos(2 * math.pi * x / 20) + 0.22 * np.cos(2 * math.pi * y / 20)
    z += 0.025 * smooth_noise(rng, 1.0)
    im, _ = framed(grey(np.clip(z, 0, 1)), 100, "1 nm", "HRTEM  200 kV")
    save(im, "tem", "hrtem_cubic.png")
    pts = [(128 + 40 * i, 128 + 40 * j) for i in range(-3, 4) for j in range(-3, 4)]
    hs = [0.45 + 0.55 * math.exp(-(i * i + j * j) / 6) for i in range(-3, 4) for j in range(-3, 4)]
    sad = bumps(pts, 2.8, hs) + 0.015 * smooth_noise(rng, 1.0) + 0.12 * bumps([(128, 128)], 20)
    im, _ = framed(grey(np.clip(0.05 + sad, 0, 1)), 40, "5 1/nm", "SAED  same grain")
    save(im, "tem", "hrtem_cubic_saed.png")


def tem_edge_dislocation() -> None:
    """Lattice fringes 0.25 nm apart with one extra half-plane ending near the image centre."""
    rng = np.random.default_rng(402)
    x, y = grid()
    theta = np.arctan2(y - 124, x - 132)
    z = 0.5 + 0.35 * np.cos(2 * math.pi * x / 25 + theta) + 0.025 * smooth_noise(rng, 1.0)
    im, _ = framed(grey(np.clip(z, 0, 1)), 100, "1 nm", "HRTEM  200 kV")
    save(im, "tem", "edge_dislocation.png")


def _rings(radii: list[float], width: float, spots: int, rng: np.random.Generator) -> Array:
    x, y = grid()
    r = np.sqrt((x - 128) ** 2 + (y - 128) ** 2)
    z = 0.6 * np.exp(-(r**2) / (2 * 6**2))
    for rad in radii:
        z += 0.55 * np.exp(-((r - rad) ** 2) / (2 * width**2))
    if spots:
        for _ in range(spots):
            rad = radii[rng.integers(len(radii))]
            ang = rng.uniform(0, 2 * math.pi)
            z += 0.6 * bumps([(128 + rad * math.cos(ang), 128 + rad * math.sin(ang))], 1.6)
    return z + 0.015 * smooth_noise(rng, 1.0)


def tem_saed_annealing() -> None:
    """Electron diffraction of the same film: broad diffuse halos before annealing, sharp
    rings made of many spots after."""
    rng = np.random.default_rng(403)
    im, _ = framed(
        grey(np.clip(0.05 + _rings([48, 90], 9.0, 0, rng), 0, 1)),
        40,
        "5 1/nm",
        "SAED  as deposited",
    )
    save(im, "tem", "saed_as_deposited.png")
    sharp = _rings([44, 62, 78, 101], 1.2, 240, rng)
    im, _ = framed(grey(np.clip(0.05 + sharp, 0, 1)), 40, "5 1/nm", "SAED  annealed 600 C")
    save(im, "tem", "saed_annealed.png")


def tem_lorentz_skyrmions() -> None:
    """Lorentz TEM (under-focus): a hexagonal lattice of round textures, centre-to-centre
    about 80 nm (1 um = 320 px, so about 26 px), each a dark core with a bright ring."""
    rng = np.random.default_rng(404)
    x, y = grid()
    z = np.full((N, N), 0.5)
    for px, py in hex_points(26.0, angle=math.radians(12), margin=20):
        r = np.sqrt((x - px) ** 2 + (y - py) ** 2)
        z += -0.35 * np.exp(-(r**2) / (2 * 4.0**2)) + 0.18 * np.exp(-((r - 9) ** 2) / (2 * 2.0**2))
    z += 0.02 * smooth_noise(rng, 1.5)
    im, _ = framed(grey(np.clip(z, 0, 1)), 64, "200 nm", "Lorentz TEM  under-focus  B = 150 mT")
    save(im, "tem", "lorentz_textures.png")


DRAWINGS: list[Callable[[], None]] = [
    stm_hex_vacancy,
    stm_square_lattice,
    stm_ti_step,
    stm_spin_polarised,
    afm_terraces,
    afm_perovskite_grains,
    afm_mfm,
    afm_triangular_pits,
    sem_spheres,
    sem_cathode,
    sem_hexagonal_rods,
    sem_cubes,
    tem_hrtem_cubic,
    tem_edge_dislocation,
    tem_saed_annealing,
    tem_lorentz_skyrmions,
]


def main() -> None:
    for draw in DRAWINGS:
        draw()
    print(f"wrote {sum(1 for _ in ROOT.rglob('*.png'))} images under {ROOT}")


if __name__ == "__main__":
    main()
