"""The aggregations of per-doc values over docs.

``mean`` and ``nanmean`` compute what lm-eval's functions of those names compute; a row
whose aggregation is one of them is handed to lm-eval as lm-eval's own ``mean``
(:attr:`uta_tasks.metrics.table.MetricSpec.lm_eval_mean`), so that lm-eval gives it a
closed-form standard error.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any


def mean(values: Sequence[Any]) -> float:
    """The mean of per-doc values (bools or numbers): a benchmark's accuracy.

    Args:
        values: per-doc values.
    """
    return sum(float(v) for v in values) / len(values)


def nanmean(values: Sequence[float]) -> float:
    """The mean of the per-doc values that are not NaN (a rate's docs without a judged turn
    left out); NaN when none is left.

    Args:
        values: per-doc values.
    """
    kept = [float(v) for v in values if not math.isnan(v)]
    return sum(kept) / len(kept) if kept else float("nan")


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
