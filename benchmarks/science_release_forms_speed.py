"""Time growth of the scientific checkers on the released forms: every record of
``tests/cases/science_release_forms.jsonl`` (scene templates, named tuples, ORF questions,
units, property kinds, bonds, methods) scored with a degenerate response of 125 KB and of
1 MB built from one repeated piece. Linear time gives ~8x; quadratic ~64x. Prints the CPU
time of each (record, piece) and the worst ratio; exits 1 when a ratio passes 24x or 1 MB
takes over 5 s (the bounds of ``tests/test_checker_robustness.py``).

    python benchmarks/science_release_forms_speed.py
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from sci_tasks.metrics.constraints import registry
from sci_tasks.metrics.constraints.registry import CheckInput

CASES = Path(__file__).resolve().parents[1] / "tests" / "cases" / "science_release_forms.jsonl"
PIECES = ['"lighting_condition": "day", ', '"', "{", "(a, b) ", "\n(", "(", "7 nt ", "7", "ATG",
          "Forward primer ", "ORF 7. ", "wt.% ", "at ", "*", " ", "nλ = 2d ", "C=C"]  # fmt: skip


def cpu_seconds(name: str, inp: CheckInput) -> float:
    started = time.process_time()
    registry.evaluate(name, inp)
    return time.process_time() - started


def main() -> int:
    records = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()]
    forms: dict[str, dict] = {}
    for record in records:  # one record per (constraint, form) keeps the run short
        forms.setdefault(f"{record['form']}/{record['instruction_name']}", record)
    worst, slow = 0.0, []
    for key, record in forms.items():
        for piece in PIECES:
            times = []
            for size in (125_000, 1_000_000):
                text = piece * (size // len(piece))
                inp = CheckInput(text, record["required_parameters"], record["edit_question"])
                times.append(cpu_seconds(record["instruction_name"], inp))
            ratio = times[1] / max(times[0], 1e-3)
            worst = max(worst, ratio if times[1] > 0.05 else 0.0)
            if times[1] > 5.0 or (times[1] > 0.05 and ratio > 24):
                slow.append(f"{key} {piece!r}: {times[0]:.3f}s -> {times[1]:.3f}s")
            print(f"{key:70s} {piece!r:32s} {times[0]:7.3f}s -> {times[1]:7.3f}s  x{ratio:5.1f}")
    print(f"{len(forms)} forms x {len(PIECES)} pieces; worst growth 125 KB -> 1 MB: x{worst:.1f}")
    for line in slow:
        print("SLOW", line)
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
