"""The one judge client: every LLM-judged check of every benchmark goes through it.

What it guarantees (spec ``judges.md``):

* configuration is data (``JudgeConfig``); the key is read from the environment variable
  the config NAMES, at call time, and is never stored, cached, logged or written out;
* replies are structured (JSON schema) and parsed strictly: the whole reply must be one
  JSON object valid against the schema; anything else is retried, then unscored. A judge
  with a documented free-text protocol (CompassVerifier's ``\\boxed{A}``) is asked with no
  schema, tools or ``response_format`` at all, and its reply is read by the request's own
  reader (``JudgeRequest.read_reply``) from the judge's own words only: what the reply
  repeats of the prompt is removed first, and a reply that mostly repeats it is unscored as
  ``echoed the prompt`` (``protocol.own_words``), retried and unscored the same way;
* a disk cache of the server's raw replies, keyed by judge model + full prompt + image
  hashes + decoding settings + schema + attempt number: re-scoring the same outputs makes
  zero calls and reaches the same verdicts;
* bounded concurrency: at most ``concurrency`` calls of one client in flight, however many
  threads score at once, and a question asked again while its first ask is in flight waits
  for that ask's reply instead of racing it to the server; retries by tenacity, with
  exponential backoff that honours ``Retry-After`` on 429 / 5xx and retries timeouts;
  every call has a timeout and a bounded number of attempts, so a run never hangs; each
  failure keeps its true reason;
* nothing a server sends takes a run down: an HTTP 200 body that is not a chat completion
  is retried, then unscored as ``malformed reply: ...``; a cache folder that cannot be
  written is skipped with one warning; after ``unavailable_after`` consecutive connection
  failures or timeouts the judge counts as down and its remaining verdicts are unscored at
  once (``judge unavailable``), so a dead judge costs bounded time, not attempts x timeout
  per verdict. ``ask`` never raises;
* what it cost is reported to the run's ledger (``usage``), per judge role.

The configuration is ``config.py``; the request and reply types, the chat request and the
strict reading of a reply are ``protocol.py`` (both re-exported here: this module is where
callers get a judge from).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import openai
from tenacity import (
    RetryCallState,
    RetryError,
    Retrying,
    retry_if_exception_type,
    stop_after_attempt,
    wait_random_exponential,
)

from sci_tasks.metrics.judge import usage
from sci_tasks.metrics.judge.config import JudgeConfig, default_cache_dir
from sci_tasks.metrics.judge.protocol import (
    EchoedPrompt,
    JudgeReply,
    JudgeRequest,
    MalformedReply,
    ReplyError,
    chat_messages,
    own_words,
    parse_strict,
    reply_content,
    reported_tokens,
    structured_output_args,
)

# what callers import from here (the judge package, scimif, tests)
__all__ = [
    "DiskCache",
    "JudgeClient",
    "JudgeConfig",
    "JudgeReply",
    "JudgeRequest",
    "ReplyError",
    "parse_strict",
    "reported_tokens",
]

log = logging.getLogger(__name__)

UNAVAILABLE = "judge unavailable"


class _Retryable(Exception):
    def __init__(self, reason: str, retry_after: float | None = None, down: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after
        self.down = down  # a connection failure or timeout: counts towards unavailable_after


class _Refused(Exception):
    """A 4xx other than 408 / 429: asking again cannot help (bad model name, bad key)."""


class JudgeClient:
    """Ask a judge model; cached, retried, bounded. Thread-safe; ``ask`` never raises."""

    def __init__(self, config: JudgeConfig) -> None:
        self.config = config
        self.calls = 0  # requests actually sent (cache misses x attempts)
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(config.concurrency)  # calls in flight
        self._asking: dict[str, Future[JudgeReply]] = {}  # questions in flight, by cache key
        self._http = openai.OpenAI(
            base_url=config.base_url,
            # The key is read from the named variable; absent keys still send a placeholder
            # because local servers (vllm serve, llama.cpp) accept any key.
            api_key=os.environ.get(config.api_key_env) or "no-key",
            timeout=config.timeout,
            max_retries=0,  # retries are ours: counted, bounded, honouring Retry-After
        )
        folder = Path(config.cache_dir or default_cache_dir()).expanduser()
        self._cache = DiskCache(folder) if config.cache else None
        self._memo: dict[str, str] = {}  # this process's replies, disk cache or not
        self._down_in_a_row = 0  # consecutive connection failures / timeouts
        self._unavailable = threading.Event()  # set: the judge is down for this run
        self._unavailable_reason = ""
        self._jitter = wait_random_exponential(
            multiplier=config.backoff_initial, max=config.backoff_max
        )

    # -- public ---------------------------------------------------------------------------

    @property
    def unavailable(self) -> str | None:
        """Why the judge counts as down for the rest of this run, or None."""
        return self._unavailable_reason if self._unavailable.is_set() else None

    def ask(self, request: JudgeRequest) -> JudgeReply:
        """One verdict: up to ``max_attempts`` replies, each served from the cache when the
        same attempt of the same request was answered before. Never raises: whatever goes
        wrong is an unscored reply with its reason. The run's ledger counts the question
        the first time the run asks it (``usage``)."""
        ledger = usage.current()
        try:
            key = self.cache_key(request)
        except Exception:  # an unreadable image: _ask reports it, as a question of its own
            return self._answered(request, ledger, first=True)
        with self._lock:
            asked = self._asking.get(key)
            if asked is None:
                mine = self._asking[key] = Future()
        if asked is not None:  # the same question in flight from another thread: its reply
            return asked.result()
        try:
            reply = self._answered(request, ledger, ledger.first_ask(request.role, key))
            mine.set_result(reply)
            return reply
        except BaseException as exc:
            mine.set_exception(exc)
            raise
        finally:
            with self._lock:
                del self._asking[key]

    def _answered(self, request: JudgeRequest, ledger: usage.Ledger, first: bool) -> JudgeReply:
        reply = self._ask(request)
        if first:
            ledger.answered(request.role, self.config.model, reply.ok, reply.cached)
        return reply

    def _ask(self, request: JudgeRequest) -> JudgeReply:
        reply, replayed = self._ask_once(request, fresh=False)
        if replayed:
            # a failure read back from an earlier run's disk cache is no verdict: that run's
            # judge may have been broken since fixed, so the question is asked again
            reply, _ = self._ask_once(request, fresh=True)
        return reply

    def _ask_once(self, request: JudgeRequest, fresh: bool) -> tuple[JudgeReply, bool]:
        """One round of up to ``max_attempts``; with ``fresh`` no attempt is read from the
        cache (its reply replaces the stored one). Also says whether the round failed with
        some reply read from the disk cache."""
        cfg = self.config
        sent = [False]  # whether any attempt went to the server (else: all from the cache)
        from_disk = [False]
        attempt = 0
        try:
            base_key = self.cache_key(request)
            for trial in self._retrying():
                with trial:
                    attempt = trial.retry_state.attempt_number
                    key = f"{base_key}-{attempt}"
                    reply = self._attempt(request, key, attempt, sent, from_disk, fresh)
                    return reply, False
        except RetryError as exc:  # every attempt failed: the last one's reason
            last = exc.last_attempt.exception()
            reason = f"{_reason(last)} (after {cfg.max_attempts} attempts)"
            replayed = from_disk[0] and not fresh
            if not replayed:
                log.warning("judge %s: %s", cfg.model, reason)
            reply = JudgeReply(
                None, reason, cfg.model, request.prompt_version, cfg.max_attempts, not sent[0]
            )
            return reply, replayed
        except Exception as exc:  # a bug or an unreadable image must not end the run
            reason = f"judge client error: {type(exc).__name__}: {exc}"
            log.warning("judge %s: %s", cfg.model, reason)
            return JudgeReply(None, reason, cfg.model, request.prompt_version, attempt), False
        raise AssertionError("unreachable: tenacity either returns or raises RetryError")

    def ask_many(self, requests: Sequence[JudgeRequest]) -> list[JudgeReply]:
        """All requests, at most ``config.concurrency`` in flight; order is kept."""
        if len(requests) <= 1 or self.config.concurrency == 1:
            return [self.ask(r) for r in requests]
        with ThreadPoolExecutor(max_workers=self.config.concurrency) as pool:
            return list(pool.map(self.ask, requests))

    def backoff(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait after transient failure number ``attempt``: the server's
        Retry-After (capped at ``backoff_max``), else tenacity's exponential backoff with full
        jitter (uniform in 0 .. min(backoff_max, backoff_initial * 2**(attempt-1))), so
        concurrent workers do not retry in lockstep."""
        if retry_after is not None:
            return min(retry_after, self.config.backoff_max)
        state = RetryCallState(Retrying(), None, (), {})
        state.attempt_number = attempt
        return float(self._jitter(state))

    def cache_key(self, request: JudgeRequest) -> str:
        material = {
            "model": self.config.model,
            "system": request.system,
            "prompt": request.prompt,
            "images": [_file_sha256(p) for p in request.images],
            "schema": request.schema,
            "temperature": self.config.temperature,
            "max_tokens": self.config.max_tokens,
            "structured_output": self.config.structured_output,
        }
        blob = json.dumps(material, sort_keys=True, ensure_ascii=False).encode()
        return hashlib.sha256(blob).hexdigest()

    # -- internals ------------------------------------------------------------------------

    def _retrying(self) -> Retrying:
        """tenacity's loop: unparseable replies and transient failures are retried, at most
        ``max_attempts`` in all; the wait is woken at once when the judge goes down."""
        return Retrying(
            stop=stop_after_attempt(self.config.max_attempts),
            wait=self._wait,
            sleep=self._sleep,
            retry=retry_if_exception_type((ReplyError, _Retryable)),
        )

    def _attempt(
        self,
        request: JudgeRequest,
        key: str,
        attempt: int,
        sent: list[bool],
        disk: list[bool],
        fresh: bool,
    ) -> JudgeReply:
        """One attempt: a reply (verdict, refusal or judge down), or ReplyError / _Retryable
        to try again. ``disk[0]`` is set when the reply came from the disk cache; ``fresh``:
        the cache is not read."""
        cfg = self.config
        content = None if fresh else self._cached(key, disk)
        if content is None:
            if self._unavailable.is_set():  # cached replies still count
                return self._reply_unavailable(request, attempt - 1)
            sent[0] = True
            try:
                content = self._call(request, attempt)
            except _Retryable as exc:
                if self._count_failure(exc):
                    return self._reply_unavailable(request, attempt)
                raise
            except _Refused as exc:
                log.warning("judge %s: %s", cfg.model, exc)
                return JudgeReply(None, str(exc), cfg.model, request.prompt_version, attempt)
            self._store(key, content)
        if request.read_reply is not None:
            data = request.read_reply(own_words(content, request.prompt))
        else:
            assert request.schema is not None
            data = parse_strict(content, request.schema)
        return JudgeReply(data, None, cfg.model, request.prompt_version, attempt, not sent[0])

    def _wait(self, state: RetryCallState) -> float:
        # no wait before asking again after an unparseable reply
        exc = state.outcome.exception() if state.outcome else None
        if not isinstance(exc, _Retryable):
            return 0.0
        return self.backoff(state.attempt_number, exc.retry_after)

    def _sleep(self, seconds: float) -> None:
        self._unavailable.wait(seconds)  # woken at once if the judge goes down meanwhile

    def _count_failure(self, exc: _Retryable) -> bool:
        """Count a connection failure / timeout; True when it makes the judge unavailable."""
        threshold = self.config.unavailable_after
        if not exc.down or threshold == 0:
            return False
        with self._lock:
            self._down_in_a_row += 1
            if self._down_in_a_row < threshold or self._unavailable.is_set():
                return self._unavailable.is_set()
            self._unavailable_reason = (
                f"{UNAVAILABLE}: {threshold} connection failures or timeouts in a row "
                f"(last: {exc.reason})"
            )
            self._unavailable.set()
        log.warning(
            "judge %s: %s; its remaining verdicts are unscored",
            self.config.model,
            self._unavailable_reason,
        )
        return True

    def _reply_unavailable(self, request: JudgeRequest, attempts: int) -> JudgeReply:
        return JudgeReply(
            None, self._unavailable_reason, self.config.model, request.prompt_version, attempts
        )

    def _cached(self, key: str, disk: list[bool]) -> str | None:
        content = self._memo.get(key)
        cache = self._cache
        if content is None and cache is not None:
            content = cache.get(key)
            disk[0] = disk[0] or content is not None
        return content

    def _store(self, key: str, content: str) -> None:
        # Only replies the server actually sent (HTTP 200) are kept, parseable or not: at
        # temperature 0 the same request gets the same reply, and the raw text is re-parsed
        # on every re-score (an unparseable attempt before a verdict replays to the same
        # verdict; a question that ends unparsed from disk is asked again, ``_ask``).
        # Transport failures and malformed bodies are never cached.
        self._memo[key] = content
        cache = self._cache  # one read: another thread may switch it off meanwhile
        if cache is None:
            return
        try:
            cache.put(key, content)
        except OSError as exc:
            # the reply is kept (memo); only the disk copy is lost, so say it once
            with self._lock:
                if self._cache is None:
                    return
                self._cache = None
            log.warning(
                "judge cache %s cannot be written (%s): judge replies of this run are "
                "not cached on disk",
                cache.folder,
                exc.strerror or exc,
            )

    def _call(self, request: JudgeRequest, attempt: int = 1) -> str:
        ledger = usage.current()
        with self._slots:  # at most ``concurrency`` calls in flight, from any thread
            ledger.call_started(request.role, retry=attempt > 1)
            tokens: tuple[int, int] | None = None
            try:
                content, tokens = self._send(request)
            finally:
                ledger.call_ended(request.role, tokens)
        return content

    def _send(self, request: JudgeRequest) -> tuple[str, tuple[int, int] | None]:
        """One HTTP request: the reply text and the (prompt, completion) tokens its
        ``usage`` reports (None: none reported)."""
        cfg = self.config
        kwargs = structured_output_args(cfg.structured_output, request.schema)
        with self._lock:
            self.calls += 1
        try:
            # the raw body: what a server sends is checked here, not trusted to be a
            # chat completion (an HTML error page with HTTP 200, an empty body, ...)
            raw = self._http.chat.completions.with_raw_response.create(
                model=cfg.model,
                messages=chat_messages(request),  # type: ignore[arg-type]
                temperature=cfg.temperature,
                max_tokens=cfg.max_tokens,
                **kwargs,
            )
            body = raw.http_response.content
            content_type = raw.headers.get("content-type", "")
        except openai.APITimeoutError:
            raise _Retryable(f"timeout after {cfg.timeout:g}s", down=True) from None
        except openai.APIConnectionError as exc:
            raise _Retryable(f"connection error: {exc}", down=True) from None
        except openai.APIStatusError as exc:
            status = exc.status_code
            self._reachable()
            if status == 429:
                raise _Retryable("rate limited (HTTP 429)", _retry_after(exc)) from None
            if status == 504 or status == 408:
                raise _Retryable(f"timeout (HTTP {status})", _retry_after(exc), True) from None
            if status >= 500:
                raise _Retryable(f"server error (HTTP {status})", _retry_after(exc)) from None
            raise _Refused(f"request refused (HTTP {status})") from None
        self._reachable()
        tool = "tools" in kwargs  # the reply is the forced function call's arguments
        try:
            return reply_content(body, content_type, tool=tool), reported_tokens(body)
        except MalformedReply as exc:
            raise _Retryable(f"malformed reply: {exc}") from None

    def _reachable(self) -> None:
        with self._lock:
            self._down_in_a_row = 0


def _reason(exc: BaseException | None) -> str:
    if isinstance(exc, EchoedPrompt):
        return str(exc)
    if isinstance(exc, ReplyError):
        return f"unparseable reply: {exc}"
    if isinstance(exc, _Retryable):
        return exc.reason
    return str(exc)


def _retry_after(exc: openai.APIStatusError) -> float | None:
    value = exc.response.headers.get("retry-after") if exc.response is not None else None
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff


def _file_sha256(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


class DiskCache:
    """One small JSON file per key, written atomically: a killed run leaves no torn entry."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> str | None:
        try:
            value = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        content = value.get("content") if isinstance(value, dict) else None
        return content if isinstance(content, str) else None

    def put(self, key: str, content: str) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps({"content": content}, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
