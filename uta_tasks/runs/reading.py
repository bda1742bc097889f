"""One task's samples file measured in one pass, a doc at a time.

Each doc is measured as it is read, by the function the live task uses
(:func:`uta_tasks.runs.from_samples.measure_doc`, that is
:func:`uta_tasks.metrics.results.measure`), and what the readers need is kept, in compact
form: the units behind every interval (:class:`~uta_tasks.runs.observations.Observations`),
each doc's value of the metrics the results file lacks (to aggregate them), what the
records show of the run's settings (:class:`~uta_tasks.runs.facts.SampleFacts`), and the
first ``examples`` docs (the report's sample browser). The docs themselves are dropped, so
memory grows with the units, not with the text of the file.

The metric set of a task depends on the whole file (a task is judged when *any* record has a
verdict; without settings in the results file, on the most user turns drawn). The docs are
measured for every metric the task may have (:func:`~uta_tasks.runs.from_samples.task_specs`
with ``superset``; each metric's value of a doc depends on that doc alone), and the set is
cut to the task's own once the file is read. Everything kept is put in doc order at the
end, so the result is the one a reader of the whole sorted list of docs gets
(:func:`read_task`, ``all_docs=True``), whatever order the file lists the docs in.
"""

from __future__ import annotations

import heapq
import logging
from array import array
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from uta_tasks.datasets.base import Benchmark
from uta_tasks.metrics.table import MetricSpec
from uta_tasks.runs.facts import SampleFacts
from uta_tasks.runs.from_samples import measure_doc, missing_values, task_specs, try_benchmark
from uta_tasks.runs.observations import Observations
from uta_tasks.runs.samples import DocSample, iter_samples, read_samples
from uta_tasks.schema import output

log = logging.getLogger(__name__)


@dataclass
class TaskSamples:
    """What a task's samples file gives its readers.

    Attributes:
        observations: the units behind every interval, in doc order.
        values: the metrics the results file lacks, aggregated from the docs.
        facts: what the records show (settings, user turns).
        examples: the first docs in doc order (as many as asked for).
        docs: every doc in doc order, only when asked for (``all_docs``).
    """

    observations: Observations
    values: dict[str, float]
    facts: SampleFacts
    examples: list[DocSample]
    docs: list[DocSample] | None = None


class _Column:
    """One metric's value of each doc: a typed array while they are floats (8 bytes a doc),
    a list once one is not (an instruction-level accuracy is a list)."""

    def __init__(self) -> None:
        self.items: array | list[Any] = array("d")

    def append(self, value: Any) -> None:
        if isinstance(self.items, array):
            if type(value) is float:
                self.items.append(value)
                return
            self.items = list(self.items)
        self.items.append(value)


@dataclass
class _Reading:
    """The state of one pass (see the module docstring)."""

    name: str
    meta: Mapping[str, Any] | None
    primary: str | None
    present: set[str]
    examples: int
    facts: SampleFacts = field(default_factory=SampleFacts)
    specs: list[MetricSpec] | None = None
    bench: Benchmark | None = None
    observations: Observations = field(init=False)
    per_doc: dict[str, _Column] = field(default_factory=dict)
    doc_ids: array = field(default_factory=lambda: array("q"))
    pending: list[DocSample] = field(default_factory=list)
    first: tuple[int, bool] | None = None  # the first doc in doc order: its id, whether it has records
    kept: list[tuple[int, int, DocSample]] = field(default_factory=list)  # a heap of the first docs
    seen: int = 0

    def __post_init__(self) -> None:
        self.observations = Observations(self.name)

    def start(self, doc: DocSample, superset: bool) -> None:
        """Choose the benchmark and the metrics from the facts read so far."""
        self.bench = try_benchmark(self.name, self.meta, doc.records[0].benchmark)
        self.specs = task_specs(self.name, self.meta, self.facts, self.bench, self.primary, superset)
        self.per_doc = {s.name: _Column() for s in self.specs if s.name not in self.present}

    def measure(self, doc: DocSample) -> None:
        """Measure one doc (the facts already hold it)."""
        if self.first is None or doc.doc_id < self.first[0]:
            self.first = (doc.doc_id, bool(doc.records))
        self._keep(doc)
        if self.specs is None:
            if not doc.records:
                self.pending.append(doc)
                return
            self.start(doc, superset=True)
        for waiting in [*self.pending, doc]:
            self._record(waiting)
        self.pending.clear()

    def _record(self, doc: DocSample) -> None:
        assert self.specs is not None
        found = measure_doc(doc, self.specs, self.bench, self.primary)
        self.doc_ids.append(doc.doc_id)
        for metric, units in found.units.items():
            self.observations.add(metric, doc.doc_id, units)
        for metric, column in self.per_doc.items():
            column.append(found.values[metric])

    def _keep(self, doc: DocSample) -> None:
        if self.examples <= 0:
            return
        self.seen += 1
        entry = (-doc.doc_id, -self.seen, doc)
        if len(self.kept) < self.examples:
            heapq.heappush(self.kept, entry)
        elif doc.doc_id < -self.kept[0][0]:
            heapq.heapreplace(self.kept, entry)

    def finish(self) -> TaskSamples:
        """The task's samples in doc order, cut to the task's own metric set."""
        examples = [doc for _, _, doc in sorted(self.kept, key=lambda e: (-e[0], -e[1]))]
        if self.specs is None or self.first is None or not self.first[1]:  # no doc measured (as a list reader)
            return TaskSamples(Observations(self.name), {}, self.facts, examples)
        exact = task_specs(self.name, self.meta, self.facts, self.bench, self.primary)
        unmeasured = sorted({s.name for s in exact} - {s.name for s in self.specs} - self.present)
        if unmeasured:
            log.warning("%s: %s first logged after the first doc: left out", self.name, ", ".join(unmeasured))
        ordered, unique = self.facts.in_doc_order, self.facts.unique
        observed = {output.ACCURACY, *(s.observed_as for s in exact if s.units is not None)}
        order = None if ordered else sorted(range(len(self.doc_ids)), key=self.doc_ids.__getitem__)
        per_doc = {name: c.items if order is None else [c.items[i] for i in order]
                   for name, c in self.per_doc.items()}
        return TaskSamples(self.observations.in_doc_order(observed, ordered, unique),
                           missing_values(exact, per_doc, self.present), self.facts, examples)


def read_task(path: Path, name: str, meta: Mapping[str, Any] | None, primary: str | None, present: set[str],
              examples: int = 0, all_docs: bool = False) -> TaskSamples:
    """Read and measure one task's samples file.

    Args:
        path: the samples file.
        name: the task.
        meta: its dumped metadata from the results file, or None.
        primary: its benchmark's primary accuracy metric.
        present: the metrics its results file holds (the others are aggregated from the docs).
        examples: the first docs (in doc order) to keep.
        all_docs: read every doc into memory first, sorted, and keep them (``docs``); by
            default the file is measured in one pass, a doc at a time.
    """
    reading = _Reading(name, meta, primary, present, examples)
    if not all_docs:
        for doc in iter_samples(path, whole_lines=False):
            reading.facts.add(doc)
            reading.measure(doc)
        return reading.finish()
    docs = read_samples(path, whole_lines=False)
    reading.facts = SampleFacts.of(docs)
    first = next((d for d in docs if d.records), None)
    if first is not None:
        reading.start(first, superset=False)
    for doc in docs:
        reading.measure(doc)
    found = reading.finish()
    found.docs = docs
    return found
