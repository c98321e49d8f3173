"""Every rule checker against growing input: no checker may be worse than linear.

For each constraint with a rule / RDKit / extraction checker, a record of the bundled samples
that uses it gives the question and parameters; its response is a realistic mix (prose,
numbers with units, JSON, a list, SMILES, a final-answer marker) repeated to 10 KB, 100 KB
and 1 MB. The parameters are then grown to 64 KB and 1 MB (the record's own parameters
repeated as numbered, distinct alternatives, so the checker has to read every one) with a
10 KB response.
Prints seconds per call (best of ``--repeat``) and the growth from 100 KB to 1 MB (about
10 for linear). Target: under 0.5 s at 1 MB for every checker.

    python benchmarks/checker_scaling.py [--repeat 2] [--only NAME]
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path

import sci_tasks
from sci_tasks.metrics.constraints.registry import CheckInput, Kind, evaluate, registered, resolve

SAMPLES = Path(sci_tasks.__file__).parent / "benchmarks" / "scimif" / "samples"
PIECE = (
    "Using the ideal gas law, p = nRT/V = 0.250 × 8.314 × 273.15 / 0.00560 = 101.38 kPa. "
    "The band gap is 1.12 eV and the slope 3.5 × 10^{-2} m/s^2.\n"
    '```json\n{"smiles": "CC(=O)Oc1ccccc1C(=O)O", "name": "aspirin"}\n```\n'
    "- Step 1: stain the sample\n- Step 2: image at 40x\n"
    "(Ras, activates, Raf), (Raf, phosphorylates, MEK) ATGAAATTTGGGTAG\n"
    "Address: 12 Mill Street, Old Town, Riverton, Northshire\n"
    "Final answer: \\boxed{4.5 \\times 10^4 Pa}\n\n"
)
SIZES = {"10KB": 10_000, "100KB": 100_000, "1MB": 1_000_000}
PARAM_SIZES = {"params 64KB": 64_000, "params 1MB": 1_000_000}


def inputs_by_constraint() -> dict[str, tuple[str, str | None]]:
    """(question, parameters) of the first bundled record using each constraint."""
    found: dict[str, tuple[str, str | None]] = {}
    for path in sorted(SAMPLES.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            doc = json.loads(line)
            for item in doc["instruction_list"]:
                constraint = resolve(item["instruction_name"])
                if constraint is not None and constraint.name not in found:
                    found[constraint.name] = (doc["edit_question"], item.get("required_parameters"))
    return found


def grown(text: str, size: int, joiner: str) -> str:
    unit = text + joiner
    return (unit * (size // len(unit) + 1))[:size]


def grown_distinct(text: str, size: int, joiner: str) -> str:
    """``text`` repeated as numbered alternatives ("x 1, or x 2, or ..."): every copy is a
    different requirement, so a checker cannot shortcut by dropping repeats."""
    parts, total, k = [], 0, 0
    while total < size:
        part = f"{text} {k}"
        parts.append(part)
        total += len(part) + len(joiner)
        k += 1
    return joiner.join(parts)[:size]


def timed(name: str, inp: CheckInput, repeat: int) -> float:
    """Best of ``repeat`` calls, each on a response no earlier call saw (trailing spaces
    added), so caches keyed by the text (the copy check, molecule search) never answer."""
    best = float("inf")
    for k in range(repeat):
        fresh = replace(inp, response=inp.response + " " * (k + 1))
        start = time.perf_counter()
        evaluate(name, fresh)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    checkers = registered()
    examples = inputs_by_constraint()
    columns = [*SIZES, "growth", *PARAM_SIZES]
    print(f"{'constraint':<56}" + "".join(f"{c:>12}" for c in columns))
    worst = 0.0
    for name in sorted(checkers):
        constraint = resolve(name)
        if constraint is None or constraint.kind is Kind.JUDGE or args.only not in name:
            continue
        question, params = examples.get(name, ("Answer the question.", None))
        times = {
            label: timed(name, CheckInput(grown(PIECE, size, ""), params, question), args.repeat)
            for label, size in SIZES.items()
        }
        small = grown(PIECE, SIZES["10KB"], "")
        seed = params or "option A, option B"
        for label, size in PARAM_SIZES.items():
            inp = CheckInput(small, grown_distinct(seed, size, ", or "), question)
            times[label] = timed(name, inp, args.repeat)
        growth = times["1MB"] / max(times["100KB"], 1e-9)
        worst = max(worst, times["1MB"], times["params 1MB"])
        cells = [f"{times[c]:>11.4f}s" for c in SIZES]
        cells.append(f"{growth:>11.1f}x")
        cells += [f"{times[c]:>11.4f}s" for c in PARAM_SIZES]
        flag = "  <-- over 0.5 s" if max(times["1MB"], times["params 1MB"]) > 0.5 else ""
        print(f"{name:<56}" + "".join(cells) + flag)
    print(f"slowest call at 1 MB: {worst:.3f} s (target < 0.5 s)")


if __name__ == "__main__":
    main()
