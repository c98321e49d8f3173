"""``sci-view RUN_OR_SWEEP [--out FILE]``: one self-contained HTML page to browse every sample.

Works on any folder holding lm-eval output written with ``--log_samples``: a ``sci-eval`` run
(``<run>/<model>/results_*.json`` + ``samples_<task>_*.jsonl``), a sweep folder (one job
folder per model x task set), or stock ``lm_eval --output_path`` output. Every folder with a
results file is one *run* (one model). The page has, per task, a summary (headline metrics
with bootstrap ± from ``sci_tasks.stats``, sample counts), then every sample: prompt,
images (downsized, embedded as data URLs), response, the filtered text that was scored, the
target, and each check's verdict (pass / fail / partial / unscored), group, reason and
judge, read from each logged sample's ``record`` by its benchmark's ``checks`` hook (the page
names no benchmark). The same document answered by several runs is shown side by side.

No server and no network: CSS and JS are inline, the data is one JSON block that the
page's script reads with ``JSON.parse`` and puts on the page as text only (``textContent``),
so a response holding ``</script>`` or ``<img onerror=...>`` is shown, never run.
"""

from __future__ import annotations

import argparse
import base64
import functools
import hashlib
import io
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from sci_tasks import registry, stats
from sci_tasks.data.jsonl import DETAIL
from sci_tasks.data.locate import DataError
from sci_tasks.outputs import OUTPUT_FOLDERS, json_text, metric_keys, read_jsonl
from sci_tasks.registry import Check
from sci_tasks.report import newest_samples

OUT_NAME = "sci-view.html"
TEMPLATE = "view.jinja"
THUMB = 256  # pixels, longest side of an embedded image (shown at most 220 px wide)


def headlines() -> dict[str, tuple[str, ...]]:
    """Headline metrics of a task's summary by task-name prefix (lm-eval names, filter
    "none"), as each benchmark declares them (``sci_tasks.registry``)."""
    return {p: m for b in registry.all_benchmarks() for p, m in b.headlines.items()}


@dataclass
class Run:
    """One folder of results and samples files: one model's run (or a job of a sweep)."""

    folder: Path
    label: str
    model: str
    results: dict[str, Any] = field(default_factory=dict)  # task -> lm-eval's results dict
    n_samples: dict[str, Any] = field(default_factory=dict)
    samples: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # task -> records
    problems: list[str] = field(default_factory=list)
    judge: str | None = None  # the manifest's judge.name ("none": no judge); None: no manifest
    limit: Any = None  # lm-eval's ``limit`` of the run (its results file's config): not full


# --- reading ----------------------------------------------------------------------------------


def find_runs(root: Path) -> list[Run]:
    """Every folder under ``root`` (``root`` included) holding samples files, as a run."""
    root = Path(root)
    folders = sorted(
        {
            p.parent
            for p in root.rglob("samples_*.jsonl")
            if not OUTPUT_FOLDERS & set(p.relative_to(root).parts[:-1])
        }
    )
    runs = [read_run(root, folder) for folder in folders]
    _unique_labels(runs)
    return runs


def read_run(root: Path, folder: Path) -> Run:
    rel = folder.relative_to(root).as_posix()
    results_files = sorted(folder.glob("results_*.json"), key=lambda p: p.name)
    run = Run(folder, rel if rel != "." else folder.name, folder.name)
    for path in results_files:  # oldest first: a newer results file overrides a task
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            run.problems.append(f"{path}: unreadable results file: {exc}")
            continue
        run.model = str(data.get("model_name") or _model_of(data) or run.model)
        run.results.update(data.get("results") or {})
        run.n_samples.update(data.get("n-samples") or {})
        limit = (data.get("config") or {}).get("limit")
        if isinstance(limit, (int, float)) and not isinstance(limit, bool):
            # lm-eval writes a count as a float (2.0): shown as the user gave it
            run.limit = int(limit) if float(limit).is_integer() else limit
    config = _manifest_config(root, folder, run)
    model = config.get("model")
    # sci-eval's model.name, not the weights' path lm-eval logs
    if isinstance(model, dict) and model.get("name"):
        run.model = str(model["name"])
    if isinstance(config.get("judge"), dict):
        run.judge = str(config["judge"].get("name") or "none")
    try:
        newest = newest_samples(folder, "")
    except ValueError:  # samples here and in a deeper folder: each folder is its own run
        newest = {}
        for path in sorted(folder.glob("samples_*.jsonl"), key=lambda p: p.name):
            newest[path.stem.removeprefix("samples_").rsplit("_", 1)[0]] = path
    for task, path in sorted(newest.items()):
        if path.parent != folder:
            continue  # a deeper folder is its own run
        try:
            run.samples[task] = read_jsonl(path)
        except (OSError, DataError) as exc:
            run.samples[task] = []
            run.problems.append(f"{exc} (no sample of this file is shown)")
    return run


