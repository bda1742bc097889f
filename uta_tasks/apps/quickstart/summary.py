"""The quickstart's summary table, read through :mod:`uta_tasks.runs` (the run's metrics,
those the results file does not keep computed from the samples)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from uta_tasks.runs import Run, RunFiles, RunNotFoundError, build_summary, find_runs
from uta_tasks.runs.summary_types import RunSummary, TaskSummary
from uta_tasks.schema import output

from .verdict_checks import SlotCheck


def find_results(output_path: Path, since: float) -> RunFiles | None:
    """The newest run lm-eval wrote under ``output_path`` after ``since``."""
    try:
        found = [r for r in find_runs(output_path) if r.results.stat().st_mtime >= since]
    except RunNotFoundError:
        return None
    return max(found, key=lambda r: r.results.stat().st_mtime, default=None)


def _typed(run: Run) -> RunSummary:
    """The run's summary (every metric the run has, those the results file does not keep
    computed from the samples), in memory: the quickstart writes nothing into the run folder."""
    return RunSummary.from_json(build_summary(run))


def _value(row: TaskSummary, name: str) -> float | None:
    found = row.metric(name)
    return None if found is None else found.value


def _fmt(value: float | None, percent: bool = True) -> str:
    if value is None:
        return "-"
    return f"{100 * value:.1f}" if percent else f"{value:g}"


def _rate(row: TaskSummary, name: str, check: SlotCheck | None) -> str:
    if check is not None and check.contradictory:
        return "-"
    return _fmt(_value(row, name))


def _contradictory(slots: Mapping[str, SlotCheck] | None) -> str:
    if not slots:
        return "-"
    judged = sum(c.judged for c in slots.values())
    return f"{sum(c.contradictory for c in slots.values())}/{judged}" if judged else "-"


def summary_table(summary: RunSummary | Run, checks: Mapping[str, Mapping[str, SlotCheck]] | None = None) -> str:
    """A compact table of the uta tasks of a run: accuracy, genuine follow-up rate
    (perturbed and base), % changed, unjudged turns, turns labelled by a pre-label rule
    instead of the judge, and self-contradictory verdicts. A genuine rate that counts a
    self-contradictory verdict is shown as ``-``.

    Args:
        summary: the run's summary, or the run (:func:`uta_tasks.runs.load_run`).
        checks: :func:`uta_tasks.apps.quickstart.verdict_checks.check_run` of the same run
            (without it, no verdict is checked).
    """
    from uta_tasks.datasets import BENCHMARKS
    from uta_tasks.schema.labels import LABELS
    from uta_tasks.schema.probe import VERDICT, VERDICT_REF

    if isinstance(summary, Run):
        summary = _typed(summary)
    checks = checks or {}
    header = ("task", "n", "accuracy", "genuine %", "base %", "changed %", "top label", "unjudged", "pre-labelled",
              "contradictory")
    rows = [header]
    for task, row in sorted(summary.tasks.items()):
        if row.benchmark not in BENCHMARKS:
            continue
        primary = BENCHMARKS[row.benchmark].primary
        labels: dict[str, float] = {}
        for label in LABELS:
            share = _value(row, output.label_metric(label))
            if share is not None:
                labels[label] = share
        top = max(labels.items(), key=lambda item: item[1])[0] if labels else None
        slots = checks.get(task) or {}
        rows.append((
            task,
            "?" if row.n_docs is None else str(row.n_docs),
            _fmt(_value(row, primary)) if primary else "-",
            _rate(row, output.GENUINE, slots.get(VERDICT)),
            _rate(row, output.GENUINE_BASE, slots.get(VERDICT_REF)),
            _fmt(_value(row, output.SHARE_CHANGED)),
            f"{top} ({100 * labels[top]:.0f}%)" if top else "-",
            _fmt(_value(row, output.UNJUDGED), percent=False),
            _fmt(_value(row, "judge_calls_saved"), percent=False),
            _contradictory(checks.get(task)),
        ))
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
