"""Each model's run read for the page: its summary (``uta-summary``'s estimates and Wilson
intervals, :func:`uta_tasks.runs.load_summary`) and, per task, its successes and judged turns per
document (the units of ``genuine_followup`` that :func:`uta_tasks.runs.load_run` measures),
which the rank bootstrap resamples.

A run is read once, a samples file in one pass (:func:`~uta_tasks.runs.load_run`); the counts
per document are kept in ``counts/<model>.json`` under the SHA-256 of the run's files that its
summary records (:mod:`uta_tasks.runs.fingerprint`), so a page made again reads no samples of a
run that did not change. A comparison reads each model's run this way as soon as its process
ends (:class:`uta_tasks.apps.compare.runner.Comparer`'s ``after_run``), so that the page at the
end reads no samples; ``--page_only`` over runs made elsewhere reads them in worker processes, a
model at a time in each, so memory holds one run per worker. Each model's own report is built
here too (``reports/<model>/``, when missing or made from other files).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from uta_tasks.runs import EstimateSettings, Run, load_run, load_summary, single_run
from uta_tasks.runs.atomic import write_text
from uta_tasks.runs.summary_types import RunSummary, TaskSummary
from uta_tasks.schema import output
from uta_tasks.stats.ranks import DocCounts

log = logging.getLogger(__name__)
COUNTS_SCHEMA = "uta-compare-counts/1"
REPORT_SOURCES = "sources.json"


@dataclass(frozen=True)
class ModelJob:
    """What a worker reads for one model.

    Attributes:
        name: the model's name on the page.
        slug: its folder name.
        folder: its run folder.
        counts: its counts file.
        report: its report folder, or None to leave the report out.
        settings: interval settings.
    """

    name: str
    slug: str
    folder: Path
    counts: Path
    report: Path | None
    settings: EstimateSettings


@dataclass
class ModelRun:
    """One model's run, as the page shows it.

    Attributes:
        name: its name on the page.
        slug: its folder name.
        summary: its summary.
        counts: uta task -> its genuine follow-ups and judged turns per document.
        report: its report page, or None.
        error: why it could not be read (then the rest is empty).
    """

    name: str
    slug: str
    summary: RunSummary | None = None
    counts: dict[str, DocCounts] = field(default_factory=dict)
    report: Path | None = None
    error: str | None = None

    def task(self, name: str) -> TaskSummary | None:
        """A uta task of its summary, or None."""
        return None if self.summary is None else self.summary.tasks.get(name)


def doc_counts(run: Run, task: str) -> DocCounts | None:
    """A task's genuine follow-ups and judged user turns per document, from the units of
    ``genuine_followup`` that the run's reader measured (None without samples).

    Args:
        run: the run, read by :func:`~uta_tasks.runs.load_run`.
        task: the task.
    """
    observations = run.tasks[task].observations
    column = None if observations is None else observations.columns.get(output.GENUINE)
    if column is None:
        return None if observations is None else DocCounts.of([], [], [])
    ids = np.frombuffer(column.doc_ids, dtype=np.int64) if len(column.doc_ids) else np.zeros(0, np.int64)
    values = np.frombuffer(column.values, dtype=np.float64) if len(column.values) else np.zeros(0)
    docs, where = np.unique(ids, return_inverse=True)
    return DocCounts(docs, np.bincount(where, weights=values, minlength=len(docs)),
                     np.bincount(where, minlength=len(docs)).astype(np.float64))


def _cached(path: Path, sources: Any) -> dict[str, DocCounts] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("schema") != COUNTS_SCHEMA or data.get("sources") != sources:
        return None
    return {task: DocCounts.of(c["doc_ids"], c["successes"], c["units"]) for task, c in data["tasks"].items()}


def _save_counts(path: Path, sources: Any, counts: dict[str, DocCounts]) -> None:
    tasks = {task: {"doc_ids": c.doc_ids.tolist(), "successes": c.successes.tolist(), "units": c.units.tolist()}
             for task, c in counts.items()}
    try:
        write_text(path, json.dumps({"schema": COUNTS_SCHEMA, "sources": sources, "tasks": tasks}))
    except OSError as exc:  # a read-only folder still gets its page
        log.warning("could not write %s (%s)", path, exc)


def _report(job: ModelJob, sources: Any) -> Path | None:
    """The model's own report, built when missing or made from other files."""
    if job.report is None:
        return None
    page = job.report / "report.html"
    stamp = job.report / REPORT_SOURCES
    try:
        current = page.is_file() and json.loads(stamp.read_text(encoding="utf-8")) == sources
    except (OSError, ValueError):
        current = False
    if not current:
        from uta_tasks.apps.report import build_report

        build_report([job.folder], job.report, title=f"User-turn probe report: {job.name}", settings=job.settings)
        write_text(stamp, json.dumps(sources))
    return page


def read_model(job: ModelJob) -> ModelRun:
    """One model's summary, counts per document and report (module doc); a run that cannot be
    read gives a :class:`ModelRun` whose ``error`` says why.

    Args:
        job: what to read.
    """
    from uta_tasks.runs.regular_file import UnreadableFileError

    try:
        files = single_run(job.folder)
        loaded: list[Run] = []

        def run() -> Run:
            if not loaded:
                loaded.append(load_run(files))
            return loaded[0]

        summary = RunSummary.from_json(load_summary(files, job.settings, run))
        tasks = [t for t, row in summary.tasks.items() if row.benchmark is not None]
        counts = _cached(job.counts, summary.sources)
        if counts is None or set(counts) != set(tasks):
            found = {task: doc_counts(run(), task) for task in tasks}
            counts = {task: c for task, c in found.items() if c is not None}
            _save_counts(job.counts, summary.sources, counts)
        return ModelRun(job.name, job.slug, summary, counts, _report(job, summary.sources))
    except (OSError, ValueError, UnreadableFileError, KeyError) as exc:
        return ModelRun(job.name, job.slug, error=f"{job.folder}: {exc}")


def workers_for(jobs: int, asked: int | None = None) -> int:
    """Worker processes: as asked, else one per core up to two (each holds one run in memory)."""
    return max(1, min(jobs, asked if asked else min(2, os.cpu_count() or 1)))


def read_models(jobs: Sequence[ModelJob], workers: int | None = None,
                done: Callable[[ModelRun], None] | None = None) -> list[ModelRun]:
    """Every model's run, in the jobs' order, read by worker processes (one when there is one job).

    Args:
        jobs: what to read.
        workers: worker processes (default :func:`workers_for`).
        done: called with each model as it is read.
    """
    count = workers_for(len(jobs), workers)
    if count == 1:
        out = []
        for job in jobs:
            out.append(read_model(job))
            if done is not None:
                done(out[-1])
        return out
    results: list[ModelRun] = []
    with ProcessPoolExecutor(max_workers=count) as pool:
        for found in pool.map(read_model, jobs):
            results.append(found)
            if done is not None:
                done(found)
    return results
