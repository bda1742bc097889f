"""Rates pooled over several tasks of one model and temperature (e.g. label shares over benchmarks)."""

from __future__ import annotations

from dataclasses import dataclass

from uta_tasks.runs.collect import ReportData, TaskRow
from uta_tasks.schema import output
from uta_tasks.schema.labels import LABELS
from uta_tasks.stats import Interval, wilson


@dataclass(frozen=True)
class Pooled:
    """A rate pooled over tasks.

    Attributes:
        k: successes.
        n: units.
        interval: Wilson interval (None when n is 0).
    """

    k: float
    n: int
    interval: Interval | None

    @property
    def value(self) -> float | None:
        """``k / n`` (None when n is 0)."""
        return self.k / self.n if self.n else None


def pool(rows: list[TaskRow], metric: str, confidence: float) -> Pooled:
    """Pool a rate's counts over task rows.

    Args:
        rows: the task rows.
        metric: a rate metric with counts.
        confidence: interval coverage.
    """
    k, n = 0.0, 0
    for row in rows:
        m = row.metric(metric)
        if m.k is not None and m.n:
            k, n = k + float(m.k), n + int(m.n)
    return Pooled(k, n, wilson(k, n, confidence) if n else None)


def label_shares(data: ReportData, model: str, temperature: float | None) -> dict[str, Pooled]:
    """Each label's share of the judged turns of a model's unperturbed tasks.

    Args:
        data: the report data.
        model: display name.
        temperature: temperature.
    """
    rows = [r for r in data.rows if (r.model, r.temperature) == (model, temperature)
            and r.perturbation == output.PERTURBATION_NONE]
    return {label: pool(rows, output.label_metric(label), data.settings.confidence) for label in LABELS}
