"""Cascade questions (issue 29) are asked as samples are scored in one pass, concurrently
within the judge's concurrency, with the verdicts of a one-at-a-time run. A real
loopback server (a stdlib scripted server) counts what it sees; nothing is timed."""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path
from typing import Any

from llm_katan.providers.base import generate_dummy_args

from .commands import run_ok
from .misbehaving import Reply, completion, scripted_server
from .test_judge_roles import env, method_records, model_reply, samples_of

__all__ = ["env"]  # the fixture, shared with test_judge_roles

RECORDS = 8


class CascadeJudge:
    """Replies "used" to the cascade question of an odd record, "not used" to an even one
    (the rule's extraction gets a span that is not in the response), after a short wait so
    that concurrent questions overlap; counts the cascade questions in flight."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.in_flight = self.max_in_flight = 0

    def __call__(self, payload: dict[str, Any]) -> Reply:
        if "response_format" in payload:
            schema = payload["response_format"]["json_schema"]["schema"]
            return 200, "application/json", completion(json.dumps(generate_dummy_args(schema)))
        with self.lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            time.sleep(0.1)  # long enough that eight workers overlap; nothing is timed
            prompt = payload["messages"][-1]["content"]
            number = int(re.search(r"enthalpy number (\d+) ", prompt)[1])  # type: ignore[index]
            return 200, "application/json", completion("used" if number % 2 else "not used")
        finally:
            with self.lock:
                self.in_flight -= 1


def test_cascade_questions_are_asked_concurrently_with_the_sequential_verdicts(
    tmp_path: Path, env: dict[str, str]
) -> None:
    data = method_records(tmp_path / "scimif", RECORDS)
    seen: dict[int, tuple[int, int, int]] = {}
    with scripted_server(model_reply) as model:
        for concurrency in (1, 8):
            script = CascadeJudge()
            with scripted_server(script) as judge:
                run_ok(
                    "sci-eval", "model=local_api", "model.args.model=model-under-test",
                    f"model.args.base_url={model.chat_url}", "tasks=scimif_chem",
                    f"data.SCIMIF_DATA_DIR={data}", f"hydra.run.dir=run{concurrency}",
                    "use_cache=false", "judge=local_api", "judge.model=cascade-judge",
                    f"judge.base_url={judge.base_url}", f"judge.concurrency={concurrency}",
                    f"judge.cache_dir={tmp_path / f'jc{concurrency}'}",
                    "+cascade.method_constraint=rule_then_judge", cwd=tmp_path, env=env,
                )  # fmt: skip
                cascade = [r for r in judge.requests if "response_format" not in r]
                seen[concurrency] = (len(judge.requests), len(cascade), script.max_in_flight)
    # the same questions, each asked once: a cascade question a record, and one extraction
    # (every record has the same response, so the rule's extraction question is the same)
    assert seen[1][:2] == seen[8][:2] == (RECORDS + 1, RECORDS)
    assert seen[1][2] == 1  # one at a time
    assert 1 < seen[8][2] <= 8  # samples scored at once, within judge.concurrency
    one, eight = (
        [s["record"]["constraints"] for s in samples_of(tmp_path / f"run{c}", "scimif_chem")]
        for c in (1, 8)
    )
    assert one == eight  # verdicts, reasons and provenance alike
    assert [log[0]["score"] for log in one] == [1.0, 0.0] * (RECORDS // 2)
    assert {log[0]["decided_by"] for log in one} == {"judge"}
