"""Library messages that say nothing to a sci-tasks user, filtered at the logger that emits
them (a ``logging.Filter`` on that logger: that message only, everything else it logs stays):

* ``lm_eval.api.task``: "<task>: Custom kwargs can be passed to `--metadata` ...", logged
  twice per task that has a ``custom_dataset``; our tasks read their settings exactly that
  way (data locations, judges). Kept for tasks that are not ours.
* ``lm_eval.evaluator``: "generation_kwargs: ... specified through cli ... Ensure
  'do_sample=True' for non-greedy decoding!", logged on every run given ``gen_kwargs``
  (sci-eval's model configs set them; greedy is what the benchmarks ask for).
* ``httpx`` (and ``httpx2``, the fork openai 3 uses): its INFO line per request ("HTTP
  Request: POST ... 200 OK"), one per judge or API call (172 of 263 lines of a ``sci-score``
  run). Its warnings and errors stay.

Installed when ``sci_tasks`` is imported, which every sci-* command and every lm-eval run of
our tasks does (their YAMLs name our hooks).

Not a log record: lm-eval's ``git describe --always`` (its results' ``git_hash``) prints
``fatal: not a git repository`` on the process's stderr when the working folder is in no
checkout. ``quiet_git_lookup`` sends that one call's stderr (the file descriptor, which the
git child inherits) to the null device.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

CUSTOM_KWARGS = ": Custom kwargs can be passed to `--metadata`"
DO_SAMPLE = "Ensure 'do_sample=True' for non-greedy decoding"
HTTPX_REQUEST = "HTTP Request: "


class _Drop(logging.Filter):
    """Drops the records ``drop`` says are the noise; the logger's other records pass."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            return not self.drop(record)
        except Exception:  # a record we cannot read is shown, never lost
            return True

    def drop(self, record: logging.LogRecord) -> bool:
        raise NotImplementedError


class OurCustomKwargs(_Drop):
    def drop(self, record: logging.LogRecord) -> bool:
        message = str(record.msg)
        if CUSTOM_KWARGS not in message:
            return False
        from sci_tasks import registry

        return registry.of_task(message.split(CUSTOM_KWARGS, 1)[0]) is not None


class GreedyDecodingAdvice(_Drop):
    def drop(self, record: logging.LogRecord) -> bool:
        return DO_SAMPLE in str(record.msg)


class HttpxRequestLine(_Drop):
    def drop(self, record: logging.LogRecord) -> bool:
        return record.levelno == logging.INFO and str(record.msg).startswith(HTTPX_REQUEST)


FILTERS: dict[str, type[_Drop]] = {
    "lm_eval.api.task": OurCustomKwargs,
    "lm_eval.evaluator": GreedyDecodingAdvice,
    "httpx": HttpxRequestLine,
    "httpx2": HttpxRequestLine,  # the fork openai 3 sends its requests with
}


def install() -> None:
    """Each filter on its logger, once (a second import adds none)."""
    for name, kind in FILTERS.items():
        logger = logging.getLogger(name)
        if not any(isinstance(f, kind) for f in logger.filters):
            logger.addFilter(kind())


@contextmanager
def stderr_to_null() -> Iterator[None]:
    """File descriptor 2 sent to the null device for the block: what a child process writes
    there too (``contextlib.redirect_stderr`` moves only Python's ``sys.stderr``)."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


Result = TypeVar("Result")


def without_stderr(call: Callable[[], Result]) -> Callable[[], Result]:
    def quiet() -> Result:
        with stderr_to_null():
            return call()

    return quiet


@contextmanager
def quiet_git_lookup() -> Iterator[None]:
    """lm-eval's run with its git lookup's stderr to the null device: lm-eval's own
    ``get_git_commit_hash`` runs and records what it finds (``None`` outside a checkout);
    only git's ``fatal:`` line is gone. For this block only."""
    import lm_eval.evaluator

    evaluator: Any = lm_eval.evaluator
    lookup = evaluator.get_git_commit_hash
    evaluator.get_git_commit_hash = without_stderr(lookup)
    try:
        yield
    finally:
        evaluator.get_git_commit_hash = lookup
