"""Exceptions of the judge package."""

from __future__ import annotations


class JudgeConfigError(ValueError):
    """A judge setting is wrong or the endpoint cannot be used; the message names the
    setting and the fix, and never contains the API key."""


class ReplyError(ValueError):
    """A judge reply is not a valid verdict (bad JSON, schema violation, truncation)."""
