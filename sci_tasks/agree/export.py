"""The blind labelling sheet: ``n`` items of a scored folder, stratified by constraint.

Stratified as a per-constraint kappa needs: the items of each constraint are shuffled
(seeded) and taken in turn, one constraint after another, until ``n`` are taken, so every
constraint gets as many items as ``n`` allows and a rare one all of its own. The sheet's
order is shuffled too (a labeller should not see a constraint's items in a block). A line
holds what docs/labelling.md gives a labeller and an empty ``label``; never a score,
verdict, reason or judge.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from pathlib import Path

from sci_tasks.agree.items import AgreeError, Item, read_folder
from sci_tasks.outputs import write_jsonl

N = 200
SEED = 1


def stratified(items: Iterable[Item], n: int, seed: int) -> list[Item]:
    """``n`` of ``items`` (all when fewer), balanced over constraints, in a seeded order."""
    rng = random.Random(seed)
    by_constraint: dict[str, list[Item]] = {}
    for item in sorted(items, key=lambda i: i.item_id):  # the same draw whatever the read order
        by_constraint.setdefault(item.constraint, []).append(item)
    queues = []
    for name in sorted(by_constraint):
        queue = by_constraint[name]
        rng.shuffle(queue)
        queues.append(queue)
    chosen: list[Item] = []
    while len(chosen) < n and any(queues):
        for queue in queues:
            if queue and len(chosen) < n:
                chosen.append(queue.pop())
    rng.shuffle(chosen)
    return chosen


def export(
    run: Path, out: Path, n: int = N, seed: int = SEED, constraints: Sequence[str] = ()
) -> list[Item]:
    """Write the sheet of ``run`` to ``out``; returns its items."""
    items = list(read_folder(run, str(run)).items.values())
    if constraints:
        present = {i.constraint for i in items}
        unknown = sorted(set(constraints) - present)
        if unknown:
            raise AgreeError(
                f"{run}: no check named {', '.join(unknown)} in its samples; it has "
                f"{', '.join(sorted(present))}"
            )
        items = [i for i in items if i.constraint in constraints]
    chosen = stratified(items, n, seed)
    write_jsonl(out, [{**item.sheet_line(), "label": None} for item in chosen])
    return chosen
