"""Exceptions of the judge package."""

from __future__ import annotations


class JudgeConfigError(ValueError):
    """A judge setting is wrong or the endpoint cannot be used; the message names the
    setting and the fix, and never contains the API key."""


class ReplyError(ValueError):
    """A judge reply is not a valid verdict (bad JSON, schema violation, truncation)."""


class TruncatedReply(ReplyError):
    """The reply was cut at the token limit (``finish_reason=length``)."""


class UnreadableReply(ValueError):
    """An HTTP-200 body that is not a readable chat completion (HTML, ``{}``, no message)."""


class JudgeUnjudgedError(RuntimeError):
    """Too many items of a run are unjudged (above ``judge_max_unjudged_share``); raised
    after every verdict was written to the cache."""
