"""Validate a judge reply into a verdict. Anything else is a :class:`ReplyError`.

The parser, in order:

1. ``finish_reason`` ``length`` (truncated at ``judge_max_tokens``) or
   ``content_filter`` fails; so do a refusal and an empty reply.
2. Surrounding whitespace is removed; a reply wrapped in one Markdown code fence
   (```` ```json ... ``` ````) is unwrapped (servers that ignore ``response_format``).
3. The rest must be exactly one JSON object (no trailing text, no duplicate keys) in
   one of two shapes:

   - the schema's (:data:`uta_tasks.judge.labels.VERDICT_SCHEMA`): exactly the keys
     ``rationale`` and ``decision``, ``decision`` holding exactly ``label`` and
     ``genuine``;
   - flat, exactly the keys ``rationale``, ``label`` and ``genuine``: what the
     ``followupeval-v1`` text asks for, written by servers that ignore
     ``response_format``.

   ``rationale`` is a string, ``label`` one of the eight labels, ``genuine`` a JSON
   boolean (``1`` or ``"true"`` are rejected).
4. ``label`` and ``genuine`` must agree (:func:`uta_tasks.schema.labels.pairing_error`):
   ``plausible_followup`` with true, the six failure labels with false, ``other``
   with either. A contradiction is an invalid reply like any schema violation, so the
   client retries it and, when every attempt contradicts, the item is unjudged with
   the reason; it is never counted under either reading.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from uta_tasks.schema.labels import pairing_error

from .errors import ReplyError, TruncatedReply
from .labels import DECISION_KEY, LABELS

_FENCE = re.compile(r"^```[A-Za-z0-9_-]*\s*\n(?P<body>.*)\n\s*```$", re.DOTALL)
_NESTED_KEYS = ("rationale", DECISION_KEY)
_DECISION_KEYS = ("label", "genuine")
_FLAT_KEYS = ("rationale", "label", "genuine")
_EXCERPT = 200


@dataclass(frozen=True)
class ParsedVerdict:
    """A valid verdict.

    Attributes:
        rationale: Free-text explanation.
        label: One of the eight labels.
        genuine: The binary decision, consistent with ``label``.
    """

    rationale: str
    label: str
    genuine: bool


def parse_reply(content: str | None, finish_reason: str | None = "stop", refusal: str | None = None) -> ParsedVerdict:
    """Validate one reply.

    Args:
        content: ``message.content`` of the completion.
        finish_reason: ``choices[0].finish_reason``.
        refusal: ``message.refusal`` if the endpoint sent one.

    Returns:
        The verdict.

    Raises:
        ReplyError: With a short reason naming what was wrong (:class:`TruncatedReply`
            for ``finish_reason=length``).
    """
    if finish_reason == "length":
        raise TruncatedReply("finish_reason=length: the reply was cut at judge_max_tokens")
    if finish_reason == "content_filter":
        raise ReplyError("finish_reason=content_filter: the endpoint filtered the reply")
    if refusal:
        raise ReplyError(f"refusal: {_excerpt(refusal)}")
    if content is None or not content.strip():
        raise ReplyError("empty reply")
    text = content.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group("body").strip()
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates)
    except ValueError as exc:
        raise ReplyError(f"invalid JSON ({exc}): {_excerpt(text)}") from None
    return _validate(data)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    duplicates = sorted({key for key in keys if keys.count(key) > 1})
    if duplicates:
        raise ValueError(f"duplicate keys {duplicates}")
    return dict(pairs)


def _validate(data: Any) -> ParsedVerdict:
    if not isinstance(data, dict):
        raise ReplyError(f"schema: expected a JSON object, got {type(data).__name__}")
    if DECISION_KEY in data:
        _check_keys(data, _NESTED_KEYS, "")
        decision = data[DECISION_KEY]
        if not isinstance(decision, dict):
            raise ReplyError(f"schema: {DECISION_KEY} is {type(decision).__name__}, not an object")
        _check_keys(decision, _DECISION_KEYS, f"{DECISION_KEY}: ")
        rationale, label, genuine = data["rationale"], decision["label"], decision["genuine"]
    else:
        _check_keys(data, _FLAT_KEYS, "")
        rationale, label, genuine = (data[key] for key in _FLAT_KEYS)
    if not isinstance(rationale, str):
        raise ReplyError(f"schema: rationale is {type(rationale).__name__}, not a string")
    if label not in LABELS:
        raise ReplyError(f"schema: label {_excerpt(repr(label))} is not one of {list(LABELS)}")
    if not isinstance(genuine, bool):
        raise ReplyError(f"schema: genuine is {_excerpt(repr(genuine))}, not a JSON boolean")
    error = pairing_error(label, genuine)
    if error is not None:
        raise ReplyError(error)
    return ParsedVerdict(rationale=rationale, label=label, genuine=genuine)


def _check_keys(data: dict[str, Any], expected: tuple[str, ...], where: str) -> None:
    missing = [key for key in expected if key not in data]
    extra = sorted(key for key in data if key not in expected)
    if missing or extra:
        raise ReplyError(f"schema: {where}missing keys {missing}, unexpected keys {extra}")


def _excerpt(text: str) -> str:
    return text if len(text) <= _EXCERPT else text[:_EXCERPT] + "..."
