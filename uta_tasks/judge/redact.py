"""Keep secrets out of every string the judge produces (reasons, errors, logs): the API
key, anything shaped like one, bearer tokens, and credentials inside URLs.

- Every URL loses its userinfo, whatever the password holds (``@``, ``/``, ``:``...): all
  of ``scheme://...@`` up to the last ``@`` before a space or quote is masked.
- lm-eval's ``model_args`` are redacted by structure, not by names
  (:func:`redact_model_args`): the value of every key not on :data:`HARMLESS_MODEL_ARGS`
  (``pretrained``, ``dtype``, ``max_model_len``, ``base_url``...) is masked, whatever its
  spelling, quoting, commas, headers or dicts; the harmless ones keep their value with URL
  userinfo and secret query values masked. A piece that is not ``key=value`` is masked.
  :func:`redact_value` applies this to every ``model_args`` key of the data it walks, and
  the name rules below to every other string. ``uta-summary`` (and so the report and the
  gate) and ``uta-rejudge`` write only redacted copies.

:func:`install_log_redaction` adds a filter to the loggers of the HTTP stack the openai
SDK uses (``httpx``/``httpx2``, ``httpcore``/``httpcore2``, ``openai``), whose INFO and
DEBUG lines print full request URLs: userinfo (``user:pass@``) and secret-looking query
values are masked there, and so is the API key in use.
"""

from __future__ import annotations

import logging
import re
import threading
from typing import Any

MASK = "[REDACTED]"
# OpenAI-style keys, also the partly masked forms some endpoints echo back ("sk-ab****cd").
_KEY_LIKE = re.compile(r"\bsk-[A-Za-z0-9_\-*.]{6,}")
_BEARER = re.compile(r"(?i)(bearer\s+)[^\s'\",}]+")
# scheme://user:pass@host or scheme://token@host: up to the LAST @ before a space or quote, so
# that a password holding @, / or : is masked whole (a URL with an @ later in its path or
# query loses a little more than its userinfo, never less).
_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^\s'\"<>`]*@")
# ?key=..., &api_key=..., &sig=... (the same names urls.py refuses)
_SECRET_QUERY = re.compile(
    r"(?i)([?&](?:key|apikey|api[-_]?key|x[-_]api[-_]key|[a-z0-9_\-]*[-_]key|[a-z0-9_\-]*token|[a-z0-9_\-]*secret"
    r"|password|passwd|pwd|auth|authorization|sig|signature|credentials?|code)=)[^&#\s\"']*"
)
# Names of settings and headers that hold a credential.
_SECRET_NAME = (r"(?:api[-_]?key|apikey|x[-_]api[-_]key|[a-z0-9_\-]*[-_]key|[a-z0-9_\-]*token|[a-z0-9_\-]*secret"
                r"|password|passwd|pwd|authorization|proxy[-_]authorization|credentials?|cookie)")
# model_args strings: api_key=..., token=... (comma-separated); dict literals: 'api-key': '...'
_SECRET_ASSIGN = re.compile(rf"(?i)((?:^|(?<=[,\s{{(]))['\"]?{_SECRET_NAME}['\"]?\s*[=:]\s*['\"]?)[^'\",}}&\s]*(?:\s+[^'\",}}&\s]+)?")
_BASIC = re.compile(r"(?i)(basic\s+)[A-Za-z0-9+/=_\-.]+")
_SECRET_KEY = re.compile(rf"(?i)^{_SECRET_NAME}$")
# model_args keys whose values are kept: what names the model and how it is run, never a
# credential. Every other key's value is masked.
HARMLESS_MODEL_ARGS = frozenset({
    "pretrained", "model", "peft", "delta", "path", "engine", "revision", "tokenizer", "tokenizer_mode",
    "dtype", "device", "batch_size", "max_batch_size", "max_length", "max_model_len", "max_gen_toks",
    "tensor_parallel_size", "data_parallel_size", "pipeline_parallel_size", "gpu_memory_utilization",
    "trust_remote_code", "enforce_eager", "seed", "add_bos_token", "parallelize", "quantization",
    "num_concurrent", "max_retries", "timeout", "tokenized_requests", "think_end_token", "enable_thinking",
    "base_url", "swap_space", "max_num_seqs", "kv_cache_dtype",
})
# the top-level pieces of a model_args string: commas outside quotes and brackets split them
_PIECE = re.compile(r"""(?:'[^']*'?|"[^"]*"?|\{[^}]*\}?|\[[^\]]*\]?|\([^)]*\)?|[^,'"{\[(])+""")
_KEY_VALUE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_.\-]*)\s*=(.*)$", re.DOTALL)
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


def redact_value(value: Any, secret: str | None = None) -> Any:
    """A copy of JSON-like data with every credential masked (see the module's rules).

    Args:
        value: dicts, lists, strings, scalars (e.g. lm-eval's ``config``).
        secret: an exact key to mask as well.

    Returns:
        The same structure; the value of every ``model_args`` key through
        :func:`redact_model_args`, other strings through :func:`redact` plus the
        ``name=value`` rules, and the whole value of any dict key named like a credential.
    """
    if isinstance(value, str):
        text = _BASIC.sub(lambda match: match.group(1) + MASK, redact(value, secret))
        return _SECRET_ASSIGN.sub(lambda match: match.group(1) + MASK, text)
    if isinstance(value, dict):
        return {key: (redact_model_args(value_, secret) if key == "model_args"
                      else MASK if isinstance(key, str) and _SECRET_KEY.match(key) and value_ is not None
                      and not isinstance(value_, (bool, int, float)) else redact_value(value_, secret))
                for key, value_ in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_value(item, secret) for item in value]
    return value


def redact_model_args(value: Any, secret: str | None = None) -> Any:
    """lm-eval's ``model_args`` (a ``key=value,...`` string or a dict) with the value of every
    key not on :data:`HARMLESS_MODEL_ARGS` masked, and URL credentials masked in the rest.

    Args:
        value: the ``model_args`` as lm-eval recorded them.
        secret: an exact key to mask as well.

    Returns:
        The same shape: a string stays a string, a dict a dict; anything else is masked.
    """
    if value is None:
        return None
    if isinstance(value, dict):
        return {key: (_harmless(value_, secret) if str(key).strip().lower() in HARMLESS_MODEL_ARGS
                      else (value_ if value_ is None else MASK))
                for key, value_ in value.items()}
    if not isinstance(value, str):
        return MASK
    pieces: list[str] = []
    for piece in _PIECE.findall(value):
        found = _KEY_VALUE.match(piece)
        if found and found.group(1).lower() in HARMLESS_MODEL_ARGS:
            pieces.append(f"{found.group(1)}={redact(found.group(2), secret)}")
        elif found:
            pieces.append(f"{found.group(1)}={MASK}")
        elif not pieces or not pieces[-1].endswith(MASK):  # a piece that is not key=value: masked once
            pieces.append(MASK)
    return ",".join(pieces)


def _harmless(value: Any, secret: str | None) -> Any:
    """The value of a harmless model_args key: strings lose URL credentials, containers are masked."""
    if isinstance(value, str):
        return redact(value, secret)
    return value if value is None or isinstance(value, (bool, int, float)) else MASK


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
