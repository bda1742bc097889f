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


class SkippingDropped:
    """A benchmark's accuracy aggregation that leaves out docs dropped as over-long (their
    per-doc value is NaN, or an empty list for instruction-level metrics). Used only with
    ``overlong: drop``; a class, not a closure, so lm-eval can pickle it.

    Args:
        aggregation: the benchmark's aggregation.
    """

    def __init__(self, aggregation: Callable[[list], float]) -> None:
        self.aggregation = aggregation
        self.__name__ = getattr(aggregation, "__name__", "mean")

    def __call__(self, values: list[Any]) -> float:
        kept = [v for v in values if not (isinstance(v, float) and math.isnan(v))]
        kept = [v for v in kept if not (isinstance(v, list) and not v)]
        return self.aggregation(kept) if kept else float("nan")
