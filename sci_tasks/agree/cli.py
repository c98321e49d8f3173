"""``sci-agree``: agreement between scorings of the same samples.

    sci-agree export RUN --out sheet.jsonl [--n 200] [--seed 1] [--constraints a,b]
    sci-agree A B [C ...] [--out DIR] [--iters 1000] [--seed 1]

Each of A, B, ... is a run folder, a sci-score output folder or a filled labelling sheet.
Prints per constraint and overall: n, percent agreement, Cohen's kappa (two sources) or
Fleiss' kappa (more) with a bootstrap 95% interval, and the confusion matrices; writes
``DIR/agreement.csv`` and ``DIR/disagreements.jsonl`` (open it with ``sci-view``).
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sci_tasks.agree import kappa
from sci_tasks.agree.export import SEED, N, export
from sci_tasks.agree.items import (
    NO_VALUE,
    UNDECIDABLE,
    UNSCORED,
    AgreeError,
    Item,
    Source,
    read_source,
)
from sci_tasks.agree.items import shown as shown_value
from sci_tasks.outputs import markdown_table, write_jsonl

CSV_COLUMNS = ("constraint", "n", "agreement", "kappa", "kappa_low", "kappa_high")
ALL = "all"  # the overall row
OUT = Path("agreement")
UNDEFINED = "undefined (one category only)"
COHEN, FLEISS = "Cohen's kappa", "Fleiss' kappa"


@dataclass
class Comparison:
    sources: list[Source]
    common: list[str]  # item ids every source gives a value
    left_out: list[str]  # of them, unscored or undecidable by at least one source
    rows: dict[str, kappa.Agreement]  # constraint (and ALL) -> figures

    def item(self, key: str) -> Item:
        return next(s.items[key] for s in self.sources if key in s.items)


def compare(sources: Sequence[Source], iters: int, seed: int) -> Comparison:
    """Match the sources' items by id and compute each constraint's figures and all."""
    common = sorted(set.intersection(*(set(s.values) for s in sources)))
    if not common:
        raise AgreeError(
            "no item has a value in every source: "
            + "; ".join(f"{s.name}: {len(s.values)} item(s)" for s in sources)
            + " (a sheet matches the run it was exported from and every re-scoring of it)"
        )
    left_out = [k for k in common if any(s.values[k] in NO_VALUE for s in sources)]
    excluded = set(left_out)
    groups: dict[str, list[list[float]]] = {}
    by_item = Comparison(list(sources), common, left_out, {})
    for key in common:
        if key not in excluded:
            row = [float(s.values[key]) for s in sources]
            groups.setdefault(by_item.item(key).constraint, []).append(row)
            groups.setdefault(ALL, []).append(row)
    names = [*sorted(g for g in groups if g != ALL), ALL]
    by_item.rows = {g: kappa.agreement(groups.get(g, []), iters, seed) for g in names}
    return by_item


# --- printing and files ---------------------------------------------------------------------


def _num(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def kappa_text(row: kappa.Agreement) -> tuple[str, str]:
    """(kappa, interval) as printed: undefined is said, never a number."""
    if row.kappa is None:
        return (UNDEFINED if row.n else "n/a (no item)"), "n/a"
    interval = "n/a" if row.low is None else f"[{_num(row.low)}, {_num(row.high)}]"
    return _num(row.kappa), interval


def describe(source: Source) -> str:
    values = list(source.values.values())
    missing = sum(v in NO_VALUE for v in values)
    if source.path.is_dir():
        return f"{source.name}: {len(values)} item(s) scored by its checks, {missing} unscored"
    undecidable = sum(v == UNDECIDABLE for v in values)
    other = missing - undecidable
    said = f"{source.name}: {len(values)} item(s) labelled, {undecidable} undecidable"
    said += f", {other} unscored" if other else ""
    return said + (f"; {source.unlabelled} line(s) not labelled yet" if source.unlabelled else "")


def report(result: Comparison, iters: int, seed: int) -> str:
    sources = result.sources
    many = len(sources) > 2
    lines = [f"sci-agree: {len(sources)} sources", *(f"  {describe(s)}" for s in sources)]
    lines += [
        f"{len(result.common)} item(s) have a value in every source; {len(result.left_out)} of "
        "them unscored or undecidable by at least one source: left out of kappa",
        f"{FLEISS if many else COHEN}; 95% interval: bootstrap over the items, "
        f"{iters} resamples, seed {seed}",
        "",
    ]
    table = []
    for name, row in result.rows.items():
        k, interval = kappa_text(row)
        table.append([name, row.n, _num(row.agreement), k, interval])
    head = ["constraint", "n", "agreement" if not many else "all agree", "kappa", "95% interval"]
    lines += [markdown_table(head, table, aligned=True), ""]
    for name, row in result.rows.items():
        for (a, b), counts in row.confusion.items():
            cats = [str(shown_value(c)) for c in row.categories]
            lines.append(f"{name}: rows {sources[a].name}, columns {sources[b].name}")
            cells = [[cat, *counts[i]] for i, cat in enumerate(cats)]
            lines += [markdown_table(["", *cats], cells, aligned=True), ""]
    return "\n".join(lines)


def write_csv(result: Comparison, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(CSV_COLUMNS)
        for name, row in result.rows.items():
            cells = (row.agreement, row.kappa, row.low, row.high)
            writer.writerow([name, row.n, *("" if v is None else v for v in cells)])
    return path


def disagreements(result: Comparison) -> list[dict[str, Any]]:
    """The items on which the sources' values differ (no value against a score too)."""
    out = []
    excluded = set(result.left_out)
    for key in result.common:
        values = {s.name: shown_value(s.values[key]) for s in result.sources}
        said = {UNSCORED if v in NO_VALUE else str(v) for v in values.values()}
        if len(said) > 1:  # unscored and undecidable say the same: no value
            out.append(
                {
                    **result.item(key).sheet_line(),
                    "values": values,
                    "in_kappa": key not in excluded,
                    "sources": {s.name: str(s.path) for s in result.sources},
                }
            )
    return out


