"""A task's settings and its full metric set, measured from its logged samples.

lm-eval's results file may hold only the headline metrics of a task (``metrics: headline``);
the rest (label shares, judge usage, pass@k, ``genuine_prob``, accuracy-conditioned rates,
counts), and the units behind every interval, are measured here from the probe records by
the function the live task uses (:func:`uta_tasks.metrics.results.measure`, with the metric
set of :func:`uta_tasks.metrics.shape.task_metrics` and the table's aggregations), so every
reader gets every metric a full run reports, with the values the run itself computed.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Mapping
from typing import Any

from uta_tasks.datasets import BENCHMARKS
from uta_tasks.datasets.base import Benchmark
from uta_tasks.metrics.results import Measured, Scores, measure, repeat_scores
from uta_tasks.metrics.shape import task_metrics
from uta_tasks.metrics.table import PASS_AT_PREFIX, MetricSpec, TaskShape, metrics_for
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


def full_specs(name: str, meta: Mapping[str, Any] | None, docs: list[DocSample],
               bench: Benchmark | None = None) -> list[MetricSpec]:
    """Every metric a full run of this task reports.

    Args:
        name: task name.
        meta: its dumped metadata, or None.
        docs: its logged samples (at least one).
        bench: its benchmark (default :func:`benchmark_of`).
    """
    first = docs[0].records[0]
    settings = dataclasses.replace(task_settings(name, meta, docs), metrics="full")
    return task_metrics(bench or benchmark_of(name, meta, docs), first.perturbation, settings, judged(docs))


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


def _scores(doc: DocSample, bench: Benchmark | None, primary: str | None) -> list[Scores | None]:
    """Each repeat's accuracy scores: the per-doc values lm-eval logged when they are one
    repeat's own (what the live scorer gave), else the benchmark's scorer again (several
    repeats, or nothing logged, as after ``--predict_only``); the logged values for every
    repeat when the scorer cannot run here."""
    keys = set(bench.aggregations) if bench is not None else {primary}
    logged = {k: v for k, v in doc.metrics.items() if k in keys and isinstance(v, (bool, int, float, list))}
    if bench is not None and doc.line.get("doc") and (len(doc.records) > 1 or set(logged) != keys):
        try:
            return repeat_scores(doc.line["doc"], doc.records, bench.score)
        except Exception as exc:  # noqa: BLE001 - any scorer failure (a package missing here): the logged values
            log.warning("doc %s: scored with its logged values, the scorer failed (%s)", doc.doc_id, exc)
    return [None if r.overlong else dict(logged) for r in doc.records]


def measure_docs(name: str, meta: Mapping[str, Any] | None, docs: list[DocSample],
                 primary: str | None, specs: list[MetricSpec] | None = None,
                 bench: Benchmark | None = None) -> tuple[list[MetricSpec], list[Measured]]:
    """Every logged doc measured as the live task measured it.

    Args:
        name: task name.
        meta: its dumped metadata, or None.
        docs: its logged samples.
        primary: the benchmark's primary accuracy metric (None when held-out).
        specs: the metrics to measure (default: every metric of a full run).
        bench: its benchmark (default :func:`benchmark_of`).

    Returns:
        The metrics measured, and each doc's values and units. When the benchmark cannot be
        built here (a wrapped task's source missing), its probe metrics, with the logged
        accuracy.
    """
    if not docs or not docs[0].records:
        return specs or [], []
    if bench is None:
        try:
            bench = benchmark_of(name, meta, docs)
        except (ImportError, LookupError, TypeError, ValueError, RuntimeError) as exc:
            log.warning("%s: its benchmark could not be built (%s); measured with the logged accuracy", name, exc)
    if specs is None:
        specs = full_specs(name, meta, docs, bench) if bench is not None else _probe_specs(name, meta, docs, primary)
    scored = primary if bench is None else bench.primary
    return specs, [measure(d.records, _scores(d, bench, scored), specs, scored) for d in docs]


def _probe_specs(name: str, meta: Mapping[str, Any] | None, docs: list[DocSample],
                 primary: str | None) -> list[MetricSpec]:
    first = docs[0].records[0]
    settings = task_settings(name, meta, docs)
    shape = TaskShape(perturbation=first.perturbation, judged=judged(docs),
                      held_out=first.reference_user_turn is not None, primary=primary,
                      drops_overlong=settings.overlong == "drop", user_samples=settings.user_samples,
                      pass_at=settings.pass_at_k)
    return metrics_for(shape, {})


def missing_values(specs: list[MetricSpec], measured: list[Measured], present: set[str]) -> dict[str, float]:
    """The aggregated value of every metric of ``specs`` that ``present`` lacks.

    Args:
        specs: the metrics measured (:func:`measure_docs`).
        measured: each doc's values.
        present: the metrics the results file holds.
    """
    out: dict[str, float] = {}
    for spec in specs:
        if spec.name in present or not measured:
            continue
        try:  # a benchmark's own aggregation over what the samples hold (none: lm-eval's ifeval divides by 0)
            out[spec.name] = float(spec.aggregation([m.values[spec.name] for m in measured]))
        except (ArithmeticError, LookupError, TypeError, ValueError) as exc:
            log.warning("%s cannot be aggregated from the samples (%s: %s); it is left out", spec.name,
                        type(exc).__name__, exc)
    return out
