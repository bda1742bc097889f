"""Keep the API key out of every string the judge produces (reasons, errors, logs)."""

from __future__ import annotations

import re

MASK = "[REDACTED]"
# OpenAI-style keys, also the partly masked forms some endpoints echo back ("sk-ab****cd").
_KEY_LIKE = re.compile(r"\bsk-[A-Za-z0-9_\-*.]{6,}")
_BEARER = re.compile(r"(?i)(bearer\s+)\S+")


def redact(text: str, secret: str | None) -> str:
    """Remove ``secret`` and anything that looks like an API key from ``text``.

    Args:
        text: Any message about to be logged, raised or stored.
        secret: The API key in use (may be None).

    Returns:
        The text with keys replaced by ``[REDACTED]``.
    """
    if secret and len(secret) >= 4:
        text = text.replace(secret, MASK)
    text = _BEARER.sub(lambda match: match.group(1) + MASK, text)
    return _KEY_LIKE.sub(MASK, text)
