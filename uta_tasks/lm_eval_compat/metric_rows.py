"""The metric table's rows as lm-eval takes them: the aggregation functions and the
``metric_list`` of a uta task's config."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from uta_tasks.lm_eval_compat.aggregation import native_aggregation
from uta_tasks.metrics.table import MetricSpec


def lm_eval_aggregation(spec: MetricSpec) -> Callable[[list], float]:
    """The aggregation handed to lm-eval: lm-eval's own ``mean`` for our rates and benchmark
    means (:attr:`MetricSpec.lm_eval_mean`), so that lm-eval computes the row's standard
    error in closed form (its ``stderr_for_metric`` knows only its own functions); counts
    (``sum``), instruction-level and ``overlong: drop`` aggregations stay ours, without one.

    A rate's NaN (a doc with no judged turn) never reaches lm-eval
    (:func:`uta_tasks.metrics.table.lm_eval_doc_values`), so its ``mean`` is our ``nanmean``.
    lm-eval's own ``nanmean`` would be bootstrapped: 100,000 resamples per row by default,
    about 20 s per row at N = 1,319 on an idle 2-core machine (``perf/bootstrap_cost.py``).

    Args:
        spec: the metric.
    """
    return native_aggregation("mean") if spec.lm_eval_mean else spec.aggregation


def metric_list(specs: list[MetricSpec], *, readable: bool = False) -> list[dict[str, Any]]:
    """lm-eval ``metric_list`` entries.

    Args:
        specs: the metrics.
        readable: name the aggregation (for dumps) instead of giving the function.
    """
    return [
        {
            "metric": m.name,
            "aggregation": m.aggregation_name if readable else lm_eval_aggregation(m),
            "higher_is_better": m.higher_is_better,
        }
        for m in specs
    ]
