"""How long the README's main job takes: ``sci-eval`` with no arguments (SmolLM2-135M on CPU,
the 28 text-only bundled SciMIF prompts x 256 tokens), end to end, model load included.

Each figure is one fresh ``sci-eval`` process (``use_cache=false``: the model really
generates), with wall time, the CPU time it used, and the 1-minute load average just before
it started (the machine is not assumed idle: read the load next to each figure):

  cold         an empty cache root: the GGUF is converted once (then reused by every run);
  warm         the converted model is reused: what every later start costs;
  warm, busy   the same while another process keeps one core busy (a spinning loop).

``--batch-size`` / ``--threads`` (torch intra-op threads, through OMP_NUM_THREADS) override
the config to compare settings; ``--compare-batch N`` also runs batch size N and says
whether the greedy outputs are identical to those of the configured batch size.

    python benchmarks/embedded_default.py [--limit N] [--skip-cold] [--skip-busy]
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

from process_timing import timed  # benchmarks/ is on sys.path when run as a script

SPIN = "while True: pass"


def run_sci_eval(
    workdir: Path, cache: Path, name: str, overrides: list[str], threads: int | None
) -> tuple[float, float, float, Path]:
    """(wall s, CPU s, load before, run folder) of one fresh ``sci-eval`` process."""
    env = {**os.environ, "SCI_TASKS_CACHE": str(cache), "HF_HUB_OFFLINE": "1"}
    if threads:
        env["OMP_NUM_THREADS"] = str(threads)
    run_dir = workdir / name
    cmd = [str(Path(sys.executable).parent / "sci-eval"), "use_cache=false",
           f"hydra.run.dir={run_dir}", *overrides]  # fmt: skip
    wall, cpu, load, _ = timed(cmd, workdir, env)
    return wall, cpu, load, run_dir


def outputs(run_dir: Path) -> dict[tuple[str, int], str]:
    found = {}
    for path in sorted(run_dir.rglob("samples_*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            found[(path.name.split("_20")[0], row["doc_id"])] = row["resps"][0][0]
    return found


def report(label: str, wall: float, cpu: float, load: float) -> None:
    print(f"{label:<34} wall {wall:6.1f} s   CPU {cpu:6.1f} s   load before {load:4.2f}")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="samples per task (default: all 28 prompts)")
    parser.add_argument("--max-gen-toks", type=int, help="override the 256-token limit")
    parser.add_argument("--batch-size", type=int, help="override model.batch_size")
    parser.add_argument("--threads", type=int, help="torch threads (OMP_NUM_THREADS)")
    parser.add_argument("--compare-batch", type=int, help="also run this batch size; compare")
    parser.add_argument("--skip-cold", action="store_true")
    parser.add_argument("--skip-busy", action="store_true")
    parser.add_argument("--cache", type=Path, help="cache root to reuse (default: a fresh one)")
    args = parser.parse_args()
    overrides = [f"limit={args.limit}"] if args.limit else []
    if args.max_gen_toks:
        overrides.append(f"model.gen_kwargs.max_gen_toks={args.max_gen_toks}")
    if args.batch_size:
        overrides.append(f"model.batch_size={args.batch_size}")
    print(f"cores: {os.cpu_count()}, torch threads: {args.threads or 'default'}, "
          f"overrides: {' '.join(overrides) or 'none'}")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        cache = args.cache or workdir / "cache"
        if not args.skip_cold:
            cold = run_sci_eval(workdir, cache, "cold", overrides, args.threads)
            report("cold (GGUF converted once)", *cold[:3])
        wall, cpu, load, warm_dir = run_sci_eval(workdir, cache, "warm", overrides, args.threads)
        report("warm (converted model reused)", wall, cpu, load)
        if not args.skip_busy:
            spinner = subprocess.Popen([sys.executable, "-c", SPIN])
            try:
                time.sleep(1)
                busy = run_sci_eval(workdir, cache, "busy", overrides, args.threads)
                report("warm, one core busy", *busy[:3])
            finally:
                spinner.kill()
                spinner.wait()
        if args.compare_batch:
            other = [o for o in overrides if not o.startswith("model.batch_size")]
            other.append(f"model.batch_size={args.compare_batch}")
            wall, cpu, load, other_dir = run_sci_eval(workdir, cache, "other", other, args.threads)
            report(f"warm, batch size {args.compare_batch}", wall, cpu, load)
            mine, theirs = outputs(warm_dir), outputs(other_dir)
            same = sum(mine[k] == theirs.get(k) for k in mine)
            print(f"greedy outputs identical to batch size {args.compare_batch}: "
                  f"{same}/{len(mine)}")  # fmt: skip


if __name__ == "__main__":
    main()
