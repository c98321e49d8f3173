"""One logged sample as the page shows it: its checks in the page's common form (each
benchmark's ``checks`` hook), its per-sample values, prompt, images and texts."""

from __future__ import annotations

import base64
import functools
import io
import json
import math
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from sci_tasks import registry
from sci_tasks.data.jsonl import DETAIL
from sci_tasks.logged.runs import Run
from sci_tasks.registry import Check

THUMB = 256  # pixels, longest side of an embedded image (shown at most 220 px wide)


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
