"""Per-unit observations of a task, from its logged samples.

Every rate the gate and the report put an interval on is a share of *units*: judged user
turns for follow-up rates and label shares, docs for accuracy, answers for pass@k, verdicts
for the unjudged share. The units of a doc are the ones its metric functions give
(:mod:`uta_tasks.metrics.values`, run by :func:`uta_tasks.metrics.results.measure`); an
observation is keyed by ``(task, doc_id, repeat, slot)``, so the same key on two runs is the
same turn of the same doc: that is what the paired bootstrap matches on.

A task of 100,000 docs has a few million units: each metric's are kept as typed arrays
(:class:`UnitColumn`, 24 bytes a unit), not as a dict of tuples (about 170 bytes a unit);
the dict a paired bootstrap needs is built for one metric when it is asked for
(:meth:`Observations.units`).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from uta_tasks.metrics.values import Units

Key = tuple[str, int, int, int]


@dataclass
class UnitColumn:
    """One metric's units of one task, one entry per unit.

    Attributes:
        doc_ids: each unit's doc.
        repeats: each unit's repeat.
        slots: each unit's slot (the verdict's place for ``unjudged``, else 0).
        values: each unit's value in [0, 1].
    """

    doc_ids: array = field(default_factory=lambda: array("q"))
    repeats: array = field(default_factory=lambda: array("i"))
    slots: array = field(default_factory=lambda: array("i"))
    values: array = field(default_factory=lambda: array("d"))

    def append(self, doc_id: int, repeat: int, slot: int, value: float) -> None:
        """Add one unit.

        Args:
            doc_id: its doc.
            repeat: its repeat.
            slot: its slot.
            value: its value.
        """
        self.doc_ids.append(doc_id)
        self.repeats.append(repeat)
        self.slots.append(slot)
        self.values.append(float(value))

    def keys(self) -> Iterator[tuple[int, int, int]]:
        """``(doc_id, repeat, slot)`` of each unit, in order."""
        return zip(self.doc_ids, self.repeats, self.slots)

    def in_doc_order(self, ordered: bool, unique: bool) -> UnitColumn:
        """The units ordered by doc (stable: a doc's units keep their order), each key once
        (a doc logged twice: the later value at the earlier place), as a dict keyed by unit
        and filled doc by doc in doc order holds them.

        Args:
            ordered: the docs were read in doc order (nothing to sort).
            unique: no doc was read twice (nothing to merge).
        """
        if ordered and unique:
            return self
        ids = self.doc_ids
        order = range(len(ids)) if ordered else sorted(range(len(ids)), key=ids.__getitem__)
        unique_keys: dict[tuple[int, int, int], float] = {}
        for i in order:
            unique_keys[(ids[i], self.repeats[i], self.slots[i])] = self.values[i]
        out = UnitColumn()
        for (doc_id, repeat, slot), value in unique_keys.items():
            out.append(doc_id, repeat, slot, value)
        return out


@dataclass
class Observations:
    """Observations of one task.

    Attributes:
        task: the task (the first part of every key).
        columns: metric -> its units.
    """

    task: str
    columns: dict[str, UnitColumn] = field(default_factory=dict)

    def add(self, metric: str, doc_id: int, units: Units) -> None:
        """Record a doc's units of one metric.

        Args:
            metric: metric name.
            doc_id: the doc.
            units: ``(repeat, slot) -> value``.
        """
        if not units:
            return
        column = self.columns.get(metric)
        if column is None:
            column = self.columns[metric] = UnitColumn()
        for (repeat, slot), value in units.items():
            column.append(doc_id, repeat, slot, value)

    def count(self, metric: str) -> tuple[float, int] | None:
        """``(successes, units)`` of a metric, or None when it has no observations.

        Args:
            metric: metric name.
        """
        column = self.columns.get(metric)
        if column is None or not column.values:
            return None
        return float(sum(column.values)), len(column.values)

    def units(self, metric: str) -> dict[Key, float]:
        """A metric's observations keyed by ``(task, doc_id, repeat, slot)`` (empty without any).

        Args:
            metric: metric name.
        """
        column = self.columns.get(metric)
        if column is None:
            return {}
        return {(self.task, d, r, s): v for (d, r, s), v in zip(column.keys(), column.values)}

    def in_doc_order(self, metrics: Iterable[str], ordered: bool, unique: bool) -> Observations:
        """Only the given metrics, each in doc order (:meth:`UnitColumn.in_doc_order`).

        Args:
            metrics: the metrics kept.
            ordered: the docs were read in doc order.
            unique: no doc was read twice.
        """
        kept = set(metrics)
        return Observations(self.task, {m: c.in_doc_order(ordered, unique) for m, c in self.columns.items()
                                        if m in kept})

    @staticmethod
    def pooled(parts: Iterable[Observations], metric: str) -> dict[Key, float]:
        """One metric's observations of several tasks together (their keys name the task, so none collide).

        Args:
            parts: per-task observations.
            metric: metric name.
        """
        out: dict[Key, float] = {}
        for part in parts:
            out.update(part.units(metric))
        return out
