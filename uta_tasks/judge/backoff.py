"""How long to wait before a retry: exponential backoff with jitter, or ``Retry-After``.

The jitter is a pure function of the item and the attempt number (a hash), so it needs
no random generator and runs are reproducible; it only spreads retries in time and
never affects verdicts.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Mapping
from datetime import timezone
from email.utils import parsedate_to_datetime

RETRY_AFTER_CAP = 300.0


def backoff_delay(attempt: int, base: float, cap: float, key: str) -> float:
    """Delay before retry number ``attempt`` (1-based): ``min(cap, base * 2**(attempt-1))``
    scaled by a jitter factor in [0.5, 1.0).

    Args:
        attempt: 1 for the first retry.
        base: ``judge_backoff_base`` seconds.
        cap: ``judge_backoff_max`` seconds.
        key: Stable identity of the item (seeds the jitter).
    """
    exponential = min(cap, base * (2 ** max(0, attempt - 1)))
    digest = hashlib.sha256(f"{key}:{attempt}".encode()).digest()
    fraction = int.from_bytes(digest[:8], "big") / 2**64
    return exponential * (0.5 + 0.5 * fraction)


def retry_after_seconds(headers: Mapping[str, str] | None, now: float | None = None) -> float | None:
    """Read ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date).

    Args:
        headers: Response headers (case-insensitive mapping such as httpx's).
        now: Current epoch time, for date values (default: ``time.time()``).

    Returns:
        Seconds to wait (capped at :data:`RETRY_AFTER_CAP`), or None if absent or unreadable.
    """
    if not headers:
        return None
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        seconds: float | None
        try:
            seconds = float(value) / divisor
        except ValueError:
            seconds = _from_date(value, now)
        if seconds is not None and math.isfinite(seconds):
            return min(max(seconds, 0.0), RETRY_AFTER_CAP)
    return None


def _from_date(value: str, now: float | None) -> float | None:
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:  # "-0000" (RFC 5322: UTC, source zone unknown) parses as naive: it is UTC
        when = when.replace(tzinfo=timezone.utc)
    return when.timestamp() - (time.time() if now is None else now)
