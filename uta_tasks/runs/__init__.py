"""Reading lm-eval output folders of uta tasks: results, samples, counts, intervals, summary.json.

The names read from the files (metrics, config keys) live in :mod:`uta_tasks.schema.output`; the
records are decoded with :meth:`uta_tasks.schema.probe.ProbeRecord.from_json`.
"""

from __future__ import annotations

from uta_tasks.runs.estimates import Estimate, EstimateSettings, estimate
from uta_tasks.runs.folder import RunFiles, RunNotFoundError, find_runs, single_run
from uta_tasks.runs.run import Run, TaskRun, load_run
from uta_tasks.runs.summary import build_summary, load_summary, write_summary

__all__ = [
    "Estimate",
    "EstimateSettings",
    "Run",
    "RunFiles",
    "RunNotFoundError",
    "TaskRun",
    "build_summary",
    "estimate",
    "find_runs",
    "load_run",
    "load_summary",
    "single_run",
    "write_summary",
]
