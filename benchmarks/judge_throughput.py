"""Judge concurrency on every path: stock ``lm_eval``, ``sci-eval`` and ``sci-score``, for
SciMIF, SciGen-Verify and SciGen-Rubric, at ``judge.concurrency`` 1 and 8.

The model is llm-katan's echo backend (cheap and deterministic: it repeats the prompt, so
each reply carries what the record says) behind lm-eval's ``local-chat-completions``; the
judge is a loopback OpenAI-compatible server answering every request after 200 ms
(``tests/judge_server.py``), which also records when the first judge request arrived and
the last reply left. Each benchmark's records ask a known number of distinct judge
questions (``tests/judged_data.py``, about 64 per run). Every run is a fresh process with a
fresh judge cache. Printed per path and benchmark: the judge phase (first request to last
reply, seconds) and the whole process's wall time at concurrency 1 and 8, and the speed-up
of the judge phase (target: at least 6x). ``sci-score`` re-scores a ``--predict_only``
run of the same records.

    python benchmarks/judge_throughput.py [--latency-ms 200] [--concurrency 8]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.*

import sci_tasks
from tests.judge_server import counting_judge
from tests.judged_data import (
    RUBRIC_PER_RECORD,
    SCIMIF_PER_RECORD,
    VERIFY_PER_RECORD,
    scigen_folder,
    scimif_release,
)
from tests.servers import KATAN_KEY, Katan, katan

# benchmark -> (task, data setting, records, judge questions per record)
BENCHMARKS = {
    "SciMIF": ("scimif_chem", "SCIMIF_DATA_DIR", 22, SCIMIF_PER_RECORD),
    "SciGen-Verify": (
        "scigen_verify_instruction_following",
        "SCIGEN_VERIFY_DATA_DIR",
        32,
        VERIFY_PER_RECORD,
    ),
    "SciGen-Rubric": ("scigen_rubric", "SCIGEN_VERIFY_DATA_DIR", 64, RUBRIC_PER_RECORD),
}
PATHS = ("lm_eval", "sci-eval", "sci-score")


def script(name: str) -> str:
    return str(Path(sys.executable).parent / name)


def command(
    path: str,
    model: Katan,
    task: str,
    data: dict[str, str],
    judge: dict[str, Any] | None,
    out: Path,
    predict_only: Path | None = None,
) -> list[str]:
    if path == "lm_eval":
        metadata = {**data, **({"judge": judge} if judge else {})}
        return [
            script("lm_eval"), "--model", "local-chat-completions",
            "--model_args", f"model={model.model},base_url={model.chat_url},max_images=2,"
            "num_concurrent=8,max_retries=1,tokenized_requests=False",
            "--tasks", task, "--include_path", sci_tasks.include_path(),
            "--apply_chat_template", "--log_samples", "--output_path", str(out),
            "--metadata", json.dumps(metadata),
            *(["--predict_only"] if judge is None else []),
        ]  # fmt: skip
    judge_overrides = [f"judge.{k}={v}" for k, v in (judge or {}).items()]
    if path == "sci-eval":
        return [
            script("sci-eval"), "model=local_api", f"model.args.model={model.model}",
            f"model.args.base_url={model.chat_url}", "model.args.num_concurrent=8",
            f"tasks.names=[{task}]", *[f"data.{k}={v}" for k, v in data.items()],
            f"hydra.run.dir={out}", "use_cache=false", "judge=local_api", *judge_overrides,
        ]  # fmt: skip
    assert predict_only is not None
    return [
        script("sci-score"), f"run_dir={predict_only}", "judge=local_api", *judge_overrides,
        f"judge.name={out.name}", f"hydra.run.dir={out}",
    ]  # fmt: skip


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"{Path(cmd[0]).name} failed:\n{out.stderr[-3000:]}")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--paths", default=",".join(PATHS))
    parser.add_argument("--benchmarks", default=",".join(BENCHMARKS))
    args = parser.parse_args()
    high = args.concurrency
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("SCI_TASKS_JUDGE_")},
            "OPENAI_API_KEY": KATAN_KEY,
            "SCI_TASKS_JUDGE_API_KEY": "bench-key",
            "SCI_TASKS_CACHE": str(tmp / "cache"),
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
        }
        scimif = scimif_release(tmp / "scimif", BENCHMARKS["SciMIF"][2])
        n_verify, n_rubric = BENCHMARKS["SciGen-Verify"][2], BENCHMARKS["SciGen-Rubric"][2]
        scigen = scigen_folder(tmp / "scigen", n_verify, n_rubric)
        folders = {"SCIMIF_DATA_DIR": str(scimif), "SCIGEN_VERIFY_DATA_DIR": str(scigen)}
        rows = []
        with (
            katan(tmp, "--max-concurrent", "8") as model,
            counting_judge(args.latency_ms / 1000) as judge,
        ):
            for bench in args.benchmarks.split(","):
                task, setting, records, per_record = BENCHMARKS[bench]
                data = {setting: folders[setting]}
                generated = tmp / f"{task}-generated"  # for sci-score: outputs without a judge
                if "sci-score" in args.paths:
                    timed(command("lm_eval", model, task, data, None, generated), tmp, env)
                for path in args.paths.split(","):
                    figures = {}
                    for concurrency in (1, high):
                        judge.reset()
                        label = f"{task}-{path}-c{concurrency}"
                        settings = judge.settings(concurrency, tmp / "judge" / label)
                        cmd = command(path, model, task, data, settings, tmp / label, generated)
                        wall = timed(cmd, tmp, env)
                        sent = judge.stats.requests
                        if sent != records * per_record:
                            raise SystemExit(f"{label}: {sent} judge requests, expected "
                                             f"{records * per_record}")  # fmt: skip
                        figures[concurrency] = (judge.stats.busy_seconds, wall, sent)
                        load = os.getloadavg()[0]
                        print(f"  {label}: judge {figures[concurrency][0]:.2f} s, wall "
                              f"{wall:.1f} s, load {load:.2f}", flush=True)  # fmt: skip
                    rows.append((path, bench, figures))
    print(f"\njudge latency {args.latency_ms} ms; judge phase = first judge request to last reply")
    print(f"{'path':<10}{'benchmark':<15}{'requests':>9}{'judge c1':>10}{f'judge c{high}':>10}"
          f"{'speed-up':>10}{'wall c1':>9}{f'wall c{high}':>9}")  # fmt: skip
    for path, bench, figures in rows:
        (j1, w1, n), (jn, wn, _) = figures[1], figures[high]
        print(f"{path:<10}{bench:<15}{n:>9}{j1:>9.2f}s{jn:>9.2f}s{j1 / jn:>9.1f}x"
              f"{w1:>8.1f}s{wn:>8.1f}s")  # fmt: skip
    print("target: judge-phase speed-up at least 6x on every path")


if __name__ == "__main__":
    main()
