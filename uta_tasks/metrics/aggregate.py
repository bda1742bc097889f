"""Aggregations lm-eval does not ship."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any


def total(values: Sequence[float]) -> float:
    """Sum over docs (counts such as ``unjudged`` and judge usage).

    Args:
        values: per-doc counts.
    """
    return float(sum(values))


def skipping_dropped(aggregation: Callable[[list], float]) -> Callable[[list], float]:
    """A benchmark's accuracy aggregation that leaves out docs dropped as over-long
    (their per-doc value is NaN, or an empty list for instruction-level metrics).

    Args:
        aggregation: the benchmark's aggregation.
    """

    def aggregate(values: list[Any]) -> float:
        kept = [v for v in values if not (isinstance(v, float) and math.isnan(v))]
        kept = [v for v in kept if not (isinstance(v, list) and not v)]
        return aggregation(kept) if kept else float("nan")

    aggregate.__name__ = getattr(aggregation, "__name__", "mean")
    aggregate.__qualname__ = aggregate.__name__
    return aggregate
