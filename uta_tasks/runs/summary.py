"""The strict-JSON summary of a run, written as ``summary.json`` beside lm-eval's results.

lm-eval writes rates with nothing judged as bare ``NaN``, which browsers, ``jq`` and pandas
reject. The summary holds the same numbers as strict JSON (NaN as ``null``), with each
rate's counts and interval, pooled group rows and the run's provenance::

    {"schema": "uta-summary/1", "results_file": "results_<date>.json",
     "settings": {"confidence": 0.95, "iterations": 2000, "seed": 0},
     "provenance": {...},
     "tasks":  {"uta_ifbench": {"benchmark": "ifbench", "perturbation": "none", "repeats": 1,
                                "n_docs": 3, "samples": true,
                                "metrics": {"genuine_followup": {"value": 0.33, "ci_low": 0.06,
                                            "ci_high": 0.79, "ci_method": "wilson", "k": 1, "n": 3,
                                            "counts": "samples", "lm_eval": 0.33, "stderr": null}}}},
     "groups": {"uta_ifbench_all": {"tasks": [...], "metrics": {...}}},
     "lm_eval": {... the results JSON, NaN as null ...}}

``sources`` records the size, modification time and SHA-256 of every results and samples
file the summary was made from (:mod:`uta_tasks.runs.fingerprint`). The gate and the report
read this file only when it is current: made with the same settings, from the files the run
folder holds now, each with the same size and digest. Otherwise they recompute it from the
files (a warning says why it was stale) and write it again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from uta_tasks.judge.redact import redact_value
from uta_tasks.runs.comparability import KEYS as COMPARABILITY_KEYS
from uta_tasks.runs.estimates import Estimate, EstimateSettings, estimate, metrics_of
from uta_tasks.runs.fingerprint import run_sources, stale_reason
from uta_tasks.runs.folder import RunFiles
from uta_tasks.runs.jsonio import read_json, strict, write_json
from uta_tasks.runs.provenance import run_provenance
from uta_tasks.runs.run import Run, load_run
from uta_tasks.runs.summary_types import RunSummary, TaskSummary, estimate_from_json
from uta_tasks.schema import output

if TYPE_CHECKING:
    from uta_tasks.runs.calibration import CalibrationSet

log = logging.getLogger(__name__)


def _metrics(run: Run, name: str, settings: EstimateSettings,
             calibration: CalibrationSet | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for metric in metrics_of(run, name):
        found = estimate(run, name, metric, settings)
        if found is not None:
            out[metric] = found.to_dict()
    if calibration is not None:
        from uta_tasks.runs.corrected import CORRECTED, corrected_entry

        entry = corrected_entry(run, name, calibration, settings)
        if entry is not None:
            out[CORRECTED] = entry
    return out


def _calibration_key(calibration: CalibrationSet | None) -> dict[str, Any] | None:
    return None if calibration is None else calibration.describe()


def build_summary(run: Run, settings: EstimateSettings | None = None,
                  calibration: CalibrationSet | None = None) -> dict[str, Any]:
    """The summary of a run as a strict-JSON-ready dict.

    Args:
        run: the run.
        settings: interval settings.
        calibration: a judge calibration set: adds ``genuine_followup_corrected`` to every row
            with a follow-up rate, and the ``calibration`` key.
    """
    settings = settings or EstimateSettings()
    c = settings.confidence
    tasks = {
        name: TaskSummary(name, _typed(_metrics(run, name, settings, calibration), c), task.benchmark,
                          task.perturbation, task.repeats, task.n_docs, task.logged)
        for name, task in run.tasks.items()
    }
    groups = {
        name: TaskSummary(name, _typed(_metrics(run, name, settings, calibration), c), tasks=members)
        for name, members in run.groups.items()
    }
    summary = RunSummary(
        results_file=run.files.results.name,
        samples_files={task: path.name for task, path in run.files.samples.items()},
        sources=run.sources or run_sources(run.files),
        settings=asdict(settings),
        provenance=run_provenance(run),
        tasks=tasks,
        groups=groups,
        lm_eval=run.results,
        calibration=_calibration_key(calibration),
    )
    # no credential of lm-eval's model_args reaches summary.json (or the report built on it)
    return redact_value(strict(summary.to_json()))


def _typed(metrics: dict[str, Any], confidence: float) -> dict[str, Estimate]:
    return {m: estimate_from_json(m, e, confidence) for m, e in metrics.items()}


def _current(path: Path, files: RunFiles, settings: EstimateSettings,
             calibration: CalibrationSet | None = None) -> dict[str, Any] | None:
    """The summary at ``path`` when it was made with these settings from the files the run
    holds now (:func:`~uta_tasks.runs.fingerprint.stale_reason`), else None (a stale one is logged)."""
    if not path.is_file():
        return None
    try:
        data = read_json(path)
    except ValueError:
        return None
    ok = (
        isinstance(data, dict)
        and data.get("schema") == output.SUMMARY_SCHEMA
        and data.get("results_file") == files.results.name
        and data.get("settings") == asdict(settings)
        and data.get("samples_files") == {t: p.name for t, p in files.samples.items()}
        and data.get("calibration") == _calibration_key(calibration)
        # a summary from before a comparability setting existed is rebuilt, so it says how the run was made
        and all(set(COMPARABILITY_KEYS) <= set(p) for p in ((data.get("provenance") or {}).get("tasks") or {}).values())
    )
    reason = stale_reason(data.get("sources"), files) if isinstance(data, dict) else None
    if reason is not None:
        log.warning("%s is stale: %s; recomputed from the run's files", path, reason)
        return None
    return data if ok else None


def write_summary(run: Run | RunFiles | str | Path, settings: EstimateSettings | None = None,
                  calibration: CalibrationSet | None = None) -> Path:
    """Write ``summary.json`` beside the run's results file.

    Args:
        run: a loaded run, its files, or an output folder (its newest run).
        settings: interval settings.
        calibration: a judge calibration set (adds ``genuine_followup_corrected``).
    """
    loaded = run if isinstance(run, Run) else load_run(run)
    return write_json(loaded.files.summary, build_summary(loaded, settings, calibration))


def load_summary(files: RunFiles, settings: EstimateSettings | None = None,
                 run: Run | Callable[[], Run] | None = None,
                 calibration: CalibrationSet | None = None) -> dict[str, Any]:
    """The run's summary: ``summary.json`` when it is current (made with these settings from
    the files the run folder holds now, each the same size and SHA-256), else built now from
    the files and written.

    Args:
        files: the run's files.
        settings: interval settings the summary must have been made with.
        run: the loaded run when the caller has it already, or how the caller reads it (called
            only when the summary must be built, so that a caller that needs the run anyway
            reads its samples once); default :func:`load_run`.
        calibration: the calibration set the summary must have been made with.
    """
    settings = settings or EstimateSettings()
    found = _current(files.summary, files, settings, calibration)
    if found is not None and redact_value(found) == found:
        return found
    loaded = run if isinstance(run, Run) else run() if run is not None else load_run(files)
    data = build_summary(loaded, settings, calibration)
    try:
        write_json(files.summary, data)
    except OSError as exc:  # a read-only artifact folder still gets a report
        log.warning("could not write %s (%s); continuing with the summary in memory", files.summary, exc)
    return data
