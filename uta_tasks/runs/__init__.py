"""Reading lm-eval output folders of uta tasks: results, samples, counts, intervals, summary.json.

The names read from the files (metrics, config keys) live in :mod:`uta_tasks.schema.output`; the
records are decoded with :meth:`uta_tasks.schema.probe.ProbeRecord.from_json`.
"""

from __future__ import annotations

from uta_tasks.runs.estimates import Estimate, EstimateSettings, estimate
from uta_tasks.runs.folder import RunFiles, RunNotFoundError, find_runs, model_name, single_run
from uta_tasks.runs.jsonio import dumps_strict
from uta_tasks.runs.run import Run, load_run
from uta_tasks.runs.summary import build_summary, load_summary, write_summary
from uta_tasks.runs.task_run import TaskRun
from uta_tasks.runs.writer import write_run_folders

__all__ = [
    "Estimate",
    "EstimateSettings",
    "Run",
    "RunFiles",
    "RunNotFoundError",
    "TaskRun",
    "build_summary",
    "dumps_strict",
    "estimate",
    "find_runs",
    "load_run",
    "load_summary",
    "model_name",
    "single_run",
    "write_run_folders",
    "write_summary",
]
