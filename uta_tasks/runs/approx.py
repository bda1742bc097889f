"""Counts derived from the results JSON alone, for runs logged without samples (approximate).

Without samples the number of judged turns behind a rate is not in the results. It is
derived as ``docs x repeats - unjudged``, and successes as ``round(rate x judged)``. For a
perturbed task ``unjudged`` also counts the unperturbed turns' verdicts, so the derived
number of judged turns is a lower bound and the interval a little wider than it should be.
With ``repeats > 1`` and some unjudged turns lm-eval's rate (a mean of per-doc rates) is not
exactly a share of turns either. Every count made here is flagged ``approximate``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from uta_tasks.datasets import BENCHMARKS
from uta_tasks.schema import output

if TYPE_CHECKING:
    from uta_tasks.runs.task_run import TaskRun


def _clip(k: float, n: float) -> tuple[float, int] | None:
    n_int = round(n)
    if n_int <= 0:
        return None
    return float(min(max(round(k), 0), n_int)), n_int


def derived_value(task: TaskRun, metric: str) -> float | None:
    """The value of a metric this package derives, from the results JSON.

    Args:
        task: the task.
        metric: ``accuracy`` or ``unjudged_share`` (others: the reported value).
    """
    if metric == output.ACCURACY:
        return task.value(task.primary) if task.primary else None
    if metric == output.UNJUDGED_SHARE:
        unjudged, verdicts = task.value(output.UNJUDGED), _verdicts(task)
        return None if unjudged is None or not verdicts else unjudged / verdicts
    return task.value(metric)


def _verdicts(task: TaskRun) -> int:
    """Verdicts per doc and repeat: u, u_ref on a perturbed task, the real next turn when held-out."""
    bench = BENCHMARKS.get(task.benchmark or "")
    held_out = bench is not None and bench.reference_user_turn is not None
    per_turn = 1 + (task.perturbation != output.PERTURBATION_NONE) + held_out
    return (task.n_docs or 0) * task.repeats * per_turn


def approx_count(task: TaskRun, metric: str) -> tuple[float, int] | None:
    """``(successes, units)`` of a rate from the results JSON, or None when it cannot be derived.

    Args:
        task: a uta task of the run.
        metric: a rate metric (see :func:`uta_tasks.runs.estimates.count_metrics`).
    """
    docs = task.n_docs or 0
    turns = docs * task.repeats
    value = derived_value(task, metric)
    if value is None or docs <= 0:
        return None
    judged = turns - (task.value(output.UNJUDGED) or 0.0)
    if metric == output.UNJUDGED_SHARE:
        return _clip(task.value(output.UNJUDGED) or 0.0, _verdicts(task))
    if metric in (output.ACCURACY, output.GENUINE_PASS_AT_K):
        return _clip(value * docs, docs)
    if metric in (output.SHARE_CHANGED, output.GENUINE_REFERENCE):
        return _clip(value * turns, turns)
    if metric in (output.GENUINE_CORRECT, output.GENUINE_WRONG):
        accuracy = derived_value(task, output.ACCURACY)
        if accuracy is None:
            return None
        correct_docs = round(accuracy * docs)
        units = (correct_docs if metric == output.GENUINE_CORRECT else docs - correct_docs) * task.repeats
        return _clip(value * units, units)
    return _clip(value * judged, judged)
