"""Stock ``lm_eval`` against a scripted loopback model whose replies carry reasoning: the
samples log's ``filtered_resps`` is the normalised reply (``metrics.reply.NormaliseReply``)
and that is what was scored, for all three benchmarks; results hold numbers only, and the
per-sample detail is in each sample's ``record``."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import sci_tasks
from sci_tasks.metrics.reply import normalise_reply

from .commands import run_ok
from .misbehaving import Reply, completion, scripted_server

KIND = {"scimif_geo": "scimif", "spm_bench_stm": "spm",
        "scigen_verify_instruction_following": "verify"}  # fmt: skip
TASKS = tuple(KIND)
LIMIT = 2

# Each reply: a closed reasoning block, the answer, then a second <think> the reply was cut
# off in. Inside the reasoning sits a different answer; read raw, the reply would be
# scored differently (SPM: the last answer line C; SciGen-Verify: conflicting answers).
REPLIES = {
    "spm": "<think>Terraces suggest Answer: A</think>\nAnswer: B\nConfidence: 0.8\n"
    "<think>On second thought Answer: C",
    "verify": "<think><answer>true</answer></think><answer>false</answer>"
    "<explanation>N points down.</explanation><edit>Point N up.</edit>"
    "<think><answer>true</answer> after all",
    "scimif": "<think>scratch 1.2345</think>THE ANSWER IS 4.25.\n<think>maybe 4.2",
}
NORMALISED = {
    "spm": "Answer: B\nConfidence: 0.8",
    "verify": "<answer>false</answer><explanation>N points down.</explanation>"
    "<edit>Point N up.</edit>",
    "scimif": "THE ANSWER IS 4.25.",
}
# lm-eval's own marker for a stderr it cannot compute for a custom aggregation
NO_STDERR = "N/A"
# aggregations lm-eval computes a stderr for (mean, nanmean): these must get a number
WITH_STDERR = {
    "scimif_geo": ("csr", "isr", "csr_unscored_as_fail", "isr_unscored_as_fail"),
    "spm_bench_stm": ("em", "spc", "sip_f1", "f1", "output_tokens", "unparsed_rate"),
    "scigen_verify_instruction_following": ("acc_a", "unparsed_rate"),
}


def kind_of(payload: dict[str, Any]) -> str:
    prompt = json.dumps(payload["messages"])
    if "<explanation>" in prompt:
        return "verify"
    return "spm" if "Confidence" in prompt else "scimif"


def answer(payload: dict[str, Any]) -> Reply:
    return 200, "application/json", completion(REPLIES[kind_of(payload)])


def samples(out: Path, task: str) -> list[dict[str, Any]]:
    (path,) = out.rglob(f"samples_{task}_*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_filtered_resps_are_what_was_scored_and_results_are_numbers(tmp_path: Path) -> None:
    out = tmp_path / "out"
    env = {**os.environ, "OPENAI_API_KEY": "sk-loopback", "HF_HUB_OFFLINE": "1",
           "HF_DATASETS_OFFLINE": "1", "SCI_TASKS_CACHE": str(tmp_path / "cache")}  # fmt: skip
    for key in [k for k in env if k.endswith("_DATA_DIR") or k.startswith("SCI_TASKS_JUDGE")]:
        env.pop(key)  # the bundled samples, no judge
    with scripted_server(answer) as server:
        run_ok(
            "lm_eval", "--model", "local-chat-completions",
            "--model_args", f"model=scripted,base_url={server.chat_url},max_images=4,"
            "num_concurrent=1,max_retries=1",
            "--apply_chat_template", "--tasks", ",".join(TASKS), "--limit", str(LIMIT),
            "--include_path", sci_tasks.include_path(),
            "--log_samples", "--output_path", str(out),
            cwd=tmp_path, env=env,
        )  # fmt: skip
        assert len(server.requests) == LIMIT * len(TASKS)

    for task in TASKS:
        rows = samples(out, task)
        assert len(rows) == LIMIT
        for row in rows:
            raw, (scored,) = row["resps"][0][0], row["filtered_resps"]
            kind = KIND[task]
            assert raw == REPLIES[kind] and scored == NORMALISED[kind] == normalise_reply(raw)
    spm = [row["record"] for row in samples(out, "spm_bench_stm")]
    assert all(r["prediction"] == ["B"] and r["confidence"] == 0.8 for r in spm)
    assert all(r["output_tokens"] == 8 for r in spm)  # Answer : B Confidence : 0 . 8
    verify = [row["record"] for row in samples(out, "scigen_verify_instruction_following")]
    assert all(r["judgement"] is False and r["edit"] == "Point N up." for r in verify)
    for row in samples(out, "scimif_geo"):
        names = [i["instruction_name"] for i in row["doc"]["instruction_list"]]
        assert [v["name"] for v in row["record"]["constraints"]] == names
        assert set(row["drfr"]) == {"satisfied", "scored"}  # only what DRFR needs

    results = json.loads(next(out.rglob("results_*.json")).read_text())["results"]
    for task in TASKS:
        values = results[task]
        for key, value in values.items():
            if (
                "," not in key
            ):  # lm-eval's labels (name, alias): every metric is "<metric>,<filter>"
                continue
            if "_stderr," in key and value == NO_STDERR:
                assert key.split("_stderr,")[0] not in WITH_STDERR[task], key
                continue
            assert value is None or isinstance(value, (int, float)), (task, key, value)
        for metric in WITH_STDERR[task]:
            stderr = values[f"{metric}_stderr,none"]
            assert isinstance(stderr, float) and not math.isnan(stderr), (task, metric, stderr)
        assert values["record,none"] == LIMIT
    assert isinstance(results["scimif_geo"]["unknown_constraints,none"], float)


def test_every_task_normalises_after_take_first_and_nothing_else() -> None:
    """The filter chain of every one of our tasks, as lm-eval builds it from the YAMLs: pure
    filters only (scoring, judge calls included, is the task's, ``sci_tasks.scoring``)."""
    from lm_eval.tasks import TaskManager

    from sci_tasks.metrics.reply import NormaliseReply

    root = sci_tasks.include_path()
    manager = TaskManager(include_path=root)
    ours = [
        name
        for name, entry in manager.task_index.items()
        # PY_TASK: a YAML naming its ``class:`` (ours all do: sci_tasks.task.SciTask)
        if str(entry.yaml_path).startswith(root) and entry.kind.name in ("TASK", "PY_TASK")
    ]
    assert len(ours) >= 40  # 22 SciMIF task types, disciplines, splits, categories, rubric
    tasks = manager.load(ours)["tasks"]
    assert sorted(tasks) == sorted(ours)
    for name, task in tasks.items():
        (chain,) = task.config.filter_list
        steps = [step["function"] for step in chain["filter"]]
        assert chain["name"] == "none" and steps == ["take_first", NormaliseReply], name


def test_a_reply_with_a_lone_surrogate_is_made_safe_before_the_filters_and_logged_so() -> None:
    """The task (SciTask) gives each instance new response lists with U+FFFD for a lone
    surrogate before lm-eval's filters run: what lm-eval logs as ``resps`` can be written,
    and the scored text is the safe one. Ordinary replies keep their very objects."""
    from sci_tasks.task import SciTask

    task = sci_tasks.task_manager().load(["scimif_chem"])["tasks"]["scimif_chem"]
    assert isinstance(task, SciTask)
    task.build_all_requests(limit=2, rank=0, world_size=1)
    bad, good = task.instances[:2]
    bad.resps, good.resps = ["Answer: 42 \ud800"], ["fine"]
    original_bad, original_good = bad.resps, good.resps
    task.apply_filters()
    assert bad.resps == ["Answer: 42 \ufffd"] and bad.resps is not original_bad
    assert original_bad == ["Answer: 42 \ud800"]  # the input list itself left as it was
    assert good.resps is original_good and good.resps[0] is original_good[0]
    assert bad.filtered_resps["none"] == "Answer: 42 \ufffd"
    assert good.filtered_resps["none"] == "fine"
