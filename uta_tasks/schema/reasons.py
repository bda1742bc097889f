"""Why an item is unjudged, as a short code (for summaries and for the cache policy).

The code is stored on each :class:`~uta_tasks.schema.verdict.Verdict` (``reason_code``).
Only :data:`INVALID_REPLY` is cached: the endpoint answered, the answer was paid for and
was not a valid verdict. Everything else (outages, truncation at the token limit,
unreadable bodies, rejected requests) is retried by the next run.
"""

from __future__ import annotations

INVALID_REPLY = "invalid_reply"  # bad JSON, schema violation, refusal, empty, content filter
LENGTH = "length"  # finish_reason=length at judge_max_tokens
UNREADABLE = "unreadable_reply"  # HTTP 200 that is not a chat completion
RATE_LIMITED = "rate_limited"  # HTTP 429
QUOTA = "insufficient_quota"  # HTTP 429 with code insufficient_quota (not retried)
HTTP_4XX = "http_4xx"
HTTP_5XX = "http_5xx"
TIMEOUT = "timeout"
CONNECTION = "connection"
CLIENT_ERROR = "client_error"  # any other error of the HTTP client (an invalid URL, too many redirects...)
INTERNAL = "internal_error"  # a bug while judging one item; the others go on
DISABLED = "disabled"  # judge=none

CACHEABLE_UNJUDGED = frozenset({INVALID_REPLY})

_LEGACY_MARKERS = (
    ("finish_reason=length", LENGTH),
    ("invalid reply", INVALID_REPLY),
    ("unreadable", UNREADABLE),
    ("HTTP 429", RATE_LIMITED),
    ("HTTP 5", HTTP_5XX),
    ("HTTP 4", HTTP_4XX),
    ("timeout", TIMEOUT),
    ("connection error", CONNECTION),
    ("judging disabled", DISABLED),
)


def code_from_reason(reason: str | None) -> str:
    """The code of a verdict written before codes existed, read from its reason text
    (the last failure is at the end of the reason).

    Args:
        reason: ``Verdict.reason``.
    """
    text = reason or ""
    last = text.rsplit("last: ", 1)[-1]
    for marker, code in _LEGACY_MARKERS:
        if marker in last:
            return code
    return INTERNAL
