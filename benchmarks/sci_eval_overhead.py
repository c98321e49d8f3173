"""Overhead of sci-eval over plain transformers generation, on the embedded default model.

Runs, as fresh processes (``--repeats`` times each, alternating):
  A. ``sci-eval tasks=<task> use_cache=false`` (Hydra, lm-eval, loader, checkers, files);
  B. a direct script: load the same converted model folder with transformers, apply the
     same chat template to the same prompts and generate greedily with the same token limit
     and the same batch size (left padding, prompts sorted by length), nothing else.
The converted model is made before timing (both reuse it). Prints wall and CPU time of
each run with the load average before it, and the ratios A / B of the medians (wall and
CPU). Target: at most 1.10.

By default both run the README's main job: ``sci-eval`` with no task override (the
default task set, every bundled text-only prompt) at its 256-token limit.

    python benchmarks/sci_eval_overhead.py [--task scimif_chem,...] [--max-new-tokens 256]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from process_timing import timed  # benchmarks/ is on sys.path when run as a script

DIRECT = r"""
import sys
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer
import sci_tasks
task_names, folder = sys.argv[1].split(","), sys.argv[4]
max_new, batch_size = int(sys.argv[2]), int(sys.argv[3])
tokenizer = AutoTokenizer.from_pretrained(folder)
tokenizer.padding_side = "left"  # decoder-only batches pad on the left
model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32)
model.eval()
tasks = sci_tasks.task_manager(include_defaults=False).load(task_names)["tasks"]
prompts = [t.doc_to_text(d) for t in tasks.values() for d in t.test_docs()]
chats = [
    tokenizer.apply_chat_template(
        [{"role": "user", "content": p}], tokenize=False, add_generation_prompt=True
    )
    for p in prompts
]
chats.sort(key=lambda c: -len(tokenizer(c)["input_ids"]))  # similar lengths share a batch
n_tokens = 0
with torch.no_grad():
    for start in range(0, len(chats), batch_size):
        ids = tokenizer(chats[start : start + batch_size], return_tensors="pt", padding=True)
        out = model.generate(**ids, max_new_tokens=max_new, do_sample=False)
        new = out[:, ids["input_ids"].shape[1] :]
        n_tokens += int((new != tokenizer.pad_token_id).sum())
print(f"direct: {len(prompts)} prompts, {n_tokens} new tokens, batch size {batch_size}")
"""


def timed_run(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, float]:
    """(wall s, CPU s, 1-minute load average before) of one process; prints its summary."""
    wall, cpu, load, stdout = timed(cmd, cwd, env)
    for line in stdout.splitlines():
        if line.startswith("direct:"):
            print(line)
    return wall, cpu, load


def main() -> None:
    from hydra import compose, initialize_config_module

    import sci_tasks.resolvers  # noqa: F401  (registers the resolvers)

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", help="comma-separated tasks (default: the main job's set)")
    parser.add_argument("--max-new-tokens", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    with initialize_config_module("sci_tasks.conf", version_base="1.3"):
        config = compose("config")  # the embedded default, as sci-eval composes it
    task = args.task or ",".join(str(t) for t in config.tasks.names)
    folder = str(config.model.args.pretrained)  # converts the GGUF now if not done yet
    batch = str(config.model.batch_size)
    # the same torch threads for both: what the config chooses now (or the user's own)
    threads = os.environ.get("OMP_NUM_THREADS") or str(config.model.env.OMP_NUM_THREADS)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    env["OMP_NUM_THREADS"] = threads
    sci_eval = str(Path(sys.executable).parent / "sci-eval")
    direct_cmd = [sys.executable, "-c", DIRECT, task, str(args.max_new_tokens), batch, folder]
    tokens = f"model.gen_kwargs.max_gen_toks={args.max_new_tokens}"
    ours_cmd = [sci_eval, "use_cache=false", tokens]
    if args.task:  # else the main job as the README runs it
        ours_cmd.append(f"tasks.names=[{args.task}]")
    runs: dict[str, list[tuple[float, float, float]]] = {"direct": [], "sci-eval": []}
    with tempfile.TemporaryDirectory() as tmp:
        for repeat in range(args.repeats):
            runs["direct"].append(timed_run(direct_cmd, Path(tmp), env))
            # a fresh run folder each time: sci-eval skips a job it finds done already
            run_dir = f"hydra.run.dir=run{repeat}"
            runs["sci-eval"].append(timed_run([*ours_cmd, run_dir], Path(tmp), env))
    for name, figures in runs.items():
        for wall, cpu, load in figures:
            print(f"{name:<10} wall {wall:6.1f} s   CPU {cpu:6.1f} s   load before {load:4.2f}")
    wall = {k: statistics.median(f[0] for f in v) for k, v in runs.items()}
    cpu = {k: statistics.median(f[1] for f in v) for k, v in runs.items()}
    print(f"batch size {batch}, {threads} torch thread(s), {args.max_new_tokens} new tokens at "
          f"most, tasks {task}")  # fmt: skip
    ratio = wall["sci-eval"] / wall["direct"]
    print(f"ratio sci-eval / direct, wall   {ratio:6.3f} (target <= 1.10)")
    print(f"ratio sci-eval / direct, CPU    {cpu['sci-eval'] / cpu['direct']:6.3f}")


if __name__ == "__main__":
    main()
