"""What the judge cost in a run, per judge role: calls, cache hits, retries, failures,
tokens and wall time (``manifest.json`` ``usage.judge``, sci-eval's summary, sci-score's own
manifest).

The judge client reports into the ledger of the run in progress (``current``); a run starts
its own with ``start`` (sci-eval per job, sci-score per re-score). Counting rules:

* ``calls``: HTTP requests sent to the judge server, each attempt once (so a server's own
  request count equals it, but for attempts that never connected), ``retried`` of them
  repeated an earlier attempt of the same question;
* ``requests``: distinct judge questions of the run (one verdict each), counted on the first
  ask only: the same question asked again (two samples or two checks asking it) is no new
  request; ``cached`` of them were answered from the judge cache without a call
  (an earlier run, or the killed run a resume continues), ``failed`` got no verdict (a
  reply served from the cache is counted as cached whatever its verdict; a failure read
  from an earlier run's cache is asked again, so it is counted as the new call's outcome);
* ``prompt_tokens`` / ``completion_tokens``: summed from each reply's ``usage`` as the API
  reports it (a server that reports none adds 0 and is counted in ``calls_without_usage``);
* ``wall_seconds``: time during which at least one call of the role was in flight (the
  union of the calls' intervals, so concurrent calls are not summed).
"""

from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Any

CONSTRAINTS = "constraints"  # judged constraints, extraction (and any role not given)
CORRECTNESS = "correctness"  # SciMIF answer correctness (the correctness_judge role)
VERIFICATION = "verification"  # SciGen-Verify's explanation and edit judgements
RUBRIC = "rubric"  # SciGen-Rubric's match matrix
ROLES = (CONSTRAINTS, CORRECTNESS)  # every run's ledger shows these; others when asked


@dataclass
class RoleUsage:
    requests: int = 0
    cached: int = 0
    failed: int = 0
    calls: int = 0
    retried: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls_without_usage: int = 0
    wall_seconds: float = 0.0
    models: list[str] = field(default_factory=list)  # the judge model(s) that answered


class Ledger:
    """One run's judge usage; thread-safe (scoring's threads report, ``sci_tasks.scoring``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._roles: dict[str, RoleUsage] = {role: RoleUsage() for role in ROLES}
        self._seen: set[tuple[str, str]] = set()
        self._in_flight: dict[str, int] = {}
        self._busy_since: dict[str, float] = {}

    def _role(self, role: str) -> RoleUsage:
        return self._roles.setdefault(role, RoleUsage())

    def first_ask(self, role: str, key: str) -> bool:
        """True the first time this run asks the question ``key`` in ``role``."""
        with self._lock:
            if (role, key) in self._seen:
                return False
            self._seen.add((role, key))
            return True

    def answered(self, role: str, model: str, ok: bool, cached: bool) -> None:
        """A new question's outcome: a verdict or not, from the cache or not."""
        with self._lock:
            usage = self._role(role)
            usage.requests += 1
            usage.cached += int(cached)
            usage.failed += int(not ok)
            if model not in usage.models:
                usage.models.append(model)

    def call_started(self, role: str, retry: bool) -> None:
        with self._lock:
            usage = self._role(role)
            usage.calls += 1
            usage.retried += int(retry)
            if self._in_flight.get(role, 0) == 0:
                self._busy_since[role] = time.monotonic()
            self._in_flight[role] = self._in_flight.get(role, 0) + 1

    def call_ended(self, role: str, tokens: tuple[int, int] | None) -> None:
        """A call's end; ``tokens``: (prompt, completion) from its ``usage``, None when the
        reply reported none (or never came)."""
        with self._lock:
            usage = self._role(role)
            if tokens is None:
                usage.calls_without_usage += 1
            else:
                usage.prompt_tokens += tokens[0]
                usage.completion_tokens += tokens[1]
            self._in_flight[role] -= 1
            if self._in_flight[role] == 0:
                usage.wall_seconds += time.monotonic() - self._busy_since.pop(role)

    def summary(self) -> dict[str, dict[str, Any]]:
        """Per role (every role, zeros when unused): the counts, tokens and wall time."""
        with self._lock:
            out = {}
            for role, usage in self._roles.items():
                entry = asdict(usage)
                entry["wall_seconds"] = round(usage.wall_seconds, 3)
                out[role] = entry
            return out


_current = Ledger()
_current_lock = threading.Lock()


def current() -> Ledger:
    """The ledger the judge client reports into."""
    return _current


def start() -> Ledger:
    """A fresh ledger for a run that begins now (the previous run's stays with its owner)."""
    global _current
    with _current_lock:
        _current = Ledger()
        return _current


def summary_lines(summary: dict[str, dict[str, Any]]) -> list[str]:
    """The printed form: one line per role that asked anything."""
    lines = []
    for role, u in summary.items():
        if not u["requests"] and not u["calls"]:
            continue
        tokens = f"{u['prompt_tokens']} prompt + {u['completion_tokens']} completion tokens"
        if u["calls_without_usage"]:
            tokens += f" ({u['calls_without_usage']} call(s) reported no usage)"
        lines.append(
            f"judge {role} ({', '.join(u['models'])}): {u['requests']} question(s), "
            f"{u['cached']} from cache, {u['failed']} failed; {u['calls']} call(s), "
            f"{u['retried']} retried; {tokens}; {u['wall_seconds']:.1f} s"
        )
    return lines
