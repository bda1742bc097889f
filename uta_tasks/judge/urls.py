"""Judge endpoint URLs: refuse credentials in them, mask them in messages, and decide
where an API key may go.

A URL is refused when it carries userinfo (``http://user:pass@host``, or a token as
the user name) or any query parameter but the harmless ones (Azure's ``api-version``,
``version``, ``revision``: :data:`.secret_names.HARMLESS_QUERY_KEYS`), whatever its
spelling (``key``, ``jwt``, ``pass``, ``X-Amz-Signature``...): such URLs end up in
lm-eval's results (``configs.metadata``), in every logged sample and in transport logs, and
redaction (:mod:`.redact`) masks exactly those values. The key belongs in an environment
variable named by ``judge_api_key_env``.
"""

from __future__ import annotations

import ipaddress
import logging
from urllib.parse import parse_qsl, urlsplit

from .errors import JudgeConfigError
from .secret_names import HARMLESS_QUERY_KEYS, is_harmless_query_key

log = logging.getLogger(__name__)

OPENAI_API_HOST = "api.openai.com"
OPENAI_API_URL = f"https://{OPENAI_API_HOST}/v1"  # the default judge_base_url
_KEY_ADVICE = (
    "remove it from the URL and put the key in an environment variable named by judge_api_key_env "
    "(e.g. export MY_JUDGE_KEY=...; --metadata '{\"judge_api_key_env\": \"MY_JUDGE_KEY\"}')"
)


def check_url(source: str, value: str) -> str:
    """Validate a judge base URL.

    Args:
        source: The setting it came from, for messages (``judge_base_url (from $X)``).
        value: The URL.

    Returns:
        The URL without a trailing slash.

    Raises:
        JudgeConfigError: Not http(s), or it carries credentials (never echoed).
    """
    url = value.strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise JudgeConfigError(
            f"{source}={mask_url(url)!r}: give an http(s) URL such as http://127.0.0.1:8080/v1"
        )
    parts = urlsplit(url)
    if "@" in parts.netloc:
        raise JudgeConfigError(
            f"{source}={mask_url(url)!r} carries credentials (user:password@): {_KEY_ADVICE}"
        )
    params = [name for name, _ in parse_qsl(parts.query, keep_blank_values=True) if not is_harmless_query_key(name)]
    if params or "=" in parts.fragment:
        raise JudgeConfigError(
            f"{source}={mask_url(url)!r} carries the query parameter(s) {params or [parts.fragment.split('=')[0]]}, "
            f"which may hold a credential (only {', '.join(sorted(HARMLESS_QUERY_KEYS))} are allowed): {_KEY_ADVICE}"
        )
    return url


def mask_url(url: str) -> str:
    """The URL with its userinfo and every query value replaced by ``***``.

    Args:
        url: Any URL-like string.
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable URL>"
    netloc = parts.netloc
    if "@" in netloc:
        netloc = "***@" + netloc.rsplit("@", 1)[1]
    query = "&".join(f"{name}=***" for name, _ in parse_qsl(parts.query, keep_blank_values=True))
    masked = f"{parts.scheme}://{netloc}{parts.path}" if parts.scheme else netloc + parts.path
    return masked + (f"?{query}" if query else "")


def host_of(url: str) -> str:
    """The lower-cased host name of ``url`` ('' when there is none).

    Args:
        url: The URL.
    """
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


def is_openai_api(url: str) -> bool:
    """True when ``url`` is OpenAI's own API (https, host exactly ``api.openai.com``).

    Args:
        url: The judge base URL.
    """
    return url.startswith("https://") and host_of(url) == OPENAI_API_HOST


def is_loopback(url: str) -> bool:
    """True when the host of ``url`` is this machine (``localhost``, 127.0.0.0/8, ``::1``).

    Args:
        url: The judge base URL.
    """
    host = host_of(url)
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def warn_key_transport(url: str, key_env: str, key: str | None) -> None:
    """Warn when an API key would travel over plain http to another machine.

    Args:
        url: The judge's base URL (``judge_base_url``).
        key_env: The environment variable the key came from (``judge_api_key_env``).
        key: The key that will be sent (None: nothing to warn about).
    """
    if key and url.startswith("http://") and not is_loopback(url):
        log.warning(
            "judge: the API key from $%s is sent over plain http to %s, readable by anyone on the "
            "network path; use https, or reach the server through an SSH tunnel on 127.0.0.1",
            key_env, host_of(url),
        )
