"""How many checker verdicts agree with a careful human evaluator's, per constraint.

Every row of the case files ``tests/cases/checkers/*.jsonl`` is a human verdict (``expected``:
1.0 pass, 0.0 fail, null unscored) on one response; ``contested.jsonl`` holds the contested
ones (borderline formats, a requirement met in an unusual but valid way or violated subtly,
answers in fences / Markdown / LaTeX / JSON). This scores each row through the registry and
prints, per constraint, how many verdicts agree, then every disagreement with its reason.

    python benchmarks/contested_verdicts.py            # every case file
    python benchmarks/contested_verdicts.py contested  # one file (name without .jsonl)
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from sci_tasks.metrics.constraints.registry import CheckInput, canonical_name, evaluate

CASES = Path(__file__).resolve().parent.parent / "tests" / "cases" / "checkers"


def main(names: list[str]) -> int:
    paths = [CASES / f"{n}.jsonl" for n in names] or sorted(CASES.glob("*.jsonl"))
    total: Counter[str] = Counter()
    agree: Counter[str] = Counter()
    wrong: list[str] = []
    for path in paths:
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            row = json.loads(line)
            name = canonical_name(row["constraint"]) or row["constraint"]
            inp = CheckInput(row["response"], row["parameters"], row["question"])
            result = evaluate(row["constraint"], inp)
            total[name] += 1
            if result.score == row["expected"]:
                agree[name] += 1
            else:
                wrong.append(
                    f"  {path.name}:{number} {name}: expected {row['expected']}, "
                    f"got {result.score} ({result.reason[:160]})"
                )
    print(f"{'constraint':56} agree / rows")
    for name in sorted(total):
        mark = "" if agree[name] == total[name] else "  <-"
        print(f"{name:56} {agree[name]:5} / {total[name]}{mark}")
    rows, agreed = sum(total.values()), sum(agree.values())
    print(f"{'all':56} {agreed:5} / {rows} ({rows - agreed} disagree)")
    if wrong:
        print("disagreements:")
        print("\n".join(wrong))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
