"""SPM-Bench's part of ``sci-leaderboard`` (its declaration's ``leaderboard`` hook): the
default columns, plus one plot, SPC next to SIP-F1 per model (the gap between the two
bars is the paper's Delta)."""

from __future__ import annotations

import math
from pathlib import Path

from sci_tasks.leaderboard import plots, sections
from sci_tasks.leaderboard.table import Leaderboard

PLOT = "spm_bench_spc_vs_sip_f1.png"
SERIES = ("SPC", "SIP-F1")


class Section(sections.Section):
    def plots(self, board: Leaderboard, out_dir: Path) -> list[Path]:
        spm = [r for r in board.rows if not math.isnan(board.value(r, f"{self.prefix}SIP-F1"))]
        if not spm:
            return []
        # one group per model, one bar per metric
        data = [[board.value(r, f"{self.prefix}{s}") for r in spm] for s in SERIES]
        errors = [[r.stderr.get(f"{self.prefix}{s}", math.nan) for r in spm] for s in SERIES]
        path = out_dir / PLOT
        title = f"{self.benchmark.title}: SPC vs SIP-F1 per model"
        plots.grouped_bars(path, [r.model for r in spm], list(SERIES), data, "score", title,
                           errors=errors)  # fmt: skip
        return [path]
