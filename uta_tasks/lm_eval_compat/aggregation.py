"""lm-eval's aggregations of per-doc values and their standard errors (``lm_eval.api.metrics``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


def native_aggregation(name: str) -> Callable[[list], float]:
    """lm-eval's own aggregation function of that name (``mean``, ``nanmean``): the objects
    ``api.metrics.stderr_for_metric`` recognises to compute a standard error.

    Args:
        name: the aggregation's name in ``lm_eval.api.metrics``.
    """
    from lm_eval.api import metrics

    return getattr(metrics, name)


def stderr(aggregation: Callable[[list], float], values: Sequence[float], iters: int) -> Any:
    """lm-eval's standard error of an aggregation (``api.metrics.stderr_for_metric``),
    ``"N/A"`` where lm-eval gives none, as in its results files.

    Args:
        aggregation: the aggregation function.
        values: per-doc values.
        iters: bootstrap iterations.
    """
    from lm_eval.api.metrics import stderr_for_metric

    fn = stderr_for_metric(metric=aggregation, bootstrap_iters=iters)
    return fn(list(values)) if fn is not None and len(values) > 1 else "N/A"
