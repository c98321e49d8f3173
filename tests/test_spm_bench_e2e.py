"""SPM-Bench end to end: stock ``lm_eval`` with ``local-chat-completions`` against a real
llm-katan echo server. The echo reply repeats the user message and puts one
``[image:image/png]`` marker for every image part it received, so the logged replies show
that each question's images reached the server; the report is then built from the run."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import sci_tasks
from sci_tasks.benchmarks.spm_bench.metrics import count_tokens
from sci_tasks.benchmarks.spm_bench.report import load_records, write_report

from .commands import run_ok
from .helpers import bundled_lines
from .servers import KATAN_KEY, katan

METRICS = ("em", "spc", "sip_f1", "f1", "delta", "ece", "output_tokens", "unparsed_rate",
           "no_confidence_rate", "bundled_samples")  # fmt: skip
TECHNIQUE_TASKS = ("spm_bench_stm", "spm_bench_afm", "spm_bench_sem", "spm_bench_tem")
MARKER = "[image:image/png]"
# the bundled questions, counted from the sample files
QUESTIONS = [json.loads(line) for line in bundled_lines("spm_bench")]
TOPOLOGY = [q for q in QUESTIONS if q["field"] == "Topology"]


def samples(out: Path, task: str) -> list[dict[str, Any]]:
    (path,) = out.rglob(f"samples_{task}_*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_lm_eval_sends_every_image_and_reports_every_metric(tmp_path: Path) -> None:
    out = tmp_path / "out"
    env = {
        **os.environ,
        "OPENAI_API_KEY": KATAN_KEY,
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
    }
    for key in ("SCI_TASKS_DATA_DIR", "SPM_BENCH_DATA_DIR"):
        env.pop(key, None)  # the bundled samples
    with katan(tmp_path) as server:
        run_ok(
            "lm_eval", "--model", "local-chat-completions",
            "--model_args", f"model={server.model},base_url={server.chat_url},max_images=4,"
            "num_concurrent=1,max_retries=1",
            "--apply_chat_template", "--tasks", "spm_bench,spm_bench_topology",
            "--include_path", sci_tasks.include_path(),
            "--metadata", json.dumps({"sip_lambda": 0.5}),
            "--log_samples", "--output_path", str(out),
            cwd=tmp_path, env=env,
        )  # fmt: skip
        # the group's questions, then the topology task's again
        assert server.requests_received() == len(QUESTIONS) + len(TOPOLOGY)

    (results_file,) = out.rglob("results_*.json")
    results = json.loads(results_file.read_text())["results"]
    for task in (*TECHNIQUE_TASKS, "spm_bench_topology", "spm_bench"):
        for metric in METRICS:
            assert f"{metric},none" in results[task], (task, metric)
    assert results["spm_bench"]["bundled_samples,none"] == 1.0

    multi_image = 0
    for task in (*TECHNIQUE_TASKS, "spm_bench_topology"):
        rows = samples(out, task)
        technique = task.removeprefix("spm_bench_").upper()
        wanted = (
            TOPOLOGY
            if task == "spm_bench_topology"
            else [q for q in QUESTIONS if q["technique"] == technique]
        )
        assert len(rows) == len(wanted)
        for row in rows:
            doc, reply = row["doc"], row["resps"][0][0]
            # one marker per image of the question: the images arrived in the request
            assert reply.count(MARKER) == len(doc["images"]) >= 1, reply[:300]
            assert doc["question"] in reply and f"A. {doc['options'][0]}" in reply
            multi_image += len(doc["images"]) > 1
            # the echo repeats the prompt's answer template, which must not count as an answer
            record = row["record"]
            assert row["delta"] == {"spc": record["spc"], "sip_f1": record["sip_f1"]}
            assert not record["parsed"] and record["prediction"] == []
            assert record["parse_note"].startswith("last answer line unreadable: '<the labels")
            assert (record["sip_lambda"], record["sip_gamma"]) == (0.5, 6.0)  # from --metadata
            assert row["output_tokens"] == count_tokens(row["filtered_resps"][0])
    # every multi-image question once in its technique task, and again if it is a topology one
    assert multi_image == sum(len(q["images"]) > 1 for q in QUESTIONS + TOPOLOGY)

    stm = results["spm_bench_stm"]
    assert stm["unparsed_rate,none"] == 1.0 and stm["em,none"] == 0.0 and stm["sip_f1,none"] == 0.0
    assert math.isnan(stm["ece,none"])  # no confidence stated: ECE undefined, not 0
    assert stm["no_confidence_rate,none"] == 1.0
    tokens = [r["output_tokens"] for r in samples(out, "spm_bench_stm")]
    assert stm["output_tokens,none"] == sum(tokens) / len(tokens)

    # the report reads the same run: each question once although topology ran twice
    records, files = load_records(out)
    assert len(records) == len(QUESTIONS) and len(files) == 5
    paths = write_report(out, tmp_path / "report")
    assert all(p.is_file() and p.stat().st_size > 0 for p in paths)
    md = paths[0].read_text()
    assert "| **all** | **16** | **0.000** |" in md
