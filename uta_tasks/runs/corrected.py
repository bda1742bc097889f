"""``genuine_followup_corrected``: a task's or group's follow-up rate corrected for the judge's
error measured on a calibration set (:mod:`uta_tasks.runs.calibration`), with the
two-source bootstrap interval of :mod:`uta_tasks.stats.correction`.

It needs the logged samples (the docs are the run's resampling clusters) and a run judged by
the calibrated judge (same judge model and prompt version); otherwise the entry has no
value and its ``note`` says why.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from uta_tasks.runs.estimates import SAMPLES, EstimateSettings
from uta_tasks.runs.provenance import task_provenance
from uta_tasks.runs.run import Run
from uta_tasks.schema import output
from uta_tasks.stats.correction import METHOD, corrected_rate

if TYPE_CHECKING:
    from uta_tasks.runs.calibration import CalibrationSet

CORRECTED = "genuine_followup_corrected"


def _entry(value: float | None, note: str | None, **extra: Any) -> dict[str, Any]:
    return {"value": value, "ci_low": None, "ci_high": None, "ci_method": None, "k": None, "n": None,
            "counts": SAMPLES, "lm_eval": None, "stderr": None, "note": note, **extra}


def corrected_entry(run: Run, name: str, calibration: CalibrationSet,
                    settings: EstimateSettings | None = None) -> dict[str, Any] | None:
    """The summary entry of ``genuine_followup_corrected`` for a task or group, or None when
    the task or group reports no follow-up rate.

    Args:
        run: the run.
        name: task or group name.
        calibration: the judge's calibration set.
        settings: interval settings (replicates and seed of the bootstrap).
    """
    settings = settings or EstimateSettings()
    tasks = [run.tasks[t] for t in run.members(name) if t in run.tasks and run.tasks[t].is_uta]
    if not tasks or not any(output.GENUINE in t.values for t in tasks):
        return None
    if any(t.observations is None for t in tasks):
        return _entry(None, "needs the logged samples (--log_samples): the docs are the bootstrap's clusters")
    for task in tasks:
        prov = task_provenance(task)
        why = calibration.matches(prov)
        if why is not None:
            return _entry(None, f"{task.name}: {why}")
    clusters: dict[tuple[str, int], list[float]] = defaultdict(list)
    for task in tasks:
        assert task.observations is not None
        for key, value in task.observations.units(output.GENUINE).items():
            clusters[(key[0], key[1])].append(value)
    if not clusters:
        return _entry(None, "no judged user turn")
    sums = [sum(v) for v in clusters.values()]
    units = [len(v) for v in clusters.values()]
    acc = calibration.accuracy
    found = corrected_rate(sums, units, acc, replicates=max(100, settings.iterations), seed=settings.seed,
                           confidence=settings.confidence)
    iv = found.interval
    return {
        "value": found.value,
        "ci_low": iv.low if iv else None,
        "ci_high": iv.high if iv else None,
        "ci_method": METHOD,
        "k": found.k,
        "n": found.n,
        "counts": SAMPLES,
        "lm_eval": None,
        "stderr": None,
        "note": found.reason,
        "observed": found.observed,
        "sensitivity": acc.sensitivity,
        "specificity": acc.specificity,
        "calibration_items": acc.items,
        "undefined_replicates": found.undefined_replicates,
    }
