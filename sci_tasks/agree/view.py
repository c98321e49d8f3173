"""``sci-view disagreements.jsonl``: the items on which sources differ, on sci-view's page.

Each source is a run of the page (labelled by its name), each item's sample a document with
the question, the reply and one check per disputed constraint, whose verdict is that
source's value (undecidable / unscored read as unscored): the sources of one document stand
side by side, and the page's filters (task, constraint, verdict, source) work as on a run;
the group says whether the item counted in kappa.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sci_tasks.agree.items import NO_VALUE, AgreeError
from sci_tasks.data.jsonl import read_objects
from sci_tasks.data.locate import DataError
from sci_tasks.logged.runs import Run
from sci_tasks.logged.samples import GIVEN_CHECKS

NEEDED = ("item_id", "task", "doc_id", "constraint", "values")


def disagreement_runs(path: Path) -> list[Run]:
    """One ``Run`` per source named in ``path`` (a ``disagreements.jsonl``)."""
    runs: dict[str, Run] = {}
    try:
        for where, _, line in read_objects(path):
            missing = [k for k in NEEDED if k not in line]
            if missing or not isinstance(line["values"], dict):
                raise AgreeError(
                    f"{where}: not a line of sci-agree's disagreements.jsonl "
                    f"(lacks {', '.join(missing) or 'a values object'})"
                )
            for source, value in line["values"].items():
                run = runs.setdefault(source, Run(path.parent, source, source, judge=source))
                _sample(run, line)[GIVEN_CHECKS].append(_check(line, source, value))
    except DataError as exc:
        raise AgreeError(str(exc)) from None
    return list(runs.values())


def _sample(run: Run, line: dict[str, Any]) -> dict[str, Any]:
    """The source's record of the item's sample (made on first use), as lm-eval logs one."""
    task, doc_id = str(line["task"]), line["doc_id"]
    records = run.samples.setdefault(task, [])
    for known in records:
        if known["doc_id"] == doc_id:
            return known
    reply = str(line.get("reply", ""))
    record: dict[str, Any] = {
        "doc_id": doc_id,
        "doc_hash": f"{task}/{doc_id}",  # the same document across sources: side by side
        "doc": {"id": doc_id},
        "arguments": {"gen_args_0": {"arg_0": str(line.get("question", ""))}},
        "resps": [[reply]],
        "filtered_resps": [reply],
        "target": "",
        "metrics": ["source"],  # a value the page shows; the sample counts as scored
        "source": run.label,
        GIVEN_CHECKS: [],
    }
    records.append(record)
    return record


def _check(line: dict[str, Any], source: str, value: Any) -> dict[str, Any]:
    requirement = line.get("requirement") or {}
    said = ", ".join(f"{k}: {v}" for k, v in requirement.items() if v not in (None, ""))
    unscored = value in NO_VALUE or not isinstance(value, (int, float))
    return {
        "name": str(line["constraint"]),
        "score": None if unscored else float(value),
        "reason": f"{source}: {value}; item {line['item_id']}"
        + (f"; requirement: {said}" if said else ""),
        "group": "in kappa" if line.get("in_kappa") else "left out of kappa",
        "judge": source,
    }
