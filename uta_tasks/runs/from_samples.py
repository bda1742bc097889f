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
from collections.abc import Mapping, Sequence
from typing import Any

from uta_tasks.datasets import BENCHMARKS
from uta_tasks.datasets.base import Benchmark
from uta_tasks.metrics.results import Measured, Scores, measure, repeat_scores
from uta_tasks.metrics.shape import task_metrics
from uta_tasks.metrics.table import MetricSpec, TaskShape, metrics_for
from uta_tasks.probe.task_settings import KEYS, TaskSettings
from uta_tasks.runs.facts import SampleFacts
from uta_tasks.runs.samples import DocSample
from uta_tasks.wrap import is_wrapped
from uta_tasks.wrap.benchmark import benchmark as wrapped_benchmark

log = logging.getLogger(__name__)


def task_settings(task: str, meta: Mapping[str, Any] | None, facts: SampleFacts) -> TaskSettings:
    """The probe settings a task ran with: its dumped metadata when the results file has
    it, else what its records and logged per-doc metrics show (``user_samples`` = the user
    turns drawn, ``overlong: drop`` when a doc was dropped, ``pass_at_k`` from the
    ``genuine_pass_at_<k>`` values logged per doc).

    Args:
        task: task name (for messages).
        meta: the task config's ``metadata`` from the results file, or None without one.
        facts: what the task's logged samples show.
    """
    if meta is not None and any(key in meta for key in KEYS):
        return TaskSettings.from_metadata(task, meta)
    found: dict[str, Any] = {"user_samples": facts.user_samples,
                             "pass_at_k": ",".join(map(str, sorted(facts.pass_at))) or None}
    if facts.overlong:
        found["overlong"] = "drop"
    log.info("%s: no task settings in a results file; read from its records: %s", task, found)
    return TaskSettings.from_metadata(task, {**(meta or {}), **found})


def full_specs(name: str, meta: Mapping[str, Any] | None, facts: SampleFacts, bench: Benchmark,
               superset: bool = False) -> list[MetricSpec]:
    """Every metric a full run of this task reports.

    Args:
        name: task name.
        meta: its dumped metadata, or None.
        facts: what its logged samples show (at least one doc).
        bench: its benchmark (:func:`benchmark_of`).
        superset: every metric the task may report once all its docs are read, when only the
            first are (judged, several user samples): measuring a doc for more metrics gives
            the same value for each (see :mod:`uta_tasks.runs.reading`).
    """
    settings = dataclasses.replace(task_settings(name, meta, facts), metrics="full")
    if superset:
        settings = dataclasses.replace(settings, user_samples=max(settings.user_samples, 2))
    return task_metrics(bench, str(facts.perturbation), settings, superset or facts.judged)


def benchmark_of(name: str, meta: Mapping[str, Any] | None, benchmark: str) -> Benchmark:
    """The benchmark whose scorer made a task's records: a packaged one, or the lm-eval task
    a wrapped task was made from (built again from its dumped metadata).

    Args:
        name: task name.
        meta: its dumped metadata, or None.
        benchmark: the benchmark its records name.
    """
    if benchmark in BENCHMARKS or not is_wrapped(benchmark):
        return BENCHMARKS[benchmark]
    return wrapped_benchmark(name, benchmark, dict(meta or {}))


def try_benchmark(name: str, meta: Mapping[str, Any] | None, benchmark: str) -> Benchmark | None:
    """:func:`benchmark_of`, or None (logged) when it cannot be built here (a wrapped task's source missing).

    Args:
        name: task name.
        meta: its dumped metadata, or None.
        benchmark: the benchmark its records name.
    """
    try:
        return benchmark_of(name, meta, benchmark)
    except (ImportError, LookupError, TypeError, ValueError, RuntimeError) as exc:
        log.warning("%s: its benchmark could not be built (%s); measured with the logged accuracy", name, exc)
        return None


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


def measure_doc(doc: DocSample, specs: list[MetricSpec], bench: Benchmark | None, primary: str | None) -> Measured:
    """One logged doc measured as the live task measured it.

    Args:
        doc: the doc.
        specs: the metrics to measure.
        bench: its benchmark, None when it cannot be built here (the logged accuracy is used).
        primary: the primary accuracy metric (the benchmark's when it is built).
    """
    scored = primary if bench is None else bench.primary
    return measure(doc.records, _scores(doc, bench, scored), specs, scored)


def task_specs(name: str, meta: Mapping[str, Any] | None, facts: SampleFacts, bench: Benchmark | None,
               primary: str | None, superset: bool = False) -> list[MetricSpec]:
    """Every metric of a full run of the task (:func:`full_specs`); when its benchmark cannot
    be built here, its probe metrics.

    Args:
        name: task name.
        meta: its dumped metadata, or None.
        facts: what its logged samples show (at least one doc).
        bench: its benchmark, or None.
        primary: the primary accuracy metric.
        superset: as :func:`full_specs`.
    """
    if bench is not None:
        return full_specs(name, meta, facts, bench, superset)
    settings = task_settings(name, meta, facts)
    shape = TaskShape(perturbation=str(facts.perturbation), judged=superset or facts.judged,
                      held_out=facts.held_out, primary=primary,
                      drops_overlong=settings.overlong == "drop",
                      user_samples=max(settings.user_samples, 2) if superset else settings.user_samples,
                      pass_at=settings.pass_at_k)
    return metrics_for(shape, {})


def measure_docs(name: str, meta: Mapping[str, Any] | None, docs: list[DocSample],
                 primary: str | None, specs: list[MetricSpec] | None = None,
                 bench: Benchmark | None = None) -> tuple[list[MetricSpec], list[Measured]]:
    """Every logged doc of a list measured as the live task measured it (a reader that holds
    every doc; :mod:`uta_tasks.runs.reading` measures a file doc by doc).

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
    facts = SampleFacts.of(docs)
    if bench is None:
        bench = try_benchmark(name, meta, docs[0].records[0].benchmark)
    if specs is None:
        specs = task_specs(name, meta, facts, bench, primary)
    return specs, [measure_doc(d, specs, bench, primary) for d in docs]


def per_metric(specs: list[MetricSpec], measured: list[Measured]) -> dict[str, list[Any]]:
    """Each metric's per-doc values, in doc order.

    Args:
        specs: the metrics measured.
        measured: each doc's values.
    """
    return {spec.name: [m.values[spec.name] for m in measured] for spec in specs}


def missing_values(specs: list[MetricSpec], per_doc: Mapping[str, Sequence[Any]], present: set[str]
                   ) -> dict[str, float]:
    """The aggregated value of every metric of ``specs`` that ``present`` lacks.

    Args:
        specs: the metrics measured.
        per_doc: metric -> each doc's value, in doc order (:func:`per_metric`); a metric
            without docs is left out.
        present: the metrics the results file holds.
    """
    out: dict[str, float] = {}
    for spec in specs:
        values = per_doc.get(spec.name)
        if spec.name in present or not values:
            continue
        try:  # a benchmark's own aggregation over what the samples hold (none: lm-eval's ifeval divides by 0)
            out[spec.name] = float(spec.aggregation(list(values)))
        except (ArithmeticError, LookupError, TypeError, ValueError) as exc:
            log.warning("%s cannot be aggregated from the samples (%s: %s); it is left out", spec.name,
                        type(exc).__name__, exc)
    return out
