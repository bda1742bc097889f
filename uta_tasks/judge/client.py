"""One item, one verdict: requests with bounded retries through ``openai.AsyncOpenAI``.

The SDK's own retries are off (``max_retries=0``); this module retries instead:

- retried: HTTP 408, 409, 429 and 5xx, timeouts, connection errors, a response
  body that cannot be read, and any reply that fails :func:`parse_reply`
  (bad JSON, schema violation, ``finish_reason=length``, refusal, empty);
- not retried: other HTTP 4xx (bad request, key rejected, model not found), except a
  400 rejecting a parameter, which is adjusted (see :mod:`.params`) and sent again;
- wait before retry *n*: the ``Retry-After`` (or ``retry-after-ms``) the endpoint sent,
  else ``min(judge_backoff_max, judge_backoff_base * 2**(n-1))`` times a jitter in
  [0.5, 1) derived from the item (see :mod:`.backoff`);
- attempts per item: ``judge_max_retries + 1``; each request is bounded by
  ``judge_timeout`` seconds in total; at most ``judge_concurrency`` are in flight.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

import openai

from .backoff import backoff_delay, retry_after_seconds
from .errors import ReplyError
from .params import RequestParams
from .parse import ParsedVerdict, parse_reply
from .redact import redact
from .settings import JudgeSettings

log = logging.getLogger(__name__)

_RETRYABLE_STATUS = {408, 409, 429}
_MAX_ADJUSTMENTS = 4


@dataclass
class CallOutcome:
    """What judging one item produced.

    Attributes:
        parsed: The verdict, or None when every attempt failed.
        reason: Why there is no verdict (None when parsed).
        raw_reply: Reply text of the last attempt that returned one.
        calls: Requests sent.
        input_tokens: Prompt tokens reported over those requests.
        output_tokens: Completion tokens reported over those requests.
    """

    parsed: ParsedVerdict | None = None
    reason: str | None = None
    raw_reply: str | None = None
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass
class _Failure:
    reason: str
    retryable: bool
    retry_after: float | None = None


class JudgeClient:
    """Sends judge requests for one run. Create and use inside one event loop.

    Args:
        settings: The judge settings.
    """

    def __init__(self, settings: JudgeSettings) -> None:
        self.settings = settings
        self._secret = settings.api_key()
        self.params = RequestParams(settings)
        self._semaphore = asyncio.Semaphore(settings.concurrency)
        self._client = openai.AsyncOpenAI(
            api_key=self._secret or "no-key",
            base_url=settings.base_url,
            max_retries=0,
            timeout=settings.timeout,
        )

    async def close(self) -> None:
        """Release the HTTP connections."""
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
        delay = 0.0
        while attempt < attempts:
            if delay > 0:
                await asyncio.sleep(delay)
            attempt += 1
            failure = await self._attempt(messages, outcome)
            if failure is None:
                return outcome
            if failure.reason.startswith("adjusted:") and adjustments < _MAX_ADJUSTMENTS:
                adjustments += 1
                attempt -= 1
                delay = 0.0
                continue
            outcome.reason = failure.reason
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

    async def _attempt(self, messages: list[dict[str, str]], outcome: CallOutcome) -> _Failure | None:
        async with self._semaphore:
            request = self.params.build(messages)
            outcome.calls += 1
            try:
                response = await asyncio.wait_for(
                    self._client.chat.completions.create(**request),
                    timeout=self.settings.timeout,
                )
            except (asyncio.TimeoutError, openai.APITimeoutError):
                return _Failure(f"timeout after {self.settings.timeout:g}s", retryable=True)
            except openai.APIStatusError as exc:
                return self._status_failure(exc, request)
            except openai.APIConnectionError as exc:
                return _Failure(self._clean(f"connection error: {exc}"), retryable=True)
            except (openai.APIResponseValidationError, ValueError, TypeError) as exc:
                return _Failure(self._clean(f"unreadable response body: {exc}"), retryable=True)
            except openai.OpenAIError as exc:
                return _Failure(self._clean(f"{type(exc).__name__}: {exc}"), retryable=False)
        return self._read(response, outcome)

    def _read(self, response: Any, outcome: CallOutcome) -> _Failure | None:
        usage = getattr(response, "usage", None)
        if usage is not None:
            outcome.input_tokens += int(getattr(usage, "prompt_tokens", 0) or 0)
            outcome.output_tokens += int(getattr(usage, "completion_tokens", 0) or 0)
        choices = getattr(response, "choices", None)
        if not choices:
            return _Failure("reply has no choices", retryable=True)
        choice = choices[0]
        message = getattr(choice, "message", None)
        content = getattr(message, "content", None)
        outcome.raw_reply = content if isinstance(content, str) else None
        try:
            outcome.parsed = parse_reply(
                outcome.raw_reply,
                finish_reason=getattr(choice, "finish_reason", None),
                refusal=getattr(message, "refusal", None),
            )
        except ReplyError as exc:
            return _Failure(self._clean(f"invalid reply: {exc}"), retryable=True)
        outcome.reason = None
        return None

    def _status_failure(self, exc: openai.APIStatusError, request: dict[str, Any]) -> _Failure:
        status = exc.status_code
        message = self._clean(_error_message(exc))
        if status == 400 and self.params.adjust(_error_param(exc), message, request):
            return _Failure(f"adjusted: {self.params.adjustments}", retryable=True)
        retryable = status in _RETRYABLE_STATUS or status >= 500
        retry_after = retry_after_seconds(exc.response.headers) if retryable else None
        return _Failure(f"HTTP {status}: {message}", retryable=retryable, retry_after=retry_after)

    def _clean(self, text: str) -> str:
        return redact(text, self._secret)


def _error_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
    return exc.message or str(exc)


def _error_param(exc: openai.APIStatusError) -> str | None:
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("param"), str):
            return inner["param"]
    return None
