"""Errors of the release gate: each one means "the input cannot decide" (exit code 2)."""

from __future__ import annotations


class GateInputError(ValueError):
    """The rules file or a run cannot be used; the message names the file, rule or setting and the fix."""
