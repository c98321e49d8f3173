"""A task's judge calls, sent concurrently before lm-eval scores its documents one by one.

lm-eval calls ``process_results`` one document at a time, and each judged check waits for
its verdict, so ``judge.concurrency`` alone would change nothing inside an ``lm_eval`` or
``sci-eval`` run. The seam is lm-eval's own: a task's ``filter_list`` is applied to ALL of
its responses (``Filter.apply(resps, docs)``) before any document is scored. Our tasks end
their filter pipeline with ``JudgePrefetch``, which passes every response through
unchanged and schedules the batch. When scoring starts (the first ``process_results`` of
a scheduled document asks ``judge_in_force``), the whole batch is scored once in a pool of
``concurrency`` threads with the judge its documents carry, its results thrown away: every judge
question the scoring asks (judged constraints, extraction by rule checkers, correctness,
SciGen-Verify explanation and edit, SciGen-Rubric matching) is sent, at most
``concurrency`` at a time, exactly as the scoring itself builds it. The scoring that
follows finds each reply in the judge client's cache (disk, or this run's in-memory memo
with ``cache: false``) and reaches the same verdicts, reasons and cache files as a
one-at-a-time run. ``sci-score`` re-scores through the same ``process_results``.

Two judge roles may be in force (``judges.correctness_of``): SciMIF's correctness questions
go to the correctness judge, in a pool bounded by its own ``concurrency``, at the same time
as the constraint questions go to the constraint judge.

Why wait for scoring instead of sending in the filter: a ``--predict_only`` run applies the
filters too but never scores, and it must not call the judge (generate now, judge later).
At ``concurrency: 1``, or with no judge, nothing is scheduled: scoring runs as before.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from typing import Any, cast

from lm_eval.api.filter import Filter

from sci_tasks.metrics import judge as judges
from sci_tasks.metrics.judge.client import JudgeClient, JudgeReply, JudgeRequest

log = logging.getLogger(__name__)

Work = Callable[[JudgeClient], object]  # one unit of scoring that may ask the judge
CONSTRAINTS, CORRECTNESS = "constraints", "correctness"  # which judge a unit of work asks


# --- what each benchmark's scoring asks ------------------------------------------------------


Units = Iterable[tuple[str, Work]]  # (the role whose judge it asks, the work)


def _scimif_work(doc: Mapping[str, Any], response: str) -> Units:
    from sci_tasks.metrics import scimif
    from sci_tasks.metrics.constraints.registry import Kind, evaluate, resolve

    doc = dict(doc)
    for name, inp in scimif.check_inputs(doc, response):
        constraint = resolve(name)
        # rule-kind checkers never ask the judge; judge-kind ones do, and extract- and
        # RDKit-kind ones may (to copy a span out of the response)
        if constraint is not None and constraint.kind is not Kind.RULE:
            yield CONSTRAINTS, partial(evaluate, name, inp)
    protocol, _ = judges.correctness_of(doc)
    yield CORRECTNESS, partial(scimif.grade_correctness, doc, response, protocol=protocol)


def _verify_work(doc: Mapping[str, Any], response: str) -> Units:
    from sci_tasks.metrics import verify

    yield CONSTRAINTS, partial(verify.score_sample, doc, response)


def _rubric_work(doc: Mapping[str, Any], response: str) -> Units:
    from sci_tasks.metrics import rubric

    yield CONSTRAINTS, partial(rubric.score_rubric, doc, response)


BENCHMARKS: dict[str, Callable[[Mapping[str, Any], str], Units]] = {
    "scimif": _scimif_work,
    "scigen_verify": _verify_work,
    "scigen_rubric": _rubric_work,
}


def benchmark_of(process_results: Callable[..., Any]) -> str | None:
    """Which benchmark a task's ``process_results`` scores (None: not one that judges)."""
    from sci_tasks.metrics import rubric, scimif, verify

    hooks = {
        scimif.process_results: "scimif",
        verify.process_results: "scigen_verify",
        rubric.process_results: "scigen_rubric",
    }
    return hooks.get(process_results)


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
    benchmark: str,
    docs: Sequence[Mapping[str, Any]],
    responses: Sequence[str],
    judge: JudgeClient | None,
    correctness: JudgeClient | None = None,
) -> int:
    """Ask every judge question that scoring ``responses`` to ``docs`` will ask: the
    constraint questions of ``judge``, at most ``judge.config.concurrency`` at a time, and
    SciMIF's correctness questions of ``correctness`` (default: ``judge``), bounded by its
    own concurrency, both at once; returns the number of units of work run. A role without
    a judge, or at concurrency 1, sends nothing here (scoring asks as it goes)."""
    clients = {CONSTRAINTS: judge, CORRECTNESS: correctness or judge}
    asking = {
        role: client
        for role, client in clients.items()
        if client is not None and client.config.concurrency >= 2
    }
    if not asking:
        return 0
    from sci_tasks.metrics.constraints.registry import registered

    registered()  # import every checker module before the threads start
    work_of = BENCHMARKS[benchmark]
    # one pool per distinct client (a judge serving both roles bounds both together)
    pools: dict[JudgeClient, list[Work]] = {}
    for doc, response in zip(docs, responses, strict=True):
        for role, unit in work_of(doc, response):
            client = asking.get(role)
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
    else:
        with ThreadPoolExecutor(max_workers=len(pools)) as outer:
            list(outer.map(lambda item: run_pool(*item), pools.items()))
    return units