def _manifest_config(root: Path, folder: Path, run: Run) -> dict[str, Any]:
    """The config of the sci-eval manifest nearest above ``folder`` (a run's
    ``<run>/manifest.json``, a sweep job's ``<job>/manifest.json``), ``{}`` when none."""
    for parent in (folder, *folder.parents):
        path = parent / "manifest.json"
        if path.is_file():
            try:
                config = json.loads(path.read_text(encoding="utf-8")).get("config")
            except (OSError, ValueError, AttributeError) as exc:
                run.problems.append(f"{path}: unreadable manifest: {exc}")
                return {}
            return config if isinstance(config, dict) else {}
        if parent == root:
            break
    return {}


def _model_of(results: Mapping[str, Any]) -> str | None:
    args = (results.get("config") or {}).get("model_args") or {}
    if isinstance(args, dict):
        return args.get("model") or args.get("pretrained")
    return None


def _unique_labels(runs: list[Run]) -> None:
    """A run is labelled by its model (the jobs of one model over several task sets are one
    model on the page); by model and folder when runs of one model share a task, since then
    they are different configurations to tell apart."""
    for r in runs:
        clash = any(
            o is not r and o.model == r.model and set(o.samples) & set(r.samples) for o in runs
        )
        r.label = f"{r.model} ({r.label})" if clash else r.model


# --- what the numbers are --------------------------------------------------------------------


def is_bundled(run: Run, task: str) -> bool:
    """The task ran on the bundled samples: its ``bundled_samples`` metric, or its logged
    documents' ``data_source``."""
    if (run.results.get(task) or {}).get("bundled_samples,none") == 1.0:
        return True
    return any(
        str((r.get("doc") or {}).get("data_source", "")).startswith("bundled")
        for r in run.samples.get(task) or []
    )


def caveats(run: Run, task: str) -> list[str]:
    """What a task's numbers in ``run`` are not: benchmark data, or the whole task."""
    out = []
    if is_bundled(run, task):
        out.append("bundled samples: not benchmark numbers")
    if run.limit is not None:
        n = run.n_samples.get(task) or {}
        of = ""
        if isinstance(n, dict) and n.get("original"):
            shown = n.get("effective", len(run.samples.get(task) or []))
            of = f" ({shown} of {n['original']} samples)"
        out.append(f"limit={run.limit}{of}: NOT a full run")
    return out


def run_caveats(runs: Sequence[Run]) -> list[str]:
    """The page header's lines: per run, the tasks on bundled samples and its limit."""
    out = []
    for run in runs:
        bundled = [t for t in sorted(run.samples) if is_bundled(run, t)]
        said = []
        if bundled:
            said.append(f"bundled samples ({', '.join(bundled)}): not benchmark numbers")
        if run.limit is not None:
            said.append(f"limit={run.limit}: NOT a full run")
        if said:
            out.append(f"{run.label}: {'; '.join(said)}")
    return out


# --- one sample as the page shows it ----------------------------------------------------------


def verdict_of(score: Any) -> str:
    if score is None or (isinstance(score, float) and math.isnan(score)):
        return "unscored"
    if score >= 1.0:
        return "pass"
    return "fail" if score <= 0.0 else "partial"


def page_check(check: Check) -> dict[str, Any]:
    """A check in the page's common form (its verdict from its score)."""
    verdict = verdict_of(check.score)
    return {
        "name": check.name,
        "score": None if verdict == "unscored" else check.score,
        "verdict": verdict,
        "group": check.group or "",
        "reason": check.reason or "",
        "judge": check.judge or "",
    }


GIVEN_CHECKS = "page_checks"  # a record's own checks (Check fields), not its benchmark's hook


@functools.cache
def _checks_hook(ref: str) -> Callable[[Mapping[str, Any]], list[Check]]:
    hooked: Callable[[Mapping[str, Any]], list[Check]] = registry.hook(ref)
    return hooked


