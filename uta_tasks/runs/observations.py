"""Per-unit observations of a task, from its logged samples.

Every rate the gate and the report put an interval on is a share of *units*: judged user
turns for follow-up rates and label shares, docs for accuracy, answers for pass@k, verdicts
for the unjudged share. The units of a doc are the ones its metric functions give
(:mod:`uta_tasks.metrics.values`, run by :func:`uta_tasks.metrics.results.measure`); an
observation is keyed by ``(task, doc_id, repeat, slot)``, so the same key on two runs is the
same turn of the same doc: that is what the paired bootstrap matches on.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from uta_tasks.metrics.results import Measured
from uta_tasks.runs.samples import DocSample

Key = tuple[str, int, int, int]


@dataclass
class Observations:
    """Observations of one task or of a pooled group.

    Attributes:
        values: metric -> unit key -> value in [0, 1] (1/0 for turns; a doc's mean over repeats
            for accuracy).
    """

    values: dict[str, dict[Key, float]] = field(default_factory=dict)

    def add(self, metric: str, key: Key, value: float) -> None:
        """Record one observation.

        Args:
            metric: metric name.
            key: ``(task, doc_id, repeat, slot)``.
            value: the unit's value.
        """
        self.values.setdefault(metric, {})[key] = float(value)

    def count(self, metric: str) -> tuple[float, int] | None:
        """``(successes, units)`` of a metric, or None when it has no observations.

        Args:
            metric: metric name.
        """
        obs = self.values.get(metric)
        if not obs:
            return None
        return float(sum(obs.values())), len(obs)

    @classmethod
    def pooled(cls, parts: Iterable[Observations]) -> Observations:
        """All observations of several tasks together (their keys name the task, so none collide).

        Args:
            parts: per-task observations.
        """
        out = cls()
        for part in parts:
            for metric, obs in part.values.items():
                out.values.setdefault(metric, {}).update(obs)
        return out


def from_measured(task: str, docs: list[DocSample], measured: list[Measured]) -> Observations:
    """Observations of one task: the units :func:`uta_tasks.metrics.results.measure` gave
    for each logged doc (the same function gives the doc's values to lm-eval), keyed by task
    and doc.

    Args:
        task: task name (the first part of every key).
        docs: the task's logged docs.
        measured: each doc's values and units (:func:`uta_tasks.runs.from_samples.measure_docs`).
    """
    obs = Observations()
    for doc, found in zip(docs, measured, strict=True):
        for metric, units in found.units.items():
            for (repeat, slot), value in units.items():
                obs.add(metric, (task, doc.doc_id, repeat, slot), value)
    return obs
