"""``summary.json`` as typed values: :class:`RunSummary`, :class:`TaskSummary` and the
:class:`~uta_tasks.runs.estimates.Estimate` of each metric, each with ``to_json`` and
``from_json``.

``from_json`` reads every ``summary.json`` written before (keys it does not know are kept
and written back), and ``to_json`` writes the JSON :func:`uta_tasks.runs.summary.build_summary`
writes: ``RunSummary.from_json(d).to_json() == d``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from uta_tasks.runs.estimates import Estimate
from uta_tasks.schema import output
from uta_tasks.stats import Interval

_ESTIMATE_KEYS = ("value", "ci_low", "ci_high", "ci_method", "k", "n", "counts", "lm_eval", "stderr")


def estimate_from_json(metric: str, data: Mapping[str, Any], confidence: float = 0.95) -> Estimate:
    """An :class:`Estimate` from its summary entry.

    Args:
        metric: the metric's name.
        data: the entry (``value``, ``ci_low``, ``ci_high``, ``ci_method``, ``k``, ``n``, ...).
        confidence: the summary's ``settings.confidence`` (the interval's coverage).
    """
    low, high, method = data.get("ci_low"), data.get("ci_high"), data.get("ci_method")
    interval = None if low is None or high is None or method is None else Interval(low, high, method, confidence)
    extra = {k: v for k, v in data.items() if k not in _ESTIMATE_KEYS}
    return Estimate(metric, data.get("value"), interval, data.get("k"), data.get("n"), data.get("counts"),
                    data.get("lm_eval"), data.get("stderr"), extra)


def _metrics_from(raw: Mapping[str, Any] | None, confidence: float) -> dict[str, Estimate]:
    """The entries of a saved summary under today's names; where an older summary holds a
    quantity under both names (``share_changed`` from lm-eval, ``changed_share`` with its
    interval), the entry of the older name is the one with counts and interval."""
    out = {str(m): estimate_from_json(str(m), e or {}, confidence) for m, e in (raw or {}).items()
           if str(m) not in output.FORMER_NAMES}
    for old, new in output.FORMER_NAMES.items():
        if raw and old in raw:
            out[new] = estimate_from_json(new, raw[old] or {}, confidence)
    return out


@dataclass(frozen=True)
class TaskSummary:
    """One task (or, with ``tasks`` set, one group) of a run's summary.

    Attributes:
        name: task or group name.
        metrics: metric -> its estimate.
        benchmark: the task's benchmark (None for a group or a task that is not a uta task).
        perturbation: ``none``, ``trunc`` or ``question`` (None for a group).
        repeats: lm-eval ``repeats`` (None for a group).
        n_docs: documents evaluated.
        samples: whether samples were logged.
        tasks: a group's member tasks (None for a task).
        extra: keys this version does not know, written back as read.
    """

    name: str
    metrics: dict[str, Estimate]
    benchmark: str | None = None
    perturbation: str | None = None
    repeats: int | None = None
    n_docs: int | None = None
    samples: bool | None = None
    tasks: list[str] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def metric(self, name: str) -> Estimate | None:
        """A metric's estimate, or None when the task does not report it.

        Args:
            name: metric name.
        """
        return self.metrics.get(name)

    def to_json(self) -> dict[str, Any]:
        """The summary entry."""
        metrics = {m: e.to_dict() for m, e in self.metrics.items()}
        if self.tasks is not None:
            return {"tasks": list(self.tasks), "metrics": metrics, **self.extra}
        return {"benchmark": self.benchmark, "perturbation": self.perturbation, "repeats": self.repeats,
                "n_docs": self.n_docs, "samples": self.samples, "metrics": metrics, **self.extra}

    @classmethod
    def from_json(cls, name: str, data: Mapping[str, Any], confidence: float = 0.95,
                  group: bool = False) -> TaskSummary:
        """Read a task's (or group's) entry.

        Args:
            name: task or group name.
            data: the entry.
            confidence: the summary's interval coverage.
            group: the entry is a group's.
        """
        known = {"tasks", "metrics"} if group else {"benchmark", "perturbation", "repeats", "n_docs", "samples",
                                                   "metrics"}
        extra = {k: v for k, v in data.items() if k not in known}
        metrics = _metrics_from(data.get("metrics"), confidence)
        if group:
            return cls(name, metrics, tasks=[str(t) for t in data.get("tasks") or []], extra=extra)
        return cls(name, metrics, data.get("benchmark"), data.get("perturbation"), data.get("repeats"),
                   data.get("n_docs"), data.get("samples"), extra=extra)


@dataclass(frozen=True)
class RunSummary:
    """A run's ``summary.json``.

    Attributes:
        results_file: the results file it summarises.
        samples_files: task -> its samples file name.
        settings: the interval settings (``confidence``, ``iterations``, ``seed``).
        provenance: how the run was made (:mod:`uta_tasks.runs.provenance`).
        tasks: task name -> :class:`TaskSummary`.
        groups: group name -> :class:`TaskSummary` (with ``tasks``).
        lm_eval: lm-eval's results JSON, NaN as null.
        calibration: the calibration set used, or None.
        sources: file name -> ``size``, ``mtime_ns`` and ``sha256`` of each results and samples
            file it was made from (:mod:`uta_tasks.runs.fingerprint`; empty in an older summary).
        schema: ``uta-summary/1``.
        extra: keys this version does not know, written back as read.
    """

    results_file: str
    samples_files: dict[str, str]
    settings: dict[str, Any]
    provenance: dict[str, Any]
    tasks: dict[str, TaskSummary]
    groups: dict[str, TaskSummary]
    lm_eval: dict[str, Any]
    calibration: dict[str, Any] | None = None
    sources: dict[str, dict[str, Any]] = field(default_factory=dict)
    schema: str = output.SUMMARY_SCHEMA
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def confidence(self) -> float:
        """The coverage of every interval."""
        return float(self.settings.get("confidence", 0.95))

    def row(self, name: str) -> TaskSummary | None:
        """A task's or group's summary, or None when the run has neither.

        Args:
            name: task or group name.
        """
        return self.tasks.get(name) or self.groups.get(name)

    def task_provenance(self, task: str) -> dict[str, Any]:
        """The settings of one task (empty for a task that is not a uta task).

        Args:
            task: task name.
        """
        return dict((self.provenance.get("tasks") or {}).get(task) or {})

    def to_json(self) -> dict[str, Any]:
        """The ``summary.json`` document (before strict-JSON encoding)."""
        calibration = {} if self.calibration is None else {"calibration": self.calibration}
        return {
            "schema": self.schema,
            "results_file": self.results_file,
            "samples_files": dict(self.samples_files),
            **({"sources": dict(self.sources)} if self.sources else {}),
            "settings": dict(self.settings),
            **calibration,
            "provenance": self.provenance,
            "tasks": {n: t.to_json() for n, t in self.tasks.items()},
            "groups": {n: g.to_json() for n, g in self.groups.items()},
            "lm_eval": self.lm_eval,
            **self.extra,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunSummary:
        """Read a ``summary.json`` document (any written before: unknown keys are kept).

        Args:
            data: the parsed JSON.

        Raises:
            ValueError: it is not a uta summary.
        """
        if not isinstance(data, Mapping) or data.get("schema") != output.SUMMARY_SCHEMA:
            raise ValueError(f"not a {output.SUMMARY_SCHEMA} document: write it again with uta-summary")
        settings = dict(data.get("settings") or {})
        confidence = float(settings.get("confidence", 0.95))
        known = {"schema", "results_file", "samples_files", "sources", "settings", "calibration", "provenance",
                 "tasks", "groups", "lm_eval"}
        return cls(
            results_file=str(data.get("results_file")),
            samples_files=dict(data.get("samples_files") or {}),
            sources=dict(data.get("sources") or {}) if isinstance(data.get("sources"), Mapping) else {},
            settings=settings,
            provenance=dict(data.get("provenance") or {}),
            tasks={n: TaskSummary.from_json(n, t, confidence) for n, t in (data.get("tasks") or {}).items()},
            groups={n: TaskSummary.from_json(n, g, confidence, group=True)
                    for n, g in (data.get("groups") or {}).items()},
            lm_eval=dict(data.get("lm_eval") or {}),
            calibration=data.get("calibration"),
            schema=str(data["schema"]),
            extra={k: v for k, v in data.items() if k not in known},
        )
