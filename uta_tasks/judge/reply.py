"""Read an endpoint's answers tolerantly: an HTTP-200 chat-completion body, and the
error object of an HTTP error answer (:func:`error_object`).

The body is read as plain JSON, not through an SDK's response models, so odd shapes
cannot raise somewhere unexpected: anything that is not an object with a non-empty
``choices`` list whose first entry holds a ``message`` object is an
:class:`UnreadableReply`. Token counts that are not non-negative integers (``"n/a"``,
``[1]``, missing) count as 0. The reply's ``model`` and ``system_fingerprint`` are kept
when they are strings.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .errors import UnreadableReply

_EXCERPT = 120


@dataclass(frozen=True)
class Completion:
    """What the judge needs from one chat completion.

    Attributes:
        content: ``choices[0].message.content`` when it is a string, else None.
        finish_reason: ``choices[0].finish_reason`` when it is a string.
        refusal: ``message.refusal`` when it is a non-empty string.
        model: The model the reply says answered.
        system_fingerprint: The backend configuration the reply names, if any.
        input_tokens: ``usage.prompt_tokens`` (0 when absent or unreadable).
        output_tokens: ``usage.completion_tokens`` (0 when absent or unreadable).
    """

    content: str | None
    finish_reason: str | None
    refusal: str | None
    model: str | None
    system_fingerprint: str | None
    input_tokens: int
    output_tokens: int


def read_completion(body: str | bytes) -> Completion:
    """Parse one chat-completion body.

    Args:
        body: The HTTP body (bytes are read as UTF-8, a bad byte as U+FFFD).

    Raises:
        UnreadableReply: The body is not a chat completion; the message says how.
    """
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    try:
        data = json.loads(text)
    except ValueError:
        raise UnreadableReply(f"body is not JSON: {_excerpt(text)}") from None
    if not isinstance(data, dict):
        raise UnreadableReply(f"body is a JSON {type(data).__name__}, not an object")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        raise UnreadableReply(f"'choices' is {_shape(choices)}, not a non-empty list")
    choice = choices[0]
    if not isinstance(choice, dict):
        raise UnreadableReply(f"choices[0] is {_shape(choice)}, not an object")
    message = choice.get("message")
    if not isinstance(message, dict):
        raise UnreadableReply(f"choices[0].message is {_shape(message)}, not an object")
    raw_usage = data.get("usage")
    usage: dict[str, Any] = raw_usage if isinstance(raw_usage, dict) else {}
    return Completion(
        content=_string(message.get("content")),
        finish_reason=_string(choice.get("finish_reason")),
        refusal=_string(message.get("refusal")) or None,
        model=_string(data.get("model")),
        system_fingerprint=_string(data.get("system_fingerprint")),
        input_tokens=token_count(usage.get("prompt_tokens")),
        output_tokens=token_count(usage.get("completion_tokens")),
    )


def token_count(value: Any) -> int:
    """A reported token count, or 0 when it is not a non-negative integer.

    Args:
        value: The reported value (an int, a digit string, or anything else).
    """
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(value, 0)
    if isinstance(value, float) and value.is_integer():
        return max(int(value), 0)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return 0


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _shape(value: Any) -> str:
    if value is None:
        return "missing"
    return f"a {type(value).__name__}" if not isinstance(value, list) else "an empty list"


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _EXCERPT else flat[:_EXCERPT] + "..."


def error_object(body: object) -> dict[str, Any] | None:
    """The ``error`` object of an HTTP error answer (the whole body when it has none), or
    None when the body is not a JSON object.

    Args:
        body: The answer's body: its bytes or text, or what the SDK parsed of it.
    """
    if isinstance(body, (bytes, str)):
        try:
            body = json.loads(body)
        except ValueError:
            return None
    if not isinstance(body, dict):
        return None
    inner = body.get("error", body)
    return inner if isinstance(inner, dict) else None


def error_message(error: dict[str, Any] | None, fallback: str) -> str:
    """The error object's ``message``, else ``fallback`` (the start of the body, the SDK's message).

    Args:
        error: The error object (:func:`error_object`).
        fallback: What to say when it has no message.
    """
    if error is not None and error.get("message"):
        return str(error["message"])
    return fallback.strip() or "(empty body)"


def error_field(error: dict[str, Any] | None, name: str) -> str | None:
    """A string field (``param``, ``code``, ``type``) of an error object, or None.

    Args:
        error: The error object (:func:`error_object`).
        name: The field.
    """
    if error is not None and isinstance(error.get(name), str):
        return str(error[name])
    return None
