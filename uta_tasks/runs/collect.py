"""Gather the runs of a report: every task of every run, keyed by model, temperature and task.

Folders may hold several models, temperatures and task sets, with or without samples.
Each task row comes from the run's summary (``summary.json``, written when missing); when
two runs give the same model, temperature and task, the newer one is used.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from uta_tasks.datasets import BENCHMARKS
from uta_tasks.probe import perturbations
from uta_tasks.runs import Estimate, EstimateSettings, Run, find_runs, load_run, load_summary
from uta_tasks.runs.summary_types import RunSummary
from uta_tasks.schema import output

if TYPE_CHECKING:
    from uta_tasks.runs.calibration import CalibrationSet

log = logging.getLogger(__name__)


@dataclass
class TaskRow:
    """One task of one model at one temperature.

    Attributes:
        model: the series name: the model's display name, with its probe modes when they are
            not the defaults (see :func:`mode_name`).
        temperature: sampling temperature (None when unknown).
        task: task name.
        benchmark: benchmark name.
        perturbation: ``none``, ``trunc`` or ``question``.
        metrics: metric -> its estimate (the run summary's :class:`~uta_tasks.runs.Estimate`).
        run: the run it came from (for its samples).
        model_id: the model's display name alone (no modes): what the paper's cells match.
    """

    model: str
    temperature: float | None
    task: str
    benchmark: str
    perturbation: str
    metrics: dict[str, Estimate]
    run: Run
    model_id: str = ""

    def metric(self, name: str) -> Estimate:
        """A metric's estimate (value None when the task does not report it).

        Args:
            name: metric name.
        """
        return self.metrics.get(name) or Estimate(name, None)


@dataclass
class ReportData:
    """Everything a report shows.

    Attributes:
        rows: task rows, sorted by model, temperature, benchmark, perturbation.
        provenance: one provenance dict per run, plus its folder.
        settings: interval settings.
        calibration: the judge calibration set used (its description), or None.
        retest: the judge test-retest results (``uta-rejudge --retest``), or None.
    """

    rows: list[TaskRow] = field(default_factory=list)
    provenance: list[dict[str, Any]] = field(default_factory=list)
    settings: EstimateSettings = field(default_factory=EstimateSettings)
    calibration: dict[str, Any] | None = None
    retest: dict[str, Any] | None = None

    @property
    def series(self) -> list[tuple[str, float | None]]:
        """Distinct (model, temperature) pairs in order."""
        return list(dict.fromkeys((r.model, r.temperature) for r in self.rows))

    @property
    def temperatures(self) -> list[float | None]:
        """Distinct temperatures in order."""
        return sorted({r.temperature for r in self.rows}, key=lambda t: (t is None, t or 0.0))

    @property
    def benchmarks(self) -> list[str]:
        """Distinct benchmarks in the package's order."""
        order = list(BENCHMARKS)
        found = {r.benchmark for r in self.rows}
        return sorted(found, key=lambda b: (order.index(b) if b in order else len(order), b))

    def find(self, model: str, temperature: float | None, benchmark: str, perturbation: str) -> TaskRow | None:
        """The row of one model, temperature, benchmark and perturbation, if any.

        Args:
            model: display name.
            temperature: temperature.
            benchmark: benchmark name.
            perturbation: perturbation.
        """
        for row in self.rows:
            if (row.model, row.temperature, row.benchmark, row.perturbation) == (model, temperature, benchmark,
                                                                                 perturbation):
                return row
        return None


def display_model(name: str) -> str:
    """A short model name: the last path part of a local directory, else the name as given.

    Args:
        name: lm-eval's model name (``pretrained=`` value).
    """
    return Path(name).name if name.startswith(("/", ".", "~")) else name


def mode_name(model: str, task_prov: dict[str, Any]) -> str:
    """The model's series name: with its probe modes when they are not the defaults
    (``pass2_context``, ``truncate_scope``), so that runs of different modes stay apart and
    show side by side, as temperatures do.

    Args:
        model: display name.
        task_prov: the task's provenance.
    """
    from uta_tasks.schema.probe import ProbeSpec

    modes = [f"{k}={task_prov[k]}" for k in output.RUN_MODES
             if task_prov.get(k) is not None and task_prov[k] != getattr(ProbeSpec, k)]
    return f"{model} [{', '.join(modes)}]" if modes else model


def _temperature(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def collect(folders: list[str | Path], settings: EstimateSettings | None = None,
            calibration: CalibrationSet | None = None, examples: int = 0) -> ReportData:
    """Read every run under the folders, each samples file in one pass.

    Args:
        folders: lm-eval output folders (or results files).
        settings: interval settings.
        calibration: a judge calibration set: rows get ``genuine_followup_corrected``.
        examples: per task, the first logged docs kept for showing (:attr:`uta_tasks.runs.TaskRun.examples`).
    """
    settings = settings or EstimateSettings()
    data = ReportData(settings=settings, calibration=None if calibration is None else calibration.describe())
    chosen: dict[tuple[str, float | None, str], TaskRow] = {}
    for folder in folders:
        for files in find_runs(folder):
            run = load_run(files, examples=examples)
            summary = RunSummary.from_json(load_summary(files, settings, run, calibration))
            prov = summary.provenance
            model = display_model(str(prov["model"]))
            data.provenance.append({**prov, "display_model": model, "folder": str(files.results.parent)})
            for task, row in summary.tasks.items():
                if row.benchmark is None:
                    continue
                task_prov = prov["tasks"].get(task, {})
                temperature = _temperature(task_prov.get("temperature"))
                key = (mode_name(model, task_prov), temperature, task)
                if key in chosen:
                    log.info("%s at T=%s: %s replaces an older run", task, temperature, files.results.name)
                chosen[key] = TaskRow(key[0], temperature, task, row.benchmark,
                                      row.perturbation or output.PERTURBATION_NONE, row.metrics, run, model)
    order: dict[str, int] = {p: i for i, p in enumerate(perturbations.names())}
    benches = list(BENCHMARKS)
    data.rows = sorted(chosen.values(), key=lambda r: (
        r.model, r.temperature is None, r.temperature or 0.0,
        benches.index(r.benchmark) if r.benchmark in benches else len(benches), order.get(r.perturbation, 9), r.task))
    return data
