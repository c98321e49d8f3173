"""The page: each task's summary (headline metrics with bootstrap ±), the samples as
named-field data for its script, rendered through ``templates/view.jinja``."""

from __future__ import annotations

import base64
import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from sci_tasks import registry, stats
from sci_tasks.logged.runs import Run, caveats, run_caveats
from sci_tasks.logged.samples import (
    NO_JUDGE,
    _first,
    _text,
    checks_of,
    has_judge,
    image_paths,
    judge_graded,
    prompt_of,
    thumbnail,
    values_of,
)
from sci_tasks.outputs import json_text, metric_keys

TEMPLATE = "view.jinja"


def headlines() -> dict[str, tuple[str, ...]]:
    """Headline metrics of a task's summary by task-name prefix (lm-eval names, filter
    "none"), as each benchmark declares them (``sci_tasks.registry``)."""
    return {p: m for b in registry.all_benchmarks() for p, m in b.headlines.items()}


def summary_rows(run: Run, task: str, iters: int) -> list[list[str]]:
    """(metric, value ± stderr, how) for the task's headline metrics in ``run``."""
    results = run.results.get(task) or {}
    records = run.samples.get(task) or []
    declared = headlines()
    prefix = next((p for p in declared if task.startswith(p)), None)
    names = list(declared[prefix]) if prefix else _numeric_metrics(results)
    no_judge = not has_judge(run)
    rows = []
    for name in names:
        key = f"{name},none"
        if stats.has_parts(name) and any(name in r for r in records):
            est = stats.metric_estimate(name, records, iters=iters)
            unjudged = no_judge and name in judge_graded() and math.isnan(est.value)
            text = NO_JUDGE if unjudged else stats.fmt(est)
            rows.append([name, text, f"bootstrap over {est.n} samples"])
        elif key in results or name in results:
            value = results.get(key, results.get(name))
            err = results.get(f"{name}_stderr,none")
            if isinstance(value, float) and not math.isnan(value):
                stderr = err if isinstance(err, (int, float)) else math.nan
                text = stats.fmt(stats.Estimate(value, stderr, 0))
            else:
                text = _text(value, no_judge and name in judge_graded())
            rows.append([name, text, "lm-eval" if isinstance(err, (int, float)) else "results"])
    return rows


def _numeric_metrics(results: Mapping[str, Any]) -> list[str]:
    numeric = (k for k in metric_keys(results) if isinstance(results[k], (int, float)))
    return list(dict.fromkeys(k.partition(",")[0] for k in numeric))


VERDICTS = ("pass", "fail", "partial", "unscored")  # a check's verdict, by its index


