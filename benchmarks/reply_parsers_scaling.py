"""Reply normalisation and the SPM-Bench / SciGen-Verify / SciGen-Rubric reply parsers on
degenerate replies (one piece repeated, as a model stuck in a loop writes): CPU time at
10 KB, 100 KB and 1 MB, and the growth from 100 KB to 1 MB (linear is about 10x).
A call over 20 s is cut off and printed as such.

    python benchmarks/reply_parsers_scaling.py
"""

from __future__ import annotations

import argparse
import signal
import time
from collections.abc import Callable
from typing import Any

from sci_tasks.benchmarks.scigen_verify.parse import parse_verification
from sci_tasks.benchmarks.scigen_verify.rubric import parse_rubric
from sci_tasks.benchmarks.spm_bench.parse import parse_response
from sci_tasks.metrics.reply import normalise_reply

PARSERS: dict[str, Callable[[str], Any]] = {
    "normalise_reply": normalise_reply,
    "spm parse_response": lambda text: parse_response(text, ["A", "B", "C", "D"]),
    "verify parse_verification": parse_verification,
    "rubric parse_rubric": parse_rubric,
}
PIECES = ["<think> ", "</think>", "\n", " ", "{", "{ ", "{}", '{"', '{"a": ', "[", "<answer>",
          "<judgement>", "Answer: ", "A, ", "Confidence: 9", "```json\n", "(", "yes "]  # fmt: skip
CUT_OFF = 20


class _CutOff(Exception):
    pass


def _alarm(*_: Any) -> None:
    raise _CutOff


def cpu_seconds(parse: Callable[[str], Any], text: str) -> float:
    signal.alarm(CUT_OFF)
    started = time.process_time()
    try:
        parse(text)
    except _CutOff:
        return float("inf")
    finally:
        signal.alarm(0)
    return time.process_time() - started


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    signal.signal(signal.SIGALRM, _alarm)
    print(f"{'parser':28s} {'piece':16s} {'10KB':>8s} {'100KB':>8s} {'1MB':>8s} {'growth':>7s}")
    worst = (0.0, "")
    for name, parse in PARSERS.items():
        for piece in PIECES:
            times = [cpu_seconds(parse, piece * (n // len(piece))) for n in (10**4, 10**5, 10**6)]
            growth = times[2] / max(times[1], 1e-3)
            shown = " ".join(f"{t:7.3f}s" if t != float("inf") else f" >{CUT_OFF}s " for t in times)
            print(f"{name:28s} {piece!r:16s} {shown} {growth:6.1f}x")
            worst = max(worst, (times[2], f"{name} on {piece!r}"))
    print(f"slowest call at 1 MB: {worst[0]:.3f} s ({worst[1]})")


if __name__ == "__main__":
    main()