# --- the command ----------------------------------------------------------------------------


def _names(paths: Sequence[Path]) -> list[str]:
    names: list[str] = []
    for path in paths:
        name = str(path)
        while name in names:  # the same source twice stays two sources
            name += "'"
        names.append(name)
    return names


def agree_main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(
        prog="sci-agree",
        description="Agreement between scorings of the same samples (runs, sci-score "
        "folders, labelled sheets); `sci-agree export RUN --out sheet.jsonl` writes a sheet.",
    )
    parser.add_argument("sources", type=Path, nargs="+", help="run / sci-score folders, sheets")
    parser.add_argument("--out", type=Path, default=OUT, help=f"output folder ({OUT})")
    parser.add_argument("--iters", type=int, default=kappa.ITERS, help="bootstrap resamples")
    parser.add_argument("--seed", type=int, default=SEED, help="bootstrap seed")
    args = parser.parse_args(argv)
    if len(args.sources) < 2:
        parser.error("give at least two sources (folders or sheets) to compare")
    try:
        sources = [
            read_source(p, n) for p, n in zip(args.sources, _names(args.sources), strict=True)
        ]
        result = compare(sources, args.iters, args.seed)
    except (ValueError, OSError) as exc:  # AgreeError, DataError: one line naming the file
        parser.exit(1, f"sci-agree: {exc}\n")
    print(report(result, args.iters, args.seed))
    csv_path = write_csv(result, args.out / "agreement.csv")
    found = disagreements(result)
    jsonl_path = write_jsonl(args.out / "disagreements.jsonl", found)
    print(f"wrote {csv_path} and {jsonl_path} ({len(found)} item(s) on which sources differ)")


def export_main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(
        prog="sci-agree export",
        description="A blind labelling sheet of a scored run: items stratified by constraint, "
        "no score, verdict, reason or judge (label them by docs/labelling.md).",
    )
    parser.add_argument("run", type=Path, help="a run or sci-score output folder")
    parser.add_argument("--out", type=Path, required=True, help="the sheet to write (.jsonl)")
    parser.add_argument("--n", type=int, default=N, help=f"items in the sheet ({N})")
    parser.add_argument("--seed", type=int, default=SEED, help=f"sampling seed ({SEED})")
    parser.add_argument("--constraints", default="", help="only these checks: a,b,...")
    args = parser.parse_args(argv)
    if args.n < 1:
        parser.error("--n must be at least 1")
    if not args.run.is_dir():
        parser.exit(1, f"sci-agree: {args.run}: not a folder\n")
    wanted = [c.strip() for c in args.constraints.split(",") if c.strip()]
    try:
        chosen = export(args.run, args.out, args.n, args.seed, wanted)
    except (ValueError, OSError) as exc:
        parser.exit(1, f"sci-agree: {exc}\n")
    constraints = len({i.constraint for i in chosen})
    print(
        f"wrote {args.out}: {len(chosen)} item(s) over {constraints} constraint(s), seed "
        f'{args.seed}; fill each line\'s label with 1, 0 or "undecidable" (docs/labelling.md)'
    )


def main(argv: Sequence[str] | None = None) -> None:
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["export"]:
        export_main(words[1:])
    else:
        agree_main(words)


if __name__ == "__main__":
    main()
