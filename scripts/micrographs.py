"""Microscope-like fields for the sample images: height fields and their colour maps, smooth
noise, bumps on lattices or scattered without overlap, Voronoi grains, a scale bar (a sibling
module of the scripts, as ``drawing.py``)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from drawing import BLACK, WHITE, Font
from PIL import Image, ImageDraw

N = 256  # side of a square field in pixels (SPM-Bench's data area)
Array = np.ndarray


def on_white(pixels: Array, size: tuple[int, int]) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    """A white canvas of ``size`` with ``pixels`` (grey or RGB, clipped to 0-255) at the top
    left."""
    im = Image.new("RGB", size, WHITE)
    im.paste(Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)).convert("RGB"), (0, 0))
    return im, ImageDraw.Draw(im)


def scale_bar(
    d: ImageDraw.ImageDraw, bar: tuple[int, int, int], label: str, at: tuple[int, int], font: Font
) -> None:
    """A micrograph's scale bar from x0 to x1 at height y, labelled at ``at``."""
    x0, x1, y = bar
    d.line([(x0, y), (x1, y)], fill=BLACK, width=3)
    d.text(at, label, fill=BLACK, font=font)


# --- colour maps ------------------------------------------------------------------------------


def normalise(z: Array) -> Array:
    lo, hi = float(z.min()), float(z.max())
    return (z - lo) / (hi - lo) if hi > lo else np.zeros_like(z)


def afmhot(z: Array) -> Array:
    """The 'afmhot' colour map usual for STM/AFM height images (black-orange-white)."""
    z = np.clip(z, 0.0, 1.0)
    rgb = np.stack(
        [np.clip(2 * z, 0, 1), np.clip(2 * z - 0.5, 0, 1), np.clip(2 * z - 1, 0, 1)], axis=-1
    )
    return (rgb * 255).round().astype(np.uint8)


def grey(z: Array) -> Array:
    g = (np.clip(z, 0.0, 1.0) * 255).round().astype(np.uint8)
    return np.stack([g, g, g], axis=-1)


def blue_red(z: Array) -> Array:
    """A two-colour map (blue = low, red = high) for the MFM phase image."""
    z = np.clip(z, 0.0, 1.0)
    rgb = np.stack([z * 230 + 20, np.full_like(z, 40.0), (1 - z) * 230 + 20], axis=-1)
    return rgb.round().astype(np.uint8)


# --- fields -----------------------------------------------------------------------------------


def grid(n: int = N) -> tuple[Array, Array]:
    y, x = np.mgrid[0:n, 0:n].astype(float)
    return x, y


def smooth_noise(rng: np.random.Generator, sigma_px: float, n: int = N) -> Array:
    """Gaussian-filtered white noise (via FFT), unit variance."""
    noise = rng.standard_normal((n, n))
    k = np.fft.fftfreq(n)
    kx, ky = np.meshgrid(k, k)
    filt = np.exp(-2 * (math.pi * sigma_px) ** 2 * (kx**2 + ky**2))
    out = np.real(np.fft.ifft2(np.fft.fft2(noise) * filt))
    return out / out.std()


def bumps(
    points: Sequence[tuple[float, float]], width: float, heights: Sequence[float] | None = None
) -> Array:
    """Sum of Gaussian bumps (atoms, particles) at ``points``."""
    x, y = grid()
    z = np.zeros((N, N))
    for i, (px, py) in enumerate(points):
        h = 1.0 if heights is None else heights[i]
        z += h * np.exp(-((x - px) ** 2 + (y - py) ** 2) / (2 * width**2))
    return z


def scatter(
    rng: np.random.Generator, n: int, min_dist: float, margin: float
) -> list[tuple[float, float]]:
    """Up to ``n`` random non-overlapping centres (random sequential placement, bounded tries)."""
    placed: list[tuple[float, float]] = []
    for _ in range(20000):
        if len(placed) == n:
            break
        cx, cy = rng.uniform(margin, N - margin, size=2)
        if all((cx - px) ** 2 + (cy - py) ** 2 > min_dist**2 for px, py in placed):
            placed.append((float(cx), float(cy)))
    return placed


def hex_points(a: float, angle: float = 0.0, margin: float = 40) -> list[tuple[float, float]]:
    """Sites of a triangular (close-packed) lattice with spacing ``a`` covering the image."""
    pts = []
    ca, sa = math.cos(angle), math.sin(angle)
    rng = int(N / a) + 4
    for i in range(-rng, rng):
        for j in range(-rng, rng):
            u, v = (i + 0.5 * j) * a, j * a * math.sqrt(3) / 2
            x, y = N / 2 + ca * u - sa * v, N / 2 + sa * u + ca * v
            if -margin < x < N + margin and -margin < y < N + margin:
                pts.append((x, y))
    return pts


# --- grains -----------------------------------------------------------------------------------


def voronoi_grains(rng: np.random.Generator, n_seeds: int) -> tuple[Array, Array]:
    """Distance to the nearest grain centre and to the nearest grain boundary (N x N)."""
    seeds = rng.uniform(0, N, size=(n_seeds, 2))
    x, y = grid()
    d = np.sqrt((x[..., None] - seeds[:, 0]) ** 2 + (y[..., None] - seeds[:, 1]) ** 2)
    d.sort(axis=-1)
    return d[..., 0], d[..., 1] - d[..., 0]


def voronoi_labels(h: int, w: int, n: int, seed: int) -> Array:
    """Label image of a random Voronoi tessellation (grain-like cells)."""
    rng = np.random.default_rng(seed)
    pts = rng.uniform([0, 0], [h, w], size=(n, 2))
    yy, xx = np.mgrid[0:h, 0:w]
    dist = (yy[..., None] - pts[:, 0]) ** 2 + (xx[..., None] - pts[:, 1]) ** 2
    return dist.argmin(axis=2)


def grain_edges(lab: Array) -> Array:
    """Boolean mask of pixels where the cell label changes (grain boundaries)."""
    return (np.diff(lab, axis=0, prepend=lab[:1]) != 0) | (
        np.diff(lab, axis=1, prepend=lab[:, :1]) != 0
    )
