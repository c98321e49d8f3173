"""A task's judge calls, sent concurrently before lm-eval scores its documents one by one.

lm-eval calls ``process_results`` one document at a time, and each judged check waits for
its verdict, so ``judge.concurrency`` alone would change nothing inside an ``lm_eval`` or
``sci-eval`` run. The seam is lm-eval's own: a task's ``filter_list`` is applied to ALL of
its responses (``Filter.apply(resps, docs)``) before any document is scored. Our tasks end
their filter pipeline with ``JudgePrefetch``, which passes every response through
unchanged and hands the batch to its task's ``JudgeBatches`` (``sci_tasks.task.SciTask``
binds them: the task's benchmark's ``judge_work`` hook and the task's run settings). When
scoring starts (the task's first ``process_results``), the batch is scored once in a pool of
``concurrency`` threads, its results thrown away: every judge question the scoring asks
(what the benchmark's ``judge_work`` yields: judged constraints, extraction by rule checkers,
correctness, SciGen-Verify explanation and edit, SciGen-Rubric matching) is sent, at most
``concurrency`` at a time, exactly as the scoring itself builds it. The scoring that
follows finds each reply in the judge client's cache (disk, or this run's in-memory memo
with ``cache: false``) and reaches the same verdicts, reasons and cache files as a
one-at-a-time run. ``sci-score`` re-scores through the same scorers in a pool of its own.

Two judge roles may be in force (``RunSettings.grader``): SciMIF's correctness questions
go to the correctness judge, in a pool bounded by its own ``concurrency``, at the same time
as the constraint questions go to the constraint judge.

Why wait for scoring instead of sending in the filter: a ``--predict_only`` run applies the
filters too but never scores, and it must not call the judge (generate now, judge later).
At ``concurrency: 1``, or with no judge, nothing is scheduled: scoring runs as before.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from typing import Any, cast

from lm_eval.api.filter import Filter

from sci_tasks.metrics import judge as judges
from sci_tasks.metrics.judge.client import JudgeClient, JudgeReply, JudgeRequest
from sci_tasks.run_settings import RunSettings

log = logging.getLogger(__name__)

Work = Callable[[JudgeClient], object]  # one unit of scoring that may ask the judge
CONSTRAINTS, CORRECTNESS = "constraints", "correctness"  # which judge a unit of work asks
Units = Iterable[tuple[str, Work]]  # (the role whose judge it asks, the work)
# a benchmark's ``judge_work`` hook: what scoring one response to one document asks
JudgeWork = Callable[[Mapping[str, Any], str, RunSettings], Units]


# --- sending ---------------------------------------------------------------------------------


class _OnceEach:
    """The judge, asking each distinct request once: a duplicate (the same question from two
    documents) waits for the first instead of racing it to the server."""

    def __init__(self, judge: JudgeClient) -> None:
        self.judge = judge
        self._lock = threading.Lock()
        self._asked: dict[str, Future[JudgeReply]] = {}

    def ask(self, request: JudgeRequest) -> JudgeReply:
        try:
            key = self.judge.cache_key(request)
        except Exception:  # e.g. an unreadable image: the client itself reports it
            return self.judge.ask(request)
        with self._lock:
            future = self._asked.get(key)
            first = future is None
            if future is None:
                future = self._asked[key] = Future()
        if first:
            try:
                future.set_result(self.judge.ask(request))
            except BaseException as exc:
                future.set_exception(exc)
        return future.result()

    def ask_many(self, requests: Sequence[JudgeRequest]) -> list[JudgeReply]:
        # one question at a time per unit of work: the pool bounds what is in flight
        return [self.ask(r) for r in requests]

    def __getattr__(self, name: str) -> Any:  # config, cache_key, calls, ...
        return getattr(self.judge, name)


def send(
    work_of: JudgeWork,
    docs: Sequence[Mapping[str, Any]],
    responses: Sequence[str],
    settings: RunSettings,
) -> int:
    """Ask every judge question that scoring ``responses`` to ``docs`` with ``settings`` will
    ask (``work_of``: the benchmark's ``judge_work``): the constraint questions of the
    constraint judge, at most its ``concurrency`` at a time, and SciMIF's correctness
    questions of the correctness judge, bounded by its own concurrency, both at once;
    returns the number of units of work run. A role without a judge, or at concurrency 1,
    sends nothing here (scoring asks as it goes)."""
    asking: dict[str, JudgeClient | None] = {}

    def client_of(role: str) -> JudgeClient | None:  # None: scoring asks as it goes
        if role not in asking:
            config = settings.grader()[1] if role == CORRECTNESS else settings.judge_of(role)
            client = judges.client_for(config)
            asking[role] = client if _concurrent(client) else None
        return asking[role]

    if not any(client_of(role) for role in (CONSTRAINTS, CORRECTNESS, *settings.roles)):
        return 0
    from sci_tasks.metrics.constraints.registry import registered

    registered()  # import every checker module before the threads start
    # one pool per distinct client (a judge serving two roles bounds both together)
    pools: dict[JudgeClient, list[Work]] = {}
    for doc, response in zip(docs, responses, strict=True):
        for role, unit in work_of(doc, response, settings):
            client = client_of(role)
            if client is not None:
                pools.setdefault(client, []).append(unit)
    units = sum(len(work) for work in pools.values())

    def run(once: JudgeClient, unit: Work) -> None:
        try:
            unit(once)
        except Exception as exc:  # the real scoring meets it again and reports it
            log.debug("judge prefetch: %s: %s", type(exc).__name__, exc)

    def run_pool(client: JudgeClient, work: list[Work]) -> None:
        once = cast(JudgeClient, _OnceEach(client))
        with ThreadPoolExecutor(max_workers=client.config.concurrency) as pool:
            list(pool.map(partial(run, once), work))

    if len(pools) == 1:
        run_pool(*next(iter(pools.items())))
    elif pools:
        with ThreadPoolExecutor(max_workers=len(pools)) as outer:
            list(outer.map(lambda item: run_pool(*item), pools.items()))
    return units


def _concurrent(client: JudgeClient | None) -> bool:
    return client is not None and client.config.concurrency >= 2


# --- the lm-eval seam: a filter that schedules, scoring that sends ----------------------------


class JudgeBatches:
    """One task's judge work waiting for its scoring: what its ``JudgePrefetch`` filter saw,
    sent (``send``) when the task's scoring starts, with the task's settings."""

    def __init__(self, work_of: JudgeWork, settings: RunSettings) -> None:
        self.work_of = work_of
        self.settings = settings
        self._pending: list[tuple[list[Mapping[str, Any]], list[str]]] = []
        self._lock = threading.Lock()

    @property
    def concurrent(self) -> bool:
        """Whether either judge role asks more than one question at a time."""
        return any(
            _concurrent(judges.client_for(c))
            for c in (self.settings.judge, self.settings.grader()[1])
        )

    def schedule(self, docs: Sequence[Mapping[str, Any]], responses: Sequence[str]) -> None:
        if self.concurrent:
            with self._lock:
                self._pending.append((list(docs), list(responses)))

    def send(self) -> int:
        """Send what was scheduled (once); concurrent scorers wait for it instead of racing
        it. Returns the number of units of work run (0: nothing was waiting)."""
        if not self._pending:  # the common case costs one list check
            return 0
        with self._lock:
            pending, self._pending = self._pending, []
            return sum(send(self.work_of, d, r, self.settings) for d, r in pending)


class JudgePrefetch(Filter):
    """lm-eval filter (``filter_list``): identity on the responses; schedules them in its
    task's ``JudgeBatches`` so that scoring sends the task's judge questions concurrently
    (module docstring). ``sci_tasks.task.SciTask`` gives it ``batches``; without them (a
    task of another class) it is the identity and scoring asks one question at a time.

    In a task YAML, after ``take_first``::

        filter_list:
          - name: none
            filter:
              - function: take_first
              - function: !function sci_tasks.metrics.judge.prefetch.JudgePrefetch
    """

    def __init__(self, batches: JudgeBatches | None = None) -> None:
        super().__init__()
        self.batches = batches

    def apply(self, resps: Iterable[Any], docs: Sequence[Mapping[str, Any]]) -> list[Any]:
        resps = list(resps)
        if self.batches is not None and all(isinstance(r, str) for r in resps):
            self.batches.schedule(docs, resps)
        return resps
