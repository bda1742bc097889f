"""The quickstart's error."""

from __future__ import annotations


class QuickstartError(RuntimeError):
    """The quickstart cannot go on; the message says what to change."""
