"""Keep secrets out of every string the judge produces (reasons, errors, logs): the API
key, anything shaped like one, bearer tokens, and credentials inside URLs.

:func:`install_log_redaction` adds a filter to the loggers of the HTTP stack the openai
SDK uses (``httpx``/``httpx2``, ``httpcore``/``httpcore2``, ``openai``), whose INFO and
DEBUG lines print full request URLs: userinfo (``user:pass@``) and secret-looking query
values are masked there, and so is the API key in use.
"""

from __future__ import annotations

import logging
import re
import threading

MASK = "[REDACTED]"
# OpenAI-style keys, also the partly masked forms some endpoints echo back ("sk-ab****cd").
_KEY_LIKE = re.compile(r"\bsk-[A-Za-z0-9_\-*.]{6,}")
_BEARER = re.compile(r"(?i)(bearer\s+)\S+")
# scheme://user:pass@host or scheme://token@host
_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^/\s@?#]+@")
# ?key=..., &api_key=..., &sig=... (the same names urls.py refuses)
_SECRET_QUERY = re.compile(
    r"(?i)([?&](?:key|apikey|api[-_]?key|x[-_]api[-_]key|[a-z0-9_\-]*[-_]key|[a-z0-9_\-]*token|[a-z0-9_\-]*secret"
    r"|password|passwd|pwd|auth|authorization|sig|signature|credentials?|code)=)[^&#\s\"']*"
)
TRANSPORT_LOGGERS = (
    "httpx", "httpx2", "httpcore", "httpcore2",
    *(f"httpcore{suffix}.{part}" for suffix in ("", "2")
      for part in ("connection", "http11", "http2", "proxy", "socks")),
    "openai", "openai._base_client", "openai._response", "openai._legacy_response",
)


def redact(text: str, secret: str | None) -> str:
    """Remove ``secret``, anything that looks like an API key and URL credentials from ``text``.

    Args:
        text: Any message about to be logged, raised or stored.
        secret: The API key in use (may be None).

    Returns:
        The text with secrets replaced by ``[REDACTED]``.
    """
    if secret and len(secret) >= 4:
        text = text.replace(secret, MASK)
    text = _BEARER.sub(lambda match: match.group(1) + MASK, text)
    text = _URL_USERINFO.sub(lambda match: match.group(1) + MASK + "@", text)
    text = _SECRET_QUERY.sub(lambda match: match.group(1) + MASK, text)
    return _KEY_LIKE.sub(MASK, text)


class RedactingFilter(logging.Filter):
    """Rewrites a log record's message with :func:`redact` (known keys included)."""

    def __init__(self) -> None:
        super().__init__()
        self._secrets: set[str] = set()
        self._lock = threading.Lock()

    def add_secret(self, secret: str | None) -> None:
        """Also mask this exact string (the API key of a run).

        Args:
            secret: The key, or None.
        """
        if secret and len(secret) >= 4:
            with self._lock:
                self._secrets.add(secret)

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a malformed record is logging's business, not ours
            return True
        cleaned = redact(message, None)
        with self._lock:
            secrets = tuple(self._secrets)
        for secret in secrets:
            cleaned = cleaned.replace(secret, MASK)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


_FILTER = RedactingFilter()


def install_log_redaction(secret: str | None = None) -> None:
    """Attach the redacting filter to the transport loggers (idempotent).

    Args:
        secret: The API key of the run, masked wherever it appears.
    """
    _FILTER.add_secret(secret)
    for name in TRANSPORT_LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
