"""The metrics a task reports, from what the task is and its settings: one rule for the live
task (:mod:`uta_tasks.lm_eval_task`) and for a run scored again from its records
(:mod:`uta_tasks.runs.rescore`, used by ``uta-rejudge``), so both report the same metric set.
"""

from __future__ import annotations

from uta_tasks.datasets.base import Benchmark
from uta_tasks.metrics.table import MetricSpec, TaskShape, metrics_for
from uta_tasks.probe.task_settings import TaskSettings


def task_shape(benchmark: Benchmark, perturbation: str, settings: TaskSettings, judged: bool) -> TaskShape:
    """The shape of a task: which metrics it reports.

    Args:
        benchmark: the task's benchmark.
        perturbation: ``none``, ``trunc`` or ``question``.
        settings: the task's probe settings (``user_samples``, ``pass_at_k``, ``overlong``, ``metrics``).
        judged: whether the judge gives verdicts (off with ``judge: none`` or ``--predict_only``).
    """
    return TaskShape(
        perturbation=perturbation,
        judged=judged,
        held_out=benchmark.reference_user_turn is not None,
        primary=benchmark.primary,
        drops_overlong=settings.overlong == "drop",
        user_samples=settings.user_samples,
        pass_at=settings.pass_at_k,
        headline_only=settings.metrics == "headline",
    )


def task_metrics(benchmark: Benchmark, perturbation: str, settings: TaskSettings, judged: bool) -> list[MetricSpec]:
    """Every metric such a task reports, accuracy first (args as :func:`task_shape`).

    Args:
        benchmark: the task's benchmark.
        perturbation: its perturbation.
        settings: its probe settings.
        judged: whether the judge gives verdicts.
    """
    return metrics_for(task_shape(benchmark, perturbation, settings, judged), benchmark.aggregations)
