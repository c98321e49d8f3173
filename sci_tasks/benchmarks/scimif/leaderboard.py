"""SciMIF's part of ``sci-leaderboard`` (its declaration's ``leaderboard`` hook).

Instead of the group's three values, SciMIF shows the paper's layout: CSR / ISR / DRFR per
discipline (the discipline task's results; a discipline without its own task, e.g. a
``scimif_all`` run, from the samples), Overall = mean ISR over the disciplines present
(lm-eval's unweighted group mean, as the ``scimif`` group's ``weight_by_size: false``), and
DRFR per functional group, which only the logged samples carry (``.report``
computes it). Two plots: ISR per discipline, and DRFR per functional group.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

from lm_eval.api.metrics import aggregate_subtask_metrics, unweighted_mean_stderr

from sci_tasks.benchmarks.scimif import SHORT
from sci_tasks.benchmarks.scimif import report as scimif_report
from sci_tasks.leaderboard import plots, sections
from sci_tasks.leaderboard.sections import ErrorSource
from sci_tasks.leaderboard.table import Entry, Leaderboard, ModelRow, number
from sci_tasks.metrics.constraints.registry import Group

DISCIPLINES = scimif_report.DISCIPLINES  # chemistry, geography, biology, material, physics
TASK = {d: f"scimif_{s}" for d, s in SHORT.items()}
GROUPS = tuple(g.value for g in Group)  # the paper's ten functional groups
OVERALL = "SciMIF Overall"
OVERALL_COUNT = "SciMIF Overall disciplines"
PLOTS = {"isr": "scimif_isr_by_discipline.png", "groups": "scimif_drfr_by_group.png"}


class Section(sections.Section):
    def disciplines(self, row: ModelRow) -> list[str]:
        """The disciplines with values in ``row``, in the paper's order."""
        return [d for d in DISCIPLINES if f"SciMIF {d} ISR" in row.values]

    def present(self, board: Leaderboard) -> list[str]:
        found = {d for r in board.rows for d in self.disciplines(r)}
        return [d for d in DISCIPLINES if d in found]

    def fill(self, row: ModelRow, entries: Mapping[str, Entry], notes: list[str]) -> None:
        """Per-discipline CSR / ISR / DRFR from the discipline tasks' results (from the
        samples only for a discipline without its own task); Overall; DRFR per group."""
        metrics = self.benchmark.columns
        jobs = [j for j in row.jobs if any(map(self.benchmark.owns, j.results.get("results", {})))]
        if not jobs:
            return
        samples_of: dict[str, list[scimif_report.Sample]] = {}
        for job in jobs:
            assert job.results_file is not None
            try:
                samples_of[job.name] = scimif_report.read_samples(job.results_file.parent)
            except ValueError as exc:
                notes.append(f"`{row.model}`: SciMIF samples of `{job.name}` not used: {exc}")
                samples_of[job.name] = []
        chosen: list[scimif_report.Sample] = []  # per discipline, the samples of one job
        no_samples: list[str] = []  # disciplines with results but no logged samples
        isrs: list[float] = []
        for d in DISCIPLINES:
            entry = entries.get(TASK[d])
            if entry is not None:
                for label, key in metrics:
                    row.values[f"SciMIF {d} {label}"] = number(entry.values.get(key))
                source = entry.job
            else:  # no discipline task: the newest job whose samples hold this discipline
                holding = [j for j in jobs if any(s.discipline == d for s in samples_of[j.name])]
                if not holding:
                    continue
                source = holding[-1]
                own = [s for s in samples_of[source.name] if s.discipline == d]
                table = scimif_report.discipline_table(own)
                for label, _ in metrics:
                    row.values[f"SciMIF {d} {label}"] = number(table[1][table[0].index(label)])
                notes.append(
                    f"`{row.model}`: SciMIF {d} has no `{TASK[d]}` results; its CSR / ISR / "
                    f"DRFR are computed from the samples of `{source.name}`."
                )
            isrs.append(row.values[f"SciMIF {d} ISR"])
            own = [s for s in samples_of.get(source.name, []) if s.discipline == d]
            if not own:
                no_samples.append(d)
            chosen += own
        if not isrs:
            return
        # the paper's Overall: the unweighted mean (NaN if a discipline has no ISR)
        row.values[OVERALL] = aggregate_subtask_metrics(isrs, [1] * len(isrs), False)
        row.values[OVERALL_COUNT] = float(len(isrs))
        if chosen:
            table = scimif_report.group_table(chosen)
            for line in table[1:]:
                row.values[f"SciMIF DRFR {line[0]}"] = number(line[-1])  # the pooled "all"
        if no_samples:
            notes.append(
                f"`{row.model}`: no SciMIF samples for {', '.join(no_samples)} (run with "
                "log_samples=true): "
                + ("no DRFR per group." if not chosen else "the DRFR per group leaves them out.")
            )

    def error_sources(self) -> dict[str, ErrorSource]:
        return {
            f"SciMIF {d} {label}": ErrorSource(key.split(",")[0], (task,))
            for d, task in TASK.items()
            for label, key in self.benchmark.columns
        }

    def combined_errors(self, row: ModelRow) -> dict[str, float]:
        """Overall's ±: the disciplines' ISR errors combined (independent samples), as
        lm-eval combines an unweighted group mean's."""
        isr = [row.stderr.get(f"SciMIF {d} ISR", math.nan) for d in self.disciplines(row)]
        return {OVERALL: float(unweighted_mean_stderr(isr))} if isr else {}

    def columns(self, board: Leaderboard) -> list[str]:
        cols: list[str] = []
        present = self.present(board)
        if present:
            for d in present:
                cols += [f"SciMIF {d} {label}" for label, _ in self.benchmark.columns]
            cols += [OVERALL, OVERALL_COUNT]
        if any(c.startswith("SciMIF DRFR ") for r in board.rows for c in r.values):
            cols += [f"SciMIF DRFR {g}" for g in GROUPS]
        return cols

    def count_columns(self) -> set[str]:
        return {OVERALL_COUNT}

    def tables(self, board: Leaderboard) -> list[tuple[str, list[str], str]]:
        cols = self.columns(board)
        groups = [c for c in cols if c.startswith("SciMIF DRFR ")]
        return [
            ("SciMIF", [c for c in cols if c not in groups], "SciMIF "),
            ("SciMIF DRFR by functional group", groups, "SciMIF DRFR "),
        ]

    def docs(self) -> list[str]:
        return [
            "- `SciMIF <discipline> CSR / ISR / DRFR`: the discipline task's values "
            "(`scimif_chem`, ...) from the results file; a discipline without its own task "
            "(e.g. only `scimif_all` was run) is computed from the samples.",
            "- `SciMIF Overall`: mean ISR over the disciplines present in the row "
            "(`Overall disciplines` says how many; compare models only over the same set); "
            "n/a if one of them has no ISR.",
            "- `SciMIF DRFR <group>`: DRFR per functional group, pooled over the row's "
            "disciplines (ratio of sums over the scored constraints of that group), from the "
            "logged samples.",
        ]

    def error_docs(self) -> list[str]:
        return ["SciMIF Overall: the disciplines' errors combined"]

    def plots(self, board: Leaderboard, out_dir: Path) -> list[Path]:
        written = []
        models = [r.model for r in board.rows]
        present = self.present(board)
        if present:
            cats = [*present, "Overall"]
            data = [
                [board.value(r, f"SciMIF {d} ISR") for d in present] + [board.value(r, OVERALL)]
                for r in board.rows
            ]
            errors = [
                [r.stderr.get(f"SciMIF {d} ISR", math.nan) for d in present]
                + [r.stderr.get(OVERALL, math.nan)]
                for r in board.rows
            ]
            path = out_dir / PLOTS["isr"]
            title = "SciMIF: ISR per discipline (Overall = mean over disciplines)"
            plots.grouped_bars(path, cats, models, data, "ISR", title, last_apart=True,
                               errors=errors)  # fmt: skip
            written.append(path)
        grid = [[board.value(r, f"SciMIF DRFR {g}") for g in GROUPS] for r in board.rows]
        if any(not math.isnan(v) for line in grid for v in line):
            path = out_dir / PLOTS["groups"]
            title = "SciMIF: DRFR per functional group (pooled over the disciplines of each model)"
            plots.heatmap(path, models, list(GROUPS), grid, title)
            written.append(path)
        return written
