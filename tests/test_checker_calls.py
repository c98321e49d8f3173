"""One scoring pass (issue 30): each (sample, constraint) is checked exactly once on stock
``lm_eval``, ``sci-eval`` and ``sci-score``, with a concurrent judge.

The model is llm-katan's echo backend, the judge a real loopback server at concurrency 8
that counts its requests in flight (``tests/judge_server``). Every Python process of each
command counts the calls of the registered checkers themselves (``tests/checker_calls``:
each checker wrapped, still run as registered); the calls must be, as a multiset, the
(constraint, parameters, response) of every logged sample's constraints, once each."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

from sci_tasks.benchmarks.scimif.metrics import check_inputs
from sci_tasks.metrics.constraints.registry import registered, resolve
from sci_tasks.metrics.constraints.text import strip_copied

from .commands import run_ok as run
from .judge_server import CountingJudge, counting_judge
from .judged_data import SCIMIF_PER_RECORD, scimif_release
from .servers import Katan
from .test_judge_concurrency import (
    LATENCY,
    RECORDS,
    env,
    lm_eval,
    logged,
    sci_eval_judged_8_at_a_time,
)

__all__ = ["env"]  # the fixture, shared with test_judge_concurrency

COUNTER = Path(__file__).parent / "checker_calls"  # its sitecustomize counts the calls
Call = tuple[str, str | None, str]  # constraint, parameters, response as the checker sees it


def counting(env: dict[str, str], calls: Path) -> dict[str, str]:
    """``env`` with every checker call of the command's processes appended to ``calls``."""
    path = os.pathsep.join(p for p in (str(COUNTER), env.get("PYTHONPATH")) if p)
    return {**env, "PYTHONPATH": path, "SCI_TASKS_TEST_CHECKER_CALLS": str(calls)}


def counted(calls: Path) -> Counter[Call]:
    rows = [json.loads(line) for line in calls.read_text().splitlines()]
    return Counter((r["constraint"], r["parameters"], r["response"]) for r in rows)


def expected(samples: list[dict[str, Any]]) -> Counter[Call]:
    """Each logged sample's constraints that have a checker, once each, as the checker
    sees them (the registry hands it the response minus what it copies from the question)."""
    checkers = registered()
    out: Counter[Call] = Counter()
    for sample in samples:
        (response,) = sample["filtered_resps"]
        for name, inp in check_inputs(sample["doc"], response):
            constraint = resolve(name)
            if constraint is not None and constraint.name in checkers:
                own = strip_copied(inp.response, inp.question)[0]
                out[(constraint.name, inp.parameters, own)] += 1
    return out


def concurrent(judge: CountingJudge) -> None:
    """The judge was asked every question once, more than one at a time, at most 8."""
    assert judge.stats.requests == RECORDS * SCIMIF_PER_RECORD
    assert 1 < judge.stats.max_in_flight <= 8


def test_each_sample_constraint_is_checked_once_on_lm_eval_sci_eval_and_sci_score(
    tmp_path: Path, env: dict[str, str], model: Katan
) -> None:
    data = scimif_release(tmp_path / "scimif", RECORDS)
    with counting_judge(LATENCY) as judge:
        calls = tmp_path / "lm_eval-calls.jsonl"
        meta = {"SCIMIF_DATA_DIR": str(data), "judge": judge.settings(8, tmp_path / "c1")}
        lm_eval(model, "scimif_chem", tmp_path / "run", meta, counting(env, calls))
        concurrent(judge)
        samples = logged(tmp_path / "run", "scimif_chem")
        assert len(samples) == RECORDS
        once = expected(samples)
        assert sum(once.values()) == 2 * RECORDS  # both constraints of every record checked
        assert counted(calls) == once

        judge.reset()
        calls = tmp_path / "sci-score-calls.jsonl"
        run(
            "sci-score", f"run_dir={tmp_path / 'run'}", "judge=local_api",
            f"judge.model={judge.model}", f"judge.base_url={judge.base_url}",
            "judge.structured_output=tool", "judge.concurrency=8",
            f"judge.cache_dir={tmp_path / 'c2'}", cwd=tmp_path, env=counting(env, calls),
        )  # fmt: skip
        concurrent(judge)
        assert counted(calls) == once  # the same samples, re-scored once each

        judge.reset()
        calls = tmp_path / "sci-eval-calls.jsonl"
        sci_eval_judged_8_at_a_time(model, judge, data, tmp_path / "c3", counting(env, calls))
        concurrent(judge)
        samples = logged(tmp_path / "eval", "scimif_chem")
        assert counted(calls) == expected(samples) and len(samples) == RECORDS
