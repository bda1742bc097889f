"""The metrics a task reports, from what the task is and its settings: one rule for the live
task (:mod:`uta_tasks.lm_eval_task`) and for a run scored again from its records
(:mod:`uta_tasks.runs.rescore`, used by ``uta-rejudge``), so both report the same metric set.

It reads only the attributes named by :class:`BenchmarkFacts` and :class:`SettingsFacts`
(a :class:`uta_tasks.datasets.base.Benchmark` and a
:class:`uta_tasks.probe.task_settings.TaskSettings` have them), so that the metrics import
nothing above the schema and the statistics.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from uta_tasks.metrics.table import MetricSpec, TaskShape, metrics_for


class BenchmarkFacts(Protocol):
    """What the metrics read of a benchmark."""

    @property
    def primary(self) -> str | None:
        """Its correctness metric, None when held-out."""

    @property
    def aggregations(self) -> dict[str, Callable[[list], float]]:
        """Its accuracy metrics' aggregations."""

    @property
    def reference_user_turn(self) -> Callable[[dict], str] | None:
        """Held-out only: the real next user turn."""


class SettingsFacts(Protocol):
    """What the metrics read of a task's probe settings."""

    @property
    def overlong(self) -> str:
        """``overlong``: ``drop`` leaves over-long docs out."""

    @property
    def user_samples(self) -> int:
        """``user_samples``."""

    @property
    def pass_at_k(self) -> tuple[int, ...]:
        """``pass_at_k``."""

    @property
    def metrics(self) -> str:
        """``metrics``: ``headline`` or ``full``."""


def task_shape(benchmark: BenchmarkFacts, perturbation: str, settings: SettingsFacts, judged: bool) -> TaskShape:
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


def task_metrics(benchmark: BenchmarkFacts, perturbation: str, settings: SettingsFacts,
                 judged: bool) -> list[MetricSpec]:
    """Every metric such a task reports, accuracy first (args as :func:`task_shape`).

    Args:
        benchmark: the task's benchmark.
        perturbation: its perturbation.
        settings: its probe settings.
        judged: whether the judge gives verdicts.
    """
    return metrics_for(task_shape(benchmark, perturbation, settings, judged), benchmark.aggregations)