def checks_of(task: str, record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The checks of one logged sample of ``task``, in the page's common form: what its
    benchmark's ``checks`` hook reads from the sample's record (none for a task that is not
    a registered benchmark's). A hook that fails gives one unscored check saying so."""
    given = record.get(GIVEN_CHECKS)  # checks a tool wrote as they are (sci-agree's)
    if isinstance(given, list):
        return [page_check(Check(**c)) for c in given]
    detail = record.get(DETAIL)  # the per-sample record its scorer logs
    benchmark = registry.of_task(task)
    if not isinstance(detail, dict) or benchmark is None or not benchmark.checks:
        return []
    try:
        found = _checks_hook(benchmark.checks)(detail)
    except Exception as exc:  # one odd record must not cost the page
        found = [Check("checks", None, f"{benchmark.checks} failed: {type(exc).__name__}: {exc}")]
    return [page_check(c) for c in found]


def values_of(record: Mapping[str, Any], no_judge: bool = False) -> list[list[str]]:
    """(name, value) of every per-sample value worth reading: scalar metrics, and the scalar
    or short-list fields of a metric's record (SPM-Bench's parsed answer, ...). A value the
    sample has none of (NaN, null) reads "n/a"; a judge-graded one "n/a (no judge)" in a run
    without a judge."""
    out: list[list[str]] = []
    seen: set[tuple[str, str]] = set()
    graded = judge_graded() if no_judge else frozenset()  # once per record, not per value
    for metric in record.get("metrics") or []:
        value = record.get(metric)
        items: Iterable[tuple[str, Any]]
        if isinstance(value, dict):
            items = [
                (f"{metric}.{k}" if k in ("score", "value") else k, v)
                for k, v in value.items()
                if not _structured(v)  # e.g. a list of verdicts: the checks show those
            ]
        else:
            items = [(metric, value)]
        for name, v in items:
            if isinstance(v, (dict,)) or (isinstance(v, list) and len(json.dumps(v)) > 300):
                continue
            text = _text(v, metric in graded)
            if (name, text) not in seen:
                seen.add((name, text))
                out.append([name, text])
    return out


NO_VALUE = "n/a"
NO_JUDGE = "n/a (no judge)"


def judge_graded() -> frozenset[str]:  # every value an LLM judge's grade (MetricSpec.judged)
    return frozenset(m.name for b in registry.all_benchmarks() for m in b.metrics if m.judged)


def _structured(value: Any) -> bool:
    return isinstance(value, list) and any(isinstance(v, Mapping) for v in value)


def _text(value: Any, no_judge: bool = False) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return NO_JUDGE if no_judge else NO_VALUE
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def has_judge(run: Run) -> bool:
    """Whether a judge took part: the manifest's ``judge.name``, else (stock lm-eval output)
    whether any logged sample names a judge."""
    if run.judge is not None:
        return run.judge != "none"
    for task, records in run.samples.items():
        for record in records:
            detail = record.get(DETAIL)
            if not isinstance(detail, dict):
                continue
            if any(isinstance(v, dict) and v.get("judge") for v in detail.values()):
                return True  # a part of the detail names its judge (SciMIF's correctness)
            if any(c["judge"] for c in checks_of(task, record)):
                return True
    return False


def prompt_of(record: Mapping[str, Any]) -> str:
    """The prompt lm-eval sent: chat messages as ``[role]`` blocks, else the raw text."""
    args = (record.get("arguments") or {}).get("gen_args_0") or {}
    raw = args.get("arg_0", "")
    if isinstance(raw, list) and len(raw) == 1 and isinstance(raw[0], str):
        raw = raw[0]  # lm-eval logs a chat request's messages as a one-string list
    try:
        messages = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return str(raw)
    if isinstance(messages, list) and all(isinstance(m, dict) for m in messages):
        blocks = []
        for m in messages:
            content = m.get("content")
            if isinstance(content, list):  # OpenAI content parts
                content = "\n".join(
                    str(p.get("text", f"[{p.get('type')}]")) if isinstance(p, dict) else str(p)
                    for p in content
                )
            blocks.append(f"[{m.get('role', '?')}]\n{content}")
        return "\n\n".join(blocks)
    return str(raw)


def image_paths(doc: Mapping[str, Any]) -> list[str]:
    paths: list[str] = []
    for key in ("images", "image", "source_images"):
        value = doc.get(key)
        for item in [value] if isinstance(value, str) else value or []:
            if isinstance(item, str) and item not in paths:
                paths.append(item)
    return paths


def thumbnail(path: Path) -> str:
    """A downsized copy of the image (longest side ``THUMB`` pixels) as a ``data:`` URL, WebP
    (JPEG where Pillow lacks WebP): about 5 KB an image, so a page with an image on every
    sample of the full benchmark stays small enough to open fast."""
    from PIL import Image, features

    with Image.open(path) as opened:
        opened.thumbnail((THUMB, THUMB))
        im = opened.convert("RGBA") if opened.mode in ("P", "LA", "PA") else opened.copy()
    out = io.BytesIO()
    if features.check("webp"):
        im.save(out, format="WEBP", quality=75, method=2)
        mime = "image/webp"
    else:
        im.convert("RGB").save(out, format="JPEG", quality=80)
        mime = "image/jpeg"
    return f"data:{mime};base64,{base64.b64encode(out.getvalue()).decode('ascii')}"


def _first(value: Any) -> str:
    """The generated text of a ``resps`` / ``filtered_resps`` entry; anything else (e.g. the
    log-likelihoods of a multiple-choice task) as JSON, so no number stands alone."""
    inner = value
    while isinstance(inner, list) and inner:
        inner = inner[0]
    if inner is None or inner == []:
        return ""
    return inner if isinstance(inner, str) else json.dumps(value, ensure_ascii=False)


# --- the page --------------------------------------------------------------------------------


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
    """The samples as compact data for the page's script (``templates/view.jinja``).

    ``strings``: every text once; elsewhere a text is its index. ``docs``: one entry per
    document (the page's cards: task, shown id, the samples answering it). ``samples``: one
    row per logged sample, ``[run, model, doc, prompt, response, filtered (-1: the response
    as is), target, scored (0/1), images, image names, checks, values]``, a check being
    ``[name, verdict (index in VERDICTS), score, group, reason, judge]``, values an index in
    ``value_sets`` (lists of ``[name, value]``: a few dozen distinct over thousands of
    samples). ``images``: the downsized data URLs, each image once.
    """
    text = Strings()
    image_ids: dict[str, int] = {}
    image_data: list[str] = []
    models = list(dict.fromkeys(r.label for r in runs))  # the page's "model" filter
    tasks = sorted({t for r in runs for t in r.samples})
    docs: list[list[Any]] = []  # [task, shown id, sample indices] of each document
    doc_index: dict[str, int] = {}  # sample key (task and doc_hash) -> its docs entry
    samples: list[list[Any]] = []
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
                    docs.append([tasks.index(task), text(doc.get("id", record.get("doc_id"))), []])
                docs[doc_index[key]][2].append(len(samples))
                response = _first(record.get("resps"))
                filtered = _first(record.get("filtered_resps"))
                checks = [
                    [text(c["name"]), VERDICTS.index(c["verdict"]), c["score"],
                     text(c["group"]), text(c["reason"]), text(c["judge"])]
                    for c in checks_of(task, record)
                ]  # fmt: skip
                samples.append(
                    [
                        ri,
                        models.index(run.label),
                        doc_index[key],
                        text(prompt_of(record)),
                        text(response),
                        -1 if filtered == response else text(filtered),
                        text(_first(record.get("target"))),
                        int(any(m in record for m in record.get("metrics") or [])),
                        ids,
                        [text(Path(p).name) for p in paths],
                        checks,
                        value_sets.setdefault(
                            json.dumps(values_of(record, no_judge)), len(value_sets)
                        ),
                    ]
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
    for di, (task, _, members) in enumerate(data["docs"]):
        for si in members:
            answered.setdefault((task, data["samples"][si][0]), set()).add(di)
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


def write_view(root: Path, out: Path | None = None, iters: int = stats.ITERS) -> Path:
    root = Path(root).resolve()
    if root.is_file():  # sci-agree's disagreements.jsonl: just those items, a source each
        from sci_tasks.agree.view import disagreement_runs

        runs = disagreement_runs(root)
        if not runs:
            raise ValueError(f"{root}: no item on which the sources differ, nothing to show")
        out = Path(out) if out else root.with_suffix(".html")
    else:
        runs = find_runs(root)
    if not runs:
        raise ValueError(
            f"no samples_*.jsonl under {root}: run lm_eval / sci-eval with --log_samples"
        )
    out = Path(out) if out else root / OUT_NAME
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(build_page(root, runs, iters), encoding="utf-8")
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="sci-view", description=(__doc__ or "").splitlines()[0].split(": ", 1)[-1]
    )
    parser.add_argument(
        "path", type=Path,
        help="a run, sweep or lm_eval --output_path folder, or sci-agree's disagreements.jsonl",
    )  # fmt: skip
    parser.add_argument("--out", type=Path, default=None, help=f"page to write (PATH/{OUT_NAME})")
    parser.add_argument(
        "--iters", type=int, default=stats.ITERS, help="bootstrap resamples for the ± figures"
    )
    args = parser.parse_args(None if argv is None else list(argv))
    if not (args.path.is_dir() or args.path.is_file()):
        parser.error(f"{args.path} is not a folder or a disagreements.jsonl file")
    try:
        print(write_view(args.path, args.out, args.iters))
    except ValueError as exc:
        parser.exit(1, f"sci-view: {exc}\n")


if __name__ == "__main__":
    main()
