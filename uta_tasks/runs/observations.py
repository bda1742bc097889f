"""Per-turn 0/1 observations of a task, from its logged samples.

Every rate the gate and the report put an interval on is a share of *units*: judged user
turns for follow-up rates and label shares, docs for accuracy and pass@k, verdicts for the
unjudged share. An observation is keyed by ``(task, doc_id, repeat, slot)``; slot 1 is the
unperturbed user turn ``u_ref`` of a perturbed task (only the unjudged share uses it), so
the same key on two runs is the same turn of the same doc: that is what the paired
bootstrap matches on.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from uta_tasks.runs.samples import DocSample
from uta_tasks.schema import output
from uta_tasks.schema.labels import LABELS
from uta_tasks.schema.verdict import Verdict

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


def _add_verdict(obs: Observations, metric: str, verdict: Verdict | None, key: Key) -> None:
    if verdict is not None and verdict.judged:
        obs.add(metric, key, 1.0 if verdict.genuine else 0.0)


def _doc_correct(doc: DocSample, primary: str | None) -> bool | None:
    value = doc.metrics.get(primary) if primary else None
    if isinstance(value, (bool, int, float)):
        return float(value) >= 1.0
    return None


def from_samples(task: str, docs: list[DocSample], primary: str | None) -> Observations:
    """Observations of one task from its logged docs.

    Args:
        task: task name (the first part of every key).
        docs: the task's logged docs.
        primary: the benchmark's primary accuracy metric (None when held-out).
    """
    obs = Observations()

    for doc in docs:
        correct = _doc_correct(doc, primary)
        if correct is not None:
            obs.add(output.ACCURACY, (task, doc.doc_id, 0, 0), float(doc.metrics[primary]))  # type: ignore[index]
        any_judged, any_genuine = False, False
        for repeat, record in enumerate(doc.records):
            key: Key = (task, doc.doc_id, repeat, 0)
            verdict = record.verdict
            _add_verdict(obs, output.GENUINE, verdict, key)
            if verdict is not None and verdict.judged:
                any_judged = True
                any_genuine = any_genuine or bool(verdict.genuine)
                for label in LABELS:
                    obs.add(output.label_metric(label), key, float(verdict.label == label))
                if correct is not None:
                    _add_verdict(obs, output.GENUINE_CORRECT if correct else output.GENUINE_WRONG, verdict, key)
            _add_verdict(obs, output.GENUINE_BASE, record.verdict_ref, key)
            _add_verdict(obs, output.GENUINE_REFERENCE, record.verdict_reference, key)
            for slot, v in enumerate((record.verdict, record.verdict_ref)):
                if v is not None:
                    obs.add(output.UNJUDGED_SHARE, (task, doc.doc_id, repeat, slot), 0.0 if v.judged else 1.0)
            if record.perturbed:
                obs.add(output.CHANGED_SHARE, key, float(record.u != record.u_ref))
        if any_judged:
            obs.add(output.GENUINE_PASS_AT_K, (task, doc.doc_id, 0, 0), float(any_genuine))
    return obs
