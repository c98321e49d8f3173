"""Reading and writing what the leaderboard tests (test_leaderboard*.py) compare: its
CSV cells against results values, and hand-built job folders of a sweep (a manifest and
an lm-eval results file each)."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Any

import pytest

from sci_tasks import leaderboard


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def same(cell: str, value: Any) -> bool:
    """A leaderboard cell equals a results value exactly; no value is an empty cell."""
    if isinstance(value, float) and math.isnan(value):
        return cell == ""
    return cell != "" and float(cell) == value


def run_leaderboard(sweep: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    leaderboard.main([str(sweep)])
    out = sweep / "leaderboard"
    return (out / "leaderboard.md").read_text(encoding="utf-8"), capsys.readouterr().out


def task_values(sample_len: int, **metrics: float) -> dict[str, Any]:
    out: dict[str, Any] = {"alias": "x", "sample_len": sample_len}
    for key, value in metrics.items():
        out[f"{key},none"] = value
        out[f"{key}_stderr,none"] = "N/A"
    return out


def make_job(
    sweep: Path,
    name: str,
    model: str,
    stamp: str,
    results: dict[str, Any],
    subtasks: dict[str, list[str]] | None = None,
    status: str = "done",
    config: dict[str, Any] | None = None,  # more of the job's config (model settings, limit)
) -> Path:
    folder = sweep / name
    (folder / model).mkdir(parents=True)
    more = dict(config or {})
    manifest = {
        "status": status,
        "overrides": [],
        "config": {
            **more,
            "model": {"name": model, **more.get("model", {})},
            "tasks": {"name": name.rsplit("__", 2)[1]},
        },
        "results": results,
    }
    (folder / "manifest.json").write_text(json.dumps(manifest))
    body = {"results": results, "group_subtasks": subtasks or {}}
    (folder / model / f"results_{stamp}.json").write_text(json.dumps(body))
    return folder
