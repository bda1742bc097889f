"""A task of a run scored again from its probe records (after ``uta-rejudge`` gave them new
verdicts): the same metric set and values a live run of the same settings reports.

The docs stay on disk (:class:`~uta_tasks.runs.doc_store.DocStore`): each pass reads them a
line at a time, and what changes goes to a temporary spool; a task's per-doc metric values are
what is held.

The metric set comes from :func:`uta_tasks.metrics.shape.task_metrics`, the rule the live
task uses, fed with the task's own settings (:func:`uta_tasks.runs.from_samples.task_settings`), and each per-doc value
from :func:`uta_tasks.metrics.results.measure`, the function the live task uses.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from uta_tasks import lm_eval_compat as compat
from uta_tasks.lm_eval_compat.metric_rows import lm_eval_aggregation
from uta_tasks.metrics.shape import task_metrics
from uta_tasks.metrics.table import lm_eval_doc_values
from uta_tasks.probe.task_settings import TaskSettings
from uta_tasks.runs.doc_store import DocSpool, DocStore
from uta_tasks.runs.from_samples import benchmark_of, measure_doc, task_settings
from uta_tasks.runs.results_file import read_results
from uta_tasks.runs.sample_files import SamplesFile, find_samples
from uta_tasks.runs.samples import DocSample
from uta_tasks.schema import output
from uta_tasks.schema.probe import ProbeRecord

# Records judged in one judge run by :func:`judge_docs`: what a re-judge holds at most (a run of
# fewer records is judged in one run, every identical item once).
JUDGE_CHUNK = 4096


@dataclass
class ScoredTask:
    """One task's logged samples, with records (re-)judged and metrics computed again.

    Attributes:
        task: task name.
        source: the samples file read.
        root: the folder (or file) given on the command line that holds ``source``.
        docs: the logged samples, in doc order, on disk (:class:`~uta_tasks.runs.doc_store.DocStore`);
            :func:`rescore` writes their lines again.
        settings: the task's probe settings (:func:`uta_tasks.runs.from_samples.task_settings`).
        meta: its dumped ``metadata`` from the results file of the same run, or None.
        metrics: aggregated ``"<metric>,none"`` values and ``_stderr`` entries.
        higher_is_better: lm-eval's flag for every metric in ``metrics``.
    """

    task: str
    source: SamplesFile
    root: Path
    docs: Sequence[DocSample]
    settings: TaskSettings
    meta: dict[str, Any] | None = None
    metrics: dict[str, Any] = field(default_factory=dict)
    higher_is_better: dict[str, bool] = field(default_factory=dict)

    @property
    def records(self) -> Iterator[list[ProbeRecord]]:
        """Per doc, its probe records (one per repeat), read a doc at a time."""
        return (d.records for d in self.docs)

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
    bench = benchmark_of(task.task, task.meta, first.benchmark)
    specs = task_metrics(bench, first.perturbation, task.settings, judged)
    names = {s.name for s in specs}
    spool = DocSpool()
    per_doc = []
    for doc in task.docs:
        values = lm_eval_doc_values(specs, measure_doc(doc, specs, bench, bench.primary).values)  # as lm-eval gets them
        per_doc.append(values)
        for name in names - set(values):
            doc.line.pop(name, None)
        doc.line.update(values)
        doc.line["metrics"] = [s.name for s in specs]
        spool.add(doc)
    task.docs = spool.store()
    task.metrics.clear()
    for spec in specs:
        column = [d[spec.name] for d in per_doc if spec.name in d]
        if not column:  # a rate no doc has: absent, as in lm-eval's results
            continue
        task.higher_is_better[spec.name] = spec.higher_is_better
        aggregation = lm_eval_aggregation(spec)
        task.metrics[output.metric_key(spec.name)] = aggregation(column)
        task.metrics[output.stderr_key(spec.name)] = compat.stderr(aggregation, column, bootstrap_iters)


def judge_docs(tasks: Sequence[ScoredTask], judge: Callable[[list[ProbeRecord]], list[ProbeRecord]],
               chunk: int = JUDGE_CHUNK) -> None:
    """Give the tasks' records new verdicts, in place: the docs are read a doc at a time and
    judged ``chunk`` records at a time (one judge run when there are fewer), and each task's
    judged docs are spooled to disk (:class:`~uta_tasks.runs.doc_store.DocSpool`).

    Args:
        tasks: from :func:`load_scored`.
        judge: the records of a chunk, judged (one judge run: identical items judged once).
        chunk: records per judge run.
    """
    spools = [DocSpool() for _ in tasks]
    pending: list[tuple[int, DocSample]] = []

    def flush() -> None:
        judged = iter(judge([r for _, doc in pending for r in doc.records]))
        for index, doc in pending:
            spools[index].add(replace(doc, records=[next(judged) for _ in doc.records]))
        pending.clear()

    held = 0
    for index, task in enumerate(tasks):
        for doc in task.docs:
            pending.append((index, doc))
            held += len(doc.records)
            if held >= chunk:
                flush()
                held = 0
    if pending:
        flush()
    for task, spool in zip(tasks, spools, strict=True):
        task.docs = spool.store()


def _task_meta(results_path: Path, task: str) -> dict[str, Any] | None:
    """The task's dumped ``metadata`` in the results file of the same run, or None without one."""
    if not os.path.lexists(results_path):  # anything of that name is read (a FIFO or a folder is refused)
        return None
    results = read_results(results_path)
    config = (results.get("configs") or {}).get(task)
    return dict(config.get("metadata") or {}) if isinstance(config, dict) else None


def load_scored(paths: Sequence[str | Path]) -> list[ScoredTask]:
    """Every uta task's logged samples under ``paths``, with the settings it ran with.

    Args:
        paths: lm-eval ``--output_path`` folders (or samples files) written with ``--log_samples``.
    """
    tasks: dict[Path, ScoredTask] = {}
    for raw in paths:
        try:
            root = Path(raw).expanduser().resolve()
        except RuntimeError:  # a symbolic link loop (Python < 3.13): find_samples names it
            root = Path(raw).expanduser().absolute()
        for found in find_samples([root]):
            if found.path in tasks:
                continue
            docs, facts = DocStore.read(found.path)  # read a doc at a time; held: what they show
            if not docs:
                raise ValueError(f"{found.path} holds no logged sample: nothing to re-judge")
            meta = _task_meta(found.path.parent / f"{output.RESULTS_PREFIX}{found.date}.json", found.task)
            settings = task_settings(found.task, meta, facts)
            tasks[found.path] = ScoredTask(found.task, found, root, docs, settings, meta)
    return list(tasks.values())


__all__ = ["JUDGE_CHUNK", "ScoredTask", "judge_docs", "load_scored", "rescore", "task_settings"]