class Strings:
    """Every text of the page once: the page refers to a string by its index (a prompt is
    the same for every model, a check's name, group and reason repeat over thousands of
    samples)."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def __call__(self, text: Any) -> int:
        text = "" if text is None else str(text)
        found = self.index.get(text)
        if found is None:
            found = self.index[text] = len(self.index)
        return found

    def table(self) -> list[str]:
        return list(self.index)  # insertion order is index order


def page_data(root: Path, runs: Sequence[Run], problems: list[str]) -> dict[str, Any]:
    """The samples as compact data for the page's script (``templates/view.jinja``), each
    entry an object with named fields.

    ``strings``: every text once; elsewhere a text is its index. ``docs``: one entry per
    document (the page's cards): ``{task, id, samples}`` (the samples answering it).
    ``samples``: one per logged sample, ``{run, model, doc, prompt, response, filtered (-1:
    the response as is), target, scored (0/1), images, image_names, checks, values}``, a
    check being ``{name, verdict (index in verdicts), score, group, reason, judge}``,
    ``values`` an index in ``value_sets`` (lists of ``[name, value]``: a few dozen distinct
    over thousands of samples). ``images``: the downsized data URLs, each image once.
    """
    text = Strings()
    image_ids: dict[str, int] = {}
    image_data: list[str] = []
    models = list(dict.fromkeys(r.label for r in runs))  # the page's "model" filter
    tasks = sorted({t for r in runs for t in r.samples})
    docs: list[dict[str, Any]] = []  # the cards
    doc_index: dict[str, int] = {}  # sample key (task and doc_hash) -> its docs entry
    samples: list[dict[str, Any]] = []
    value_sets: dict[str, int] = {}  # a sample's values (as JSON) -> index
    for ri, run in enumerate(runs):
        no_judge = not has_judge(run)
        for task, records in run.samples.items():
            for record in records:
                doc = record.get("doc") or {}
                ids = []
                paths = image_paths(doc)
                for raw in paths:
                    if raw not in image_ids:
                        path = Path(raw) if Path(raw).is_absolute() else run.folder / raw
                        image_ids[raw] = len(image_data)
                        try:
                            image_data.append(thumbnail(path))
                        except (OSError, ValueError) as exc:
                            image_data.append("")
                            problems.append(f"image {raw} (task {task}): {exc}")
                    ids.append(image_ids[raw])
                key = "|".join(stats.sample_key(task, record))
                if key not in doc_index:
                    doc_index[key] = len(docs)
                    shown_id = text(doc.get("id", record.get("doc_id")))
                    docs.append({"task": tasks.index(task), "id": shown_id, "samples": []})
                docs[doc_index[key]]["samples"].append(len(samples))
                response = _first(record.get("resps"))
                filtered = _first(record.get("filtered_resps"))
                checks = [
                    {
                        "name": text(c["name"]),
                        "verdict": VERDICTS.index(c["verdict"]),
                        "score": c["score"],
                        "group": text(c["group"]),
                        "reason": text(c["reason"]),
                        "judge": text(c["judge"]),
                    }
                    for c in checks_of(task, record)
                ]
                values = json.dumps(values_of(record, no_judge))
                samples.append(
                    {
                        "run": ri,
                        "model": models.index(run.label),
                        "doc": doc_index[key],
                        "prompt": text(prompt_of(record)),
                        "response": text(response),
                        "filtered": -1 if filtered == response else text(filtered),
                        "target": text(_first(record.get("target"))),
                        "scored": int(any(m in record for m in record.get("metrics") or [])),
                        "images": ids,
                        "image_names": [text(Path(p).name) for p in paths],
                        "checks": checks,
                        "values": value_sets.setdefault(values, len(value_sets)),
                    }
                )
    return {
        "runs": [{"label": r.label, "folder": _rel(r.folder, root)} for r in runs],
        "models": models,
        "tasks": tasks,
        "verdicts": list(VERDICTS),
        "strings": text.table(),
        "docs": docs,
        "samples": samples,
        "value_sets": [json.loads(v) for v in value_sets],
        "images": image_data,
    }


def unpaired_runs(data: Mapping[str, Any]) -> dict[str, list[str]]:
    """Per task, a sentence for each two runs that both answered it but share no document
    (the same record, ``stats.sample_key``): nothing of theirs is side by side."""
    answered: dict[tuple[int, int], set[int]] = {}  # (task, run) -> its documents
    for di, doc in enumerate(data["docs"]):
        for si in doc["samples"]:
            answered.setdefault((doc["task"], data["samples"][si]["run"]), set()).add(di)
    out: dict[str, list[str]] = {}
    for (task, a), docs_a in sorted(answered.items()):
        for (other_task, b), docs_b in sorted(answered.items()):
            if other_task == task and a < b and not docs_a & docs_b:
                labels = [data["runs"][i]["label"] for i in (a, b)]
                out.setdefault(data["tasks"][task], []).append(
                    f"{labels[0]} and {labels[1]} share no document of this task "
                    "(other records, or the same ones with other contents): no sample of "
                    "theirs is side by side, and no paired comparison is possible."
                )
    return out


def build_page(root: Path, runs: Sequence[Run], iters: int = stats.ITERS) -> str:
    problems = [p for r in runs for p in r.problems]
    data = page_data(root, runs, problems)
    unpaired = unpaired_runs(data)
    summaries = []
    for task in data["tasks"]:
        rows = []
        for run in runs:
            if task in run.samples:
                n = run.n_samples.get(task) or {}
                count = f"{len(run.samples[task])}"
                if isinstance(n, dict) and n.get("original"):
                    count += f" of {n['original']}"
                cells = {name: (text, how) for name, text, how in summary_rows(run, task, iters)}
                said = "; ".join(caveats(run, task))
                rows.append({"run": run.label, "n": count, "cells": cells, "caveats": said})
        columns = list(dict.fromkeys(name for row in rows for name in row["cells"]))
        summaries.append(
            {"task": task, "alias": _alias(runs, task), "columns": columns, "rows": rows,
             "unpaired": unpaired.get(task, []), "caveats": any(r["caveats"] for r in rows)}
        )  # fmt: skip
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    env.filters["csp_hash"] = csp_hash
    source = (files("sci_tasks.templates") / TEMPLATE).read_text(encoding="utf-8")
    return env.from_string(source).render(
        title=f"sci-view: {root.name}",
        root=str(root),
        runs=runs,
        caveats=run_caveats(runs),
        summaries=summaries,
        problems=problems,
        iters=iters,
        page_size=page_size(len(data["models"])),
        data_json=script_json(data),
    )


PAGE_SIZE = 20  # documents (cards) per page: the page builds only these
PANELS = 60  # samples a page builds at most by default: fewer documents with many models


def page_size(models: int) -> int:
    """Documents per page by default: 20, fewer with more than 3 models side by side."""
    return max(5, min(PAGE_SIZE, PANELS // max(1, models)))


def csp_hash(script: str) -> Markup:
    """The CSP source that allows exactly this inline script (``'sha256-...'``)."""
    digest = hashlib.sha256(str(script).encode("utf-8")).digest()
    return Markup(f"'sha256-{base64.b64encode(digest).decode('ascii')}'")


def script_json(data: Any) -> Markup:
    """JSON safe inside ``<script type="application/json">``: ``<``, ``>``, ``&`` and the
    line separators as ``\\u`` escapes, so no text can close the element."""
    text = json_text(data, indent=None, compact=True)
    for char, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                      ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):  # fmt: skip
        text = text.replace(char, esc)
    return Markup(text)


def _alias(runs: Sequence[Run], task: str) -> str:
    for r in runs:
        alias = (r.results.get(task) or {}).get("alias")
        if alias:
            return str(alias).strip()
    return task


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix() or "."
    except ValueError:
        return str(path)
