"""One scoring pass: a task's documents scored once each, concurrently within its judges'
limits. ``sci_tasks.task.SciTask`` (every lm-eval path) and ``sci-score`` both call
``score_all``.

lm-eval calls ``process_results`` one document at a time, and a judged check waits for its
verdict, so one document at a time would leave ``judge.concurrency`` unused. ``score_all``
scores the documents in a pool of as many threads as the most concurrent judge in force
allows (``workers``); each judge client keeps at most its own ``concurrency`` calls in
flight and asks a question another thread is asking once (``metrics.judge.client``), so a
role's limit holds however many documents are scored at once. Without a judge, or at
concurrency 1, the documents are scored one after another in the calling thread, as
lm-eval would. Every checker runs once per (document, constraint): the verdicts, reasons
and judge cache files are those of a one-at-a-time run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sci_tasks.run_settings import RunSettings

# a task's scorer (the YAML's ``process_results``): (doc, responses, settings) -> metrics
Scorer = Callable[[dict[str, Any], list[Any], RunSettings], dict[str, Any]]
Pair = tuple[dict[str, Any], list[Any]]  # a document and its (filtered) responses


def judges_in_force(settings: RunSettings) -> Iterator[Any]:
    """Every judge scoring with ``settings`` may ask (``JudgeConfig``s: each role's, each
    juror of a jury)."""
    roles = [settings.judge, settings.grader()[1], *settings.roles.values()]
    roles += list(settings.juries().values())
    for given in roles:
        yield from getattr(given, "jurors", None) or ([given] if given is not None else [])


def workers(settings: RunSettings) -> int:
    """Threads for scoring: the largest ``concurrency`` of the judges in force, 1 without
    a judge (each judge's client bounds its own calls in flight)."""
    return max((j.concurrency for j in judges_in_force(settings)), default=1)


def score_all(scorer: Scorer, settings: RunSettings, pairs: Sequence[Pair]) -> list[dict[str, Any]]:
    """``scorer(doc, responses, settings)`` for each pair, in order: once each, in a pool of
    ``workers(settings)`` threads (module docstring). An exception of a scorer is raised."""
    threads = min(workers(settings), len(pairs))
    if threads <= 1:
        return [scorer(doc, responses, settings) for doc, responses in pairs]
    from sci_tasks.metrics.constraints.registry import registered

    registered()  # import every checker module before the threads start
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="score") as pool:
        return list(pool.map(lambda pair: scorer(pair[0], pair[1], settings), pairs))
