"""A task of a run scored again from its probe records (after ``uta-rejudge`` gave them new
verdicts): the same metric set and values a live run of the same settings reports.

The metric set comes from :func:`uta_tasks.metrics.shape.task_metrics`, the rule the live
task uses, fed with the task's own settings (:func:`uta_tasks.runs.from_samples.task_settings`), and each per-doc value
from :func:`uta_tasks.metrics.results.doc_metrics`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from uta_tasks import lm_eval_compat as compat
from uta_tasks.datasets import BENCHMARKS
from uta_tasks.metrics.shape import task_metrics
from uta_tasks.probe.task_settings import TaskSettings
from uta_tasks.runs.from_samples import per_doc_values, task_settings
from uta_tasks.runs.sample_files import SamplesFile
from uta_tasks.runs.samples import DocSample
from uta_tasks.schema import output
from uta_tasks.schema.probe import ProbeRecord


@dataclass
class ScoredTask:
    """One task's logged samples, with records (re-)judged and metrics computed again.

    Attributes:
        task: task name.
        source: the samples file read.
        root: the folder (or file) given on the command line that holds ``source``.
        docs: the logged samples; their ``line`` is rewritten by :func:`rescore`.
        settings: the task's probe settings (:func:`uta_tasks.runs.from_samples.task_settings`).
        metrics: aggregated ``"<metric>,none"`` values and ``_stderr`` entries.
        higher_is_better: lm-eval's flag for every metric in ``metrics``.
    """

    task: str
    source: SamplesFile
    root: Path
    docs: list[DocSample]
    settings: TaskSettings
    metrics: dict[str, Any] = field(default_factory=dict)
    higher_is_better: dict[str, bool] = field(default_factory=dict)

    @property
    def records(self) -> list[list[ProbeRecord]]:
        """Per doc, its probe records (one per repeat)."""
        return [d.records for d in self.docs]

    @property
    def first(self) -> ProbeRecord:
        """The first record (benchmark and perturbation of the task)."""
        return self.docs[0].records[0]


def rescore(task: ScoredTask, judged: bool, bootstrap_iters: int) -> None:
    """Compute the task's per-doc metrics and their aggregates from its records, in place
    (each logged line gets the new records and per-doc values, as lm-eval logs them).

    Args:
        task: the task.
        judged: whether its records carry verdicts.
        bootstrap_iters: lm-eval's bootstrap iterations for the standard errors.
    """
    first = task.first
    bench = BENCHMARKS[first.benchmark]
    specs = task_metrics(bench, first.perturbation, task.settings, judged)
    per_doc = per_doc_values(task.docs, specs)
    for doc, values in zip(task.docs, per_doc, strict=True):
        texts = [r.to_json() for r in doc.records]
        doc.line.update(values)
        doc.line["metrics"] = [s.name for s in specs]
        doc.line[output.SAMPLE_RESPS] = [texts]
        doc.line["resps"] = [texts]
    task.metrics.clear()
    for spec in specs:
        task.higher_is_better[spec.name] = spec.higher_is_better
        column = [d[spec.name] for d in per_doc]
        task.metrics[output.metric_key(spec.name)] = spec.aggregation(column)
        task.metrics[output.stderr_key(spec.name)] = compat.stderr(spec.aggregation, column, bootstrap_iters)


__all__ = ["ScoredTask", "rescore", "task_settings"]
