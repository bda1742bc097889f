"""Aggregations lm-eval does not ship."""

from __future__ import annotations

from collections.abc import Sequence


def total(values: Sequence[float]) -> float:
    """Sum over docs (counts such as ``unjudged`` and judge usage).

    Args:
        values: per-doc counts.
    """
    return float(sum(values))
