"""The leaderboard's plots: each registered benchmark's section draws its own
(``Section.plots``) with the two figure kinds here, grouped bars with error bars and a
heatmap. PNGs carry no timestamp or software metadata: the same sweep gives the same file."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sci_tasks.leaderboard.table import Leaderboard


def write_plots(board: Leaderboard, out_dir: Path) -> list[Path]:
    """The plots that the leaderboard has data for, section by section."""
    return [path for part in board.sections for path in part.plots(board, out_dir)]


COLOURS = ["#3b6fb6", "#e67e22", "#2e8b57", "#c0392b", "#8e44ad", "#16a085", "#7f8c8d",
           "#d4ac0d", "#2c3e50", "#e84393"]  # fmt: skip


def _style(i: int, n: int) -> tuple[str, str | None]:
    """Colour (and past 20 series, a hatch) of series ``i`` of ``n``: no two series alike."""
    if n <= len(COLOURS):
        return COLOURS[i], None
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    colour = to_hex(colormaps["tab20"](i % 20))
    return colour, [None, "//", "..", "xx"][(i // 20) % 4]


def grouped_bars(
    path: Path,
    categories: Sequence[str],
    series: Sequence[str],
    data: Sequence[Sequence[float]],  # data[series][category]
    ylabel: str,
    title: str,
    last_apart: bool = False,
    errors: Sequence[Sequence[float]] | None = None,  # like data: ± 1 bootstrap stderr
) -> None:
    """Bars of each series side by side per category (``last_apart``: a rule before the last
    category, e.g. an Overall that is not one more discipline), with error bars where
    ``errors`` has a value."""
    import numpy as np
    from matplotlib.figure import Figure

    n_cat, n_ser = len(categories), len(series)
    width = 0.8 / n_ser
    label_w = 0.085 * max((len(c) for c in categories), default=1) + 0.25  # inches per label
    per_cat = 0.28 * n_ser + 0.5  # inches per category for the bars
    fig_w = min(max(6.5, 1.2 + n_cat * per_cat), 18.0)
    long = label_w > (fig_w - 1.2) / n_cat  # horizontal labels would collide: slant them
    fig = Figure(figsize=(fig_w, 4.8), layout="constrained")
    ax = fig.add_subplot()
    x = np.arange(n_cat)
    small = n_ser * n_cat > 24
    for i, (name, values) in enumerate(zip(series, data, strict=True)):
        pos = x - 0.4 + width * (i + 0.5)
        heights = [0.0 if math.isnan(v) else v for v in values]
        errs = [0.0 if math.isnan(e) else e for e in (errors[i] if errors else [math.nan] * n_cat)]
        colour, hatch = _style(i, n_ser)
        ink = colour if n_ser <= len(COLOURS) else "#333333"  # pale tab20 text is unreadable
        # the edge keeps a 0.00 bar visible as a coloured line on the axis
        ax.bar(pos, heights, width * 0.92, label=name, color=colour, edgecolor=colour, lw=1.2,
               hatch=hatch)  # fmt: skip
        if any(errs):
            ax.errorbar(pos, heights, yerr=errs, fmt="none", ecolor="#222222", elinewidth=1,
                        capsize=3)  # fmt: skip
        for p, v, e in zip(pos, values, errs, strict=True):
            text = "n/a" if math.isnan(v) else f"{v:.2f}"
            top = min((0.0 if math.isnan(v) else v) + e, 1.08)  # inside the axes above 1.0
            ax.text(p, top + 0.015, text, ha="center", va="bottom",
                    fontsize=7 if small else 8, rotation=90 if small else 0,
                    color="grey" if math.isnan(v) else ink)  # fmt: skip
    spare = max(0.0, (3 - n_cat) / 2)  # one or two categories: keep the bars slim
    ax.set_xlim(-0.5 - spare, n_cat - 0.5 + spare)
    if last_apart and n_cat > 1:
        ax.axvline(n_cat - 1.5, color="grey", linestyle=":", linewidth=1)
    ax.set_xticks(x)
    ax.set_xticklabels(categories, rotation=25 if long else 0, ha="right" if long else "center")
    ax.set_ylim(0.0, 1.15)
    ax.set_yticks([0.0, 0.2, 0.4, 0.6, 0.8, 1.0])
    with_errors = errors is not None and any(e > 0 for row in errors for e in row)
    ax.set_ylabel(f"{ylabel} (error bars: ± 1 bootstrap s.e.)" if with_errors else ylabel)
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    name_w = 0.08 * max(len(s) for s in series) + 0.5  # legend entries in rows under the plot
    ncol = max(1, min(n_ser, int(fig_w // name_w)))
    fig.legend(loc="outside lower center", ncol=ncol, frameon=False, fontsize=9)
    _save(fig, path)


def heatmap(
    path: Path,
    rows: Sequence[str],
    cols: Sequence[str],
    grid: Sequence[Sequence[float]],
    title: str,
) -> None:
    import numpy as np
    from matplotlib import colormaps
    from matplotlib.figure import Figure

    values = np.ma.masked_invalid(np.array(grid, dtype=float))
    name_w = max((len(r) for r in rows), default=4) * 0.075
    fig = Figure(figsize=(2.0 + name_w + 0.85 * len(cols), max(3.2, 1.8 + 0.45 * len(rows))),
                 layout="constrained")  # fmt: skip
    ax = fig.add_subplot()
    cmap = colormaps["viridis"].with_extremes(bad="#e6e6e6")
    image = ax.imshow(values, cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto")
    for i in range(len(rows)):
        for j in range(len(cols)):
            v = float(grid[i][j])
            text = "n/a" if math.isnan(v) else f"{v:.2f}"
            colour = "#555555" if math.isnan(v) else ("black" if v > 0.6 else "white")
            ax.text(j, i, text, ha="center", va="center", fontsize=8, color=colour)
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels(cols, rotation=30, ha="right")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(rows)
    ax.set_title(title)
    fig.colorbar(image, ax=ax, label="DRFR", fraction=0.04)
    _save(fig, path)


def _save(fig: Any, path: Path) -> None:
    # no timestamp / software metadata: the same sweep gives the same file
    fig.savefig(path, dpi=110, metadata={"Software": None})