# --- the lm-eval seam: a filter that schedules, scoring that sends ----------------------------

_lock = threading.Lock()
_batches = itertools.count()
Judges = tuple[JudgeClient | None, JudgeClient | None]  # (constraint judge, correctness judge)
# number -> (benchmark, judges, documents, responses)
_pending: dict[int, tuple[str, Judges, list[Mapping[str, Any]], list[str]]] = {}
_batch_of: dict[str, int] = {}  # fingerprint of (doc, response) -> batch number


def _fingerprint(doc: Mapping[str, Any], response: object) -> str:
    blob = json.dumps([doc, response], sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()


def judge_of(doc: Mapping[str, Any]) -> JudgeClient | None:
    """The client for the judge ``doc`` was loaded with (``judges.config_of``)."""
    return judges.client_for(judges.config_of(doc))


def correctness_judge_of(doc: Mapping[str, Any]) -> tuple[str, JudgeClient | None]:
    """(protocol, client) grading ``doc``'s answer (``judges.correctness_of``)."""
    protocol, config = judges.correctness_of(doc)
    return protocol, judges.client_for(config)


def _concurrent(client: JudgeClient | None) -> bool:
    return client is not None and client.config.concurrency >= 2


def schedule(benchmark: str, docs: Sequence[Mapping[str, Any]], responses: Sequence[str]) -> None:
    """Remember a task's documents and responses, by judges; ``judge_in_force`` sends them."""
    batches: dict[Judges, tuple[list[Mapping[str, Any]], list[str]]] = {}
    for doc, response in zip(docs, responses, strict=True):
        judge = judge_of(doc)
        correctness = correctness_judge_of(doc)[1] if benchmark == "scimif" else None
        if _concurrent(judge) or _concurrent(correctness):
            batch_docs, batch_responses = batches.setdefault((judge, correctness), ([], []))
            batch_docs.append(doc)
            batch_responses.append(response)
    with _lock:
        for pair, (batch_docs, batch_responses) in batches.items():
            number = next(_batches)
            _pending[number] = (benchmark, pair, batch_docs, batch_responses)
            for doc, response in zip(batch_docs, batch_responses, strict=True):
                _batch_of[_fingerprint(doc, response)] = number


def judge_in_force(doc: Mapping[str, Any], response: object) -> JudgeClient | None:
    """The judge for scoring ``response`` to ``doc`` (the one the document carries), after
    sending the judge questions of the batch it was scheduled in, if that has not happened."""
    judge = judge_of(doc)
    if not _batch_of:  # nothing scheduled: the common case costs one dict check
        return judge
    with _lock:  # concurrent scorers (sci-score) wait for the batch instead of racing it
        number = _batch_of.get(_fingerprint(doc, response))
        batch = _pending.pop(number, None) if number is not None else None
        if batch is not None:
            benchmark, (batch_judge, batch_correctness), docs, responses = batch
            for d, r in zip(docs, responses, strict=True):
                _batch_of.pop(_fingerprint(d, r), None)
            send(benchmark, docs, responses, batch_judge, batch_correctness)
    return judge


class JudgePrefetch(Filter):
    """lm-eval filter (``filter_list``): identity on the responses; schedules them so that
    scoring sends the task's judge questions concurrently (module docstring).

    In a task YAML, after ``take_first``::

        filter_list:
          - name: none
            filter:
              - function: take_first
              - function: !function sci_tasks.metrics.judge.prefetch.JudgePrefetch
                benchmark: scimif
    """

    def __init__(self, benchmark: str) -> None:
        super().__init__()
        if benchmark not in BENCHMARKS:
            raise ValueError(
                f"JudgePrefetch: unknown benchmark {benchmark!r} (one of {', '.join(BENCHMARKS)})"
            )
        self.benchmark = benchmark

    def apply(self, resps: Iterable[Any], docs: Sequence[Mapping[str, Any]]) -> list[Any]:
        resps = list(resps)
        if all(isinstance(r, str) for r in resps):
            schedule(self.benchmark, docs, resps)
        return resps
