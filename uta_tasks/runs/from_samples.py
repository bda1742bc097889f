"""A task's settings and its full metric set, computed from its logged samples.

lm-eval's results file may hold only the headline metrics of a task (``metrics: headline``);
the rest (label shares, judge usage, pass@k, ``genuine_prob``, accuracy-conditioned rates,
counts) is computed here from the probe records, with the rule the live task uses
(:func:`uta_tasks.metrics.shape.task_metrics`, per-doc values from
:func:`uta_tasks.metrics.results.doc_metrics`, the table's aggregations), so every reader
gets every metric a full run reports.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Mapping
from typing import Any

from uta_tasks.datasets import BENCHMARKS
from uta_tasks.datasets.base import Benchmark
from uta_tasks.metrics.results import doc_metrics
from uta_tasks.metrics.shape import task_metrics
from uta_tasks.metrics.table import PASS_AT_PREFIX, MetricSpec
from uta_tasks.probe.task_settings import KEYS, TaskSettings
from uta_tasks.runs.samples import DocSample
from uta_tasks.wrap import is_wrapped
from uta_tasks.wrap.benchmark import benchmark as wrapped_benchmark

log = logging.getLogger(__name__)
_PASS_AT = re.compile(rf"^{PASS_AT_PREFIX}(\d+)$")


def task_settings(task: str, meta: Mapping[str, Any] | None, docs: list[DocSample]) -> TaskSettings:
    """The probe settings a task ran with: its dumped metadata when the results file has
    it, else what its records and logged per-doc metrics show (``user_samples`` = the user
    turns drawn, ``overlong: drop`` when a doc was dropped, ``pass_at_k`` from the
    ``genuine_pass_at_<k>`` values logged per doc).

    Args:
        task: task name (for messages).
        meta: the task config's ``metadata`` from the results file, or None without one.
        docs: the task's logged samples.
    """
    if meta is not None and any(key in meta for key in KEYS):
        return TaskSettings.from_metadata(task, meta)
    records = [r for d in docs for r in d.records]
    n = max((len(r.u_samples or ()) for r in records), default=1) or 1
    ks = sorted({int(m[1]) for d in docs for key in d.line if (m := _PASS_AT.match(key))})
    found: dict[str, Any] = {"user_samples": n, "pass_at_k": ",".join(map(str, ks)) or None}
    if any(r.overlong for r in records):
        found["overlong"] = "drop"
    log.info("%s: no task settings in a results file; read from its records: %s", task, found)
    return TaskSettings.from_metadata(task, {**(meta or {}), **found})


def judged(docs: list[DocSample]) -> bool:
    """Whether the records carry verdicts (the judge ran).

    Args:
        docs: the task's logged samples.
    """
    return any(v is not None for d in docs for r in d.records for v in r.verdicts().values())


def full_specs(name: str, meta: Mapping[str, Any] | None, docs: list[DocSample]) -> list[MetricSpec]:
    """Every metric a full run of this task reports.

    Args:
        name: task name.
        meta: its dumped metadata, or None.
        docs: its logged samples (at least one).
    """
    first = docs[0].records[0]
    settings = dataclasses.replace(task_settings(name, meta, docs), metrics="full")
    return task_metrics(benchmark_of(name, meta, docs), first.perturbation, settings, judged(docs))


def benchmark_of(name: str, meta: Mapping[str, Any] | None, docs: list[DocSample]) -> Benchmark:
    """The benchmark whose scorer made a task's records: a packaged one, or the lm-eval task
    a wrapped task was made from (built again from its dumped metadata).

    Args:
        name: task name.
        meta: its dumped metadata, or None.
        docs: its logged samples (at least one).
    """
    bench = docs[0].records[0].benchmark
    if bench in BENCHMARKS or not is_wrapped(bench):
        return BENCHMARKS[bench]
    return wrapped_benchmark(name, bench, dict(meta or {}))


def per_doc_values(docs: list[DocSample], specs: list[MetricSpec], bench: Benchmark) -> list[dict[str, Any]]:
    """Each doc's value of every metric of ``specs``, from its records.

    Args:
        docs: the logged samples.
        specs: the metrics.
        bench: the benchmark that scores them (:func:`benchmark_of`).
    """
    return [doc_metrics(d.line.get("doc") or {}, d.records, specs, bench.score, bench.primary) for d in docs]


def missing_values(name: str, meta: Mapping[str, Any] | None, docs: list[DocSample],
                   present: set[str]) -> dict[str, float]:
    """The aggregated value of every metric of the full set that ``present`` lacks.

    Args:
        name: task name.
        meta: its dumped metadata, or None.
        docs: its logged samples.
        present: the metrics the results file holds.
    """
    if not docs or not docs[0].records:
        return {}
    try:
        full = full_specs(name, meta, docs)
        specs = [s for s in full if s.name not in present]
        if not specs:
            return {}
        # the whole set: some per-doc values depend on others
        values = per_doc_values(docs, full, benchmark_of(name, meta, docs))
    except (ImportError, LookupError, TypeError, ValueError, RuntimeError) as exc:  # e.g. a scorer's package is missing
        log.warning("%s: could not compute the metrics its results file lacks from the samples (%s)", name, exc)
        return {}
    return {s.name: float(s.aggregation([v[s.name] for v in values])) for s in specs}
