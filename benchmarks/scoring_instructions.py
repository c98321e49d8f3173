"""SciMIF scoring cost in CPU instructions: the workload of ``scimif_scoring.py`` (2,527
samples, rule and RDKit checkers) counted by valgrind's callgrind, which counts the same
on a busy machine as on an idle one (seconds on a shared 2-core VM vary by about 10%).

Prints instructions per scoring run: the difference between a process that scores the
samples twice and one that scores them once (the first pass imports every checker and
fills the caches, as the timing script's first run does). With ``--against REV`` the
checkers of git revision REV score the same samples (this tree's bundled records and
synthetic responses), from an isolated install, and the two counts are compared.

    python benchmarks/scoring_instructions.py [--against d8a50c5]

Needs valgrind (``apt-get install valgrind``); about 5 minutes per tree.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Runs in the measured process: the scoring code comes from sys.path[0] when given (an
# isolated install of another revision), the samples from this tree's benchmark script.
DRIVER = """
import sys
target, runs = sys.argv[1], int(sys.argv[2])
if target:
    sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
    sys.path.insert(0, target)
sys.path.insert(0, {benchmarks!r})
import scimif_scoring
from sci_tasks.benchmarks.scimif import metrics as scimif
samples = scimif_scoring.synthetic_samples()
for _ in range(runs + 1):
    for doc, response in samples:
        scimif.score_sample(doc, response)
"""


def instructions(target: str, runs: int) -> int:
    driver = DRIVER.format(benchmarks=str(ROOT / "benchmarks"))
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    cmd += [sys.executable, "-c", driver, target, str(runs)]
    # a fixed hash seed: the same dict and set orders in every process
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, check=False)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode or not found:
        tail = done.stderr.strip().splitlines()[-3:]
        raise SystemExit(f"callgrind run failed (exit {done.returncode}): {' | '.join(tail)}")
    return int(found.group(1))


def per_run(target: str = "") -> int:
    return instructions(target, 1) - instructions(target, 0)


def install_revision(rev: str, into: Path) -> str:
    """An isolated install of ``rev`` holding this tree's bundled SciMIF records."""
    tree = into / "tree"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), rev],
                   check=True, capture_output=True)  # fmt: skip
    try:
        site = into / "site"
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target",
                        str(site), str(tree)], check=True, capture_output=True)  # fmt: skip
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
                       check=False, capture_output=True)  # fmt: skip
    samples = site / "sci_tasks" / "benchmarks" / "scimif" / "samples"
    shutil.rmtree(samples, ignore_errors=True)
    shutil.copytree(ROOT / "sci_tasks" / "benchmarks" / "scimif" / "samples", samples)
    return str(site)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", metavar="REV", help="also count the checkers of REV")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind not found: apt-get install valgrind")
    here = per_run()
    print(f"this tree              {here / 1e6:,.0f} M instructions per scoring run")
    if args.against:
        with tempfile.TemporaryDirectory() as tmp:
            other = per_run(install_revision(args.against, Path(tmp)))
        change = (here - other) / other
        print(f"{args.against:<22} {other / 1e6:,.0f} M instructions per scoring run")
        print(f"this tree against it   {change:+.1%}")


if __name__ == "__main__":
    main()
