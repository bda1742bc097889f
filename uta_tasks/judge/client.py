"""One item, one verdict: requests with bounded retries to an OpenAI-compatible endpoint.

This module decides what is retried:

- retried: HTTP 408, 409, 429 and 5xx, timeouts, connection errors, an HTTP-200 body
  that is not a chat completion (see :mod:`.reply`), and any reply that fails
  :func:`parse_reply` (bad JSON, schema violation, refusal, empty);
- ``finish_reason=length`` is retried only when sampling: at temperature 0 the same
  limit cuts the same reply, so the item is unjudged at once with advice to raise
  ``judge_max_tokens``;
- not retried: other HTTP 4xx (bad request, key rejected, model not found) and 429
  ``insufficient_quota``, except a 400 rejecting a parameter, which is adjusted (see
  :mod:`.params`) and sent again;
- wait before retry *n*: the ``Retry-After`` (or ``retry-after-ms``) the endpoint sent,
  else ``min(judge_backoff_max, judge_backoff_base * 2**(n-1))`` times a jitter in
  [0.5, 1) derived from the item (see :mod:`.backoff`);
- attempts per item: ``judge_max_retries + 1``; each request is bounded by
  ``judge_timeout`` seconds in total; how many are in flight is decided by
  :class:`~.concurrency.AdaptiveLimit` (``judge_concurrency`` at the start, up to
  ``judge_concurrency_max``).

Rate limiting is not a failure. An answer that says "come back later" (HTTP 429 other
than ``insufficient_quota``, or a 503 carrying ``Retry-After``) does not use up one of
the item's ``judge_max_retries``: the request is sent again after the ``Retry-After``
(else the exponential backoff, counted over rate-limited answers), for as long as the
item's rate-limit budget lasts. Each such wait is charged to the budget
(``judge_rate_limit_wait`` seconds per item), at least :data:`RATE_LIMIT_MIN_CHARGE`
seconds per answer, so an item makes at most ``judge_rate_limit_wait`` such free
retries. Once the budget is spent, rate-limited answers count as ordinary retryable
failures. ``judge_rate_limit_wait=0`` restores the old behaviour.

The HTTP transport is an aiohttp session per endpoint for the whole process
(:class:`~.transport.Endpoint`; why not the SDK: :mod:`.transport`). A "timeout" raised
before ``judge_timeout`` has passed is reported as the connection error it is
(:func:`_timed_out`).

Every attempt starts afresh: the outcome's reply text, ``model`` and
``system_fingerprint`` are those of the last attempt (None when it got no reply), and
its ``code`` (:mod:`.reasons`) says how the last attempt failed, which decides whether
an unjudged verdict may be cached.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any

import aiohttp

from uta_tasks.schema import reasons

from .backoff import backoff_delay, retry_after_seconds
from .concurrency import OK, OTHER, OVERLOAD, AdaptiveLimit
from .errors import ReplyError, TruncatedReply, UnreadableReply
from .params import RequestParams
from .parse import ParsedVerdict, parse_reply
from .redact import install_log_redaction, redact
from .reply import error_field, error_message, error_object, read_completion
from .settings import JudgeSettings
from .transport import Endpoint, Reply
from .urls import warn_key_transport

log = logging.getLogger(__name__)

_RETRYABLE_STATUS = {408, 409, 429}
_OVERLOAD_STATUS = {429, 503}
RATE_LIMIT_MIN_CHARGE = 1.0
_MAX_ADJUSTMENTS = 4
_ADJUSTED = "adjusted"
_ERROR_EXCERPT = 300  # bytes of a non-JSON error body kept in the reason


@dataclass
class CallOutcome:
    """What judging one item produced.

    Attributes:
        parsed: The verdict, or None when every attempt failed.
        reason: Why there is no verdict (None when parsed).
        code: Short code of how the last attempt failed (:mod:`.reasons`), None when parsed.
        raw_reply: Reply text of the last attempt (None when it got no reply).
        reply_model: ``model`` named by the last attempt's reply.
        system_fingerprint: ``system_fingerprint`` of the last attempt's reply.
        calls: Requests sent.
        rate_limited: Answers that said "come back later" (429, 503 with ``Retry-After``).
        input_tokens: Prompt tokens reported over those requests.
        output_tokens: Completion tokens reported over those requests.
    """

    parsed: ParsedVerdict | None = None
    reason: str | None = None
    code: str | None = None
    raw_reply: str | None = None
    reply_model: str | None = None
    system_fingerprint: str | None = None
    calls: int = 0
    rate_limited: int = 0
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass
class _Failure:
    reason: str
    code: str
    retryable: bool
    retry_after: float | None = None
    rate_limited: bool = False


class JudgeClient:
    """Sends judge requests for one run. Create and use inside one event loop.

    Args:
        settings: The judge settings.
        endpoint: The session to send through, shared with other runs and closed by its
            owner (:func:`.transport.shared_endpoint`); None: one of its own, closed by
            :meth:`close`.
    """

    def __init__(self, settings: JudgeSettings, endpoint: Endpoint | None = None) -> None:
        self.settings = settings
        self._secret = settings.api_key()
        install_log_redaction(self._secret)
        warn_key_transport(settings.base_url, settings.api_key_env, self._secret)
        self.params = RequestParams(settings)
        self.limit = AdaptiveLimit(settings.concurrency, settings.concurrency_max)
        self._owned = endpoint is None
        self._client = endpoint or Endpoint(settings.base_url, self._secret, settings.timeout)

    async def close(self) -> None:
        """Release the HTTP connections (of its own client; a shared one stays open)."""
        if self._owned:
            await self._client.close()

    async def judge(self, messages: list[dict[str, str]], key: str) -> CallOutcome:
        """Judge one prompt with retries.

        Args:
            messages: The rendered judge prompt.
            key: Stable identity of the item (seeds the backoff jitter, names it in logs).
        """
        outcome = CallOutcome()
        attempts = self.settings.max_retries + 1
        attempt = adjustments = 0
        budget = self.settings.rate_limit_wait
        delay = 0.0
        while attempt < attempts:
            if delay > 0:
                await asyncio.sleep(delay)
            attempt += 1
            failure = await self._attempt(messages, outcome)
            if failure is None:
                return outcome
            if failure.code == _ADJUSTED and adjustments < _MAX_ADJUSTMENTS:
                adjustments += 1
                attempt -= 1
                delay = 0.0
                continue
            outcome.reason, outcome.code = failure.reason, failure.code
            if failure.rate_limited:
                outcome.rate_limited += 1
                wait = self._rate_limit_delay(failure, outcome.rate_limited, key)
                if max(wait, RATE_LIMIT_MIN_CHARGE) <= budget:
                    budget -= max(wait, RATE_LIMIT_MIN_CHARGE)
                    attempt -= 1  # rate limiting is not a failure: the retry budget is untouched
                    delay = wait
                    log.debug("judge item %s rate limited (%s); retry in %.2fs", key[:12], failure.reason, wait)
                    continue
                outcome.reason = f"{failure.reason} (rate limited past judge_rate_limit_wait)"
            if not failure.retryable:
                outcome.reason = f"{failure.reason} (not retried)"
                break
            if attempt < attempts:
                delay = failure.retry_after if failure.retry_after is not None else backoff_delay(
                    attempt, self.settings.backoff_base, self.settings.backoff_max, key
                )
                log.info("judge item %s attempt %d/%d failed: %s; retry in %.2fs",
                         key[:12], attempt, attempts, failure.reason, delay)
        else:
            outcome.reason = f"no valid reply after {attempts} attempt(s); last: {outcome.reason}"
        log.warning("judge item %s unjudged: %s", key[:12], outcome.reason)
        return outcome

    def _rate_limit_delay(self, failure: _Failure, count: int, key: str) -> float:
        if failure.retry_after is not None:
            return failure.retry_after
        return backoff_delay(count, self.settings.backoff_base, self.settings.backoff_max, key)

    async def _attempt(self, messages: list[dict[str, str]], outcome: CallOutcome) -> _Failure | None:
        outcome.raw_reply = outcome.reply_model = outcome.system_fingerprint = None
        slot = await self.limit.acquire(again=outcome.calls > 0)
        signal, pause = OTHER, None
        try:
            request = self.params.build(messages)
            outcome.calls += 1
            sent = time.monotonic()
            try:
                reply = await self._client.post(request)
            except asyncio.TimeoutError as exc:  # aiohttp's ServerTimeoutError too
                if not _timed_out(sent, self.settings.timeout):
                    return _Failure(self._clean(f"connection error: {_say(exc.__cause__ or exc)}"), reasons.CONNECTION,
                                    retryable=True)
                signal = OVERLOAD
                return _Failure(f"timeout after {self.settings.timeout:g}s", reasons.TIMEOUT, retryable=True)
            except (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError) as exc:
                return _Failure(self._clean(f"connection error: {_say(exc)}"), reasons.CONNECTION, retryable=True)
            except aiohttp.ClientError as exc:
                return _Failure(self._clean(f"{type(exc).__name__}: {exc}"), reasons.CLIENT_ERROR, retryable=False)
            if reply.status >= 400:
                failure = self._status_failure(reply, request)
                if reply.status in _OVERLOAD_STATUS and failure.code != reasons.QUOTA:
                    signal = OVERLOAD
                    pause = failure.retry_after if failure.retry_after is not None else self.settings.backoff_base
                return failure
            signal = OK
        finally:
            self.limit.release(slot, signal, pause)
        return self._read(reply.body, outcome)

    def _read(self, body: bytes, outcome: CallOutcome) -> _Failure | None:
        try:
            completion = read_completion(body)
        except UnreadableReply as exc:
            return _Failure(self._clean(f"unreadable response body: {exc}"), reasons.UNREADABLE, retryable=True)
        outcome.input_tokens += completion.input_tokens
        outcome.output_tokens += completion.output_tokens
        outcome.raw_reply = completion.content
        outcome.reply_model = completion.model
        outcome.system_fingerprint = completion.system_fingerprint
        try:
            outcome.parsed = parse_reply(completion.content, completion.finish_reason, completion.refusal)
        except TruncatedReply:
            return self._length_failure()
        except ReplyError as exc:
            return _Failure(self._clean(f"invalid reply: {exc}"), reasons.INVALID_REPLY, retryable=True)
        outcome.reason = outcome.code = None
        return None

    def _length_failure(self) -> _Failure:
        cut = f"finish_reason=length: the reply was cut at judge_max_tokens={self.settings.max_tokens}"
        if self.params.send_temperature and self.settings.temperature == 0:
            return _Failure(
                f"{cut}; at temperature 0 the same limit cuts the same reply: raise judge_max_tokens",
                reasons.LENGTH, retryable=False,
            )
        return _Failure(f"{cut}; raise judge_max_tokens if this persists", reasons.LENGTH, retryable=True)

    def _status_failure(self, reply: Reply, request: dict[str, Any]) -> _Failure:
        status = reply.status
        error = error_object(reply.body)
        message = self._clean(error_message(error, reply.body[:_ERROR_EXCERPT].decode("utf-8", "replace")))
        if status == 400 and self.params.adjust(error_field(error, "param"), message, request):
            return _Failure(f"adjusted: {self.params.adjustments}", _ADJUSTED, retryable=True)
        if status == 429 and (error_field(error, "code") or error_field(error, "type")) == "insufficient_quota":
            return _Failure(f"HTTP 429 insufficient_quota: {message}", reasons.QUOTA, retryable=False)
        retryable = status in _RETRYABLE_STATUS or status >= 500
        retry_after = retry_after_seconds(reply.headers) if retryable else None
        code = reasons.RATE_LIMITED if status == 429 else reasons.HTTP_5XX if status >= 500 else reasons.HTTP_4XX
        come_back_later = status == 429 or (status == 503 and retry_after is not None)
        return _Failure(f"HTTP {status}: {message}", code, retryable=retryable, retry_after=retry_after,
                        rate_limited=come_back_later)

    def _clean(self, text: str) -> str:
        return redact(text, self._secret)


def _say(exc: BaseException) -> str:
    """An exception's message, else its class name (aiohttp's timeouts have no message)."""
    return str(exc) or type(exc).__name__


def _timed_out(sent: float, timeout: float) -> bool:
    """Whether a request sent at ``sent`` (monotonic seconds) has used up its ``timeout``.

    A timeout error raised sooner (a connection attempt the network stack gave up on) is a
    connection error; a real timeout comes after ``timeout`` seconds (a small margin allows
    for the clock's and the event loop's granularity).
    """
    return time.monotonic() - sent >= timeout * 0.99
