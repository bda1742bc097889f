"""Reading lm-eval output folders of uta tasks: results, samples, counts, intervals, summary.json.

All names read from the files (metrics, record fields, config keys) live in :mod:`names`.
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
