"""One side of the gate (candidate or baseline): a run read lazily, summary first."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from uta_tasks.apps.gate.errors import GateInputError
from uta_tasks.runs import EstimateSettings, Run, RunFiles, RunNotFoundError, load_run, load_summary, single_run
from uta_tasks.runs.summary_types import RunSummary, TaskSummary

if TYPE_CHECKING:
    from uta_tasks.runs.calibration import CalibrationSet


@dataclass
class Side:
    """A run as the gate sees it.

    Attributes:
        role: ``candidate`` or ``baseline`` (for messages).
        files: the run's files.
        settings: interval settings of the gate.
        calibration: the judge calibration set (``genuine_followup_corrected``), or None.
    """

    role: str
    files: RunFiles
    settings: EstimateSettings
    calibration: CalibrationSet | None = None
    _run: Run | None = field(default=None, repr=False)
    _summary: dict[str, Any] | None = field(default=None, repr=False)
    _typed: RunSummary | None = field(default=None, repr=False)

    @classmethod
    def open(cls, role: str, path: str, settings: EstimateSettings,
             calibration: CalibrationSet | None = None) -> Side:
        """Locate the run of ``path``.

        Args:
            role: ``candidate`` or ``baseline``.
            path: lm-eval output folder or results file.
            settings: interval settings.
            calibration: the judge calibration set, or None.
        """
        try:
            return cls(role, single_run(path), settings, calibration)
        except RunNotFoundError as exc:
            raise GateInputError(f"{role}: {exc}") from None

    @property
    def run(self) -> Run:
        """The run with its samples (read on first use)."""
        if self._run is None:
            try:
                self._run = load_run(self.files)
            except (OSError, ValueError, KeyError) as exc:
                raise GateInputError(f"{self.role} {self.files.results}: {exc}") from None
        return self._run

    @property
    def summary(self) -> dict[str, Any]:
        """The run's ``summary.json`` (read when current, else written from the run, which is
        then kept: its samples are read once)."""
        if self._summary is None:
            try:
                self._summary = load_summary(self.files, self.settings, lambda: self.run, self.calibration)
            except GateInputError:
                raise
            except (OSError, ValueError, KeyError) as exc:
                raise GateInputError(f"{self.role} {self.files.results}: {exc}") from None
        return self._summary

    @property
    def typed(self) -> RunSummary:
        """The run's summary as typed values."""
        if self._typed is None:
            self._typed = RunSummary.from_json(self.summary)
        return self._typed

    def row(self, name: str) -> TaskSummary | None:
        """The summary of a task or group, or None when the run lacks it.

        Args:
            name: task or group name.
        """
        return self.typed.row(name)

    def members(self, name: str) -> list[str]:
        """The tasks behind a task or group name.

        Args:
            name: task or group name.
        """
        group = self.typed.groups.get(name)
        return list(group.tasks or []) if group else [name]

    def names(self) -> list[str]:
        """Every task and group name of the run."""
        return sorted([*self.typed.tasks, *self.typed.groups])

    def task_provenance(self, task: str) -> dict[str, Any]:
        """Judge and sampling settings of one task (empty for tasks that are not uta tasks).

        Args:
            task: task name.
        """
        return self.typed.task_provenance(task)
