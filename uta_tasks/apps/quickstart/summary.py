"""The quickstart's summary table, read through :mod:`uta_tasks.runs` (the run's metrics,
those the results file does not keep computed from the samples)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from uta_tasks.runs import Run, RunFiles, RunNotFoundError, find_runs
from uta_tasks.schema import output

from .verdict_checks import SlotCheck


def find_results(output_path: Path, since: float) -> RunFiles | None:
    """The newest run lm-eval wrote under ``output_path`` after ``since``."""
    try:
        found = [r for r in find_runs(output_path) if r.results.stat().st_mtime >= since]
    except RunNotFoundError:
        return None
    return max(found, key=lambda r: r.results.stat().st_mtime, default=None)


def _as_results(run: Run) -> dict[str, Any]:
    """The run's tasks in the results JSON's shape, with every metric the run has."""
    return {
        "results": {name: {output.metric_key(m): v for m, v in t.values.items()} for name, t in run.tasks.items()},
        "configs": {name: t.config for name, t in run.tasks.items()},
        "n-samples": {name: {"effective": t.n_docs} for name, t in run.tasks.items() if t.n_docs is not None},
    }


def _metric(values: Mapping[str, Any], name: str) -> float | None:
    value = values.get(f"{name},none")
    if isinstance(value, (int, float)) and not (isinstance(value, float) and math.isnan(value)):
        return float(value)
    return None


def _fmt(value: float | None, percent: bool = True) -> str:
    if value is None:
        return "-"
    return f"{100 * value:.1f}" if percent else f"{value:g}"


def _rate(values: Mapping[str, Any], name: str, check: SlotCheck | None) -> str:
    if check is not None and check.contradictory:
        return "-"
    return _fmt(_metric(values, name))


def _contradictory(slots: Mapping[str, SlotCheck] | None) -> str:
    if not slots:
        return "-"
    judged = sum(c.judged for c in slots.values())
    return f"{sum(c.contradictory for c in slots.values())}/{judged}" if judged else "-"


def summary_table(results: Mapping[str, Any] | Run,
                  checks: Mapping[str, Mapping[str, SlotCheck]] | None = None) -> str:
    """A compact table of the uta tasks in an lm-eval results JSON: accuracy, genuine
    follow-up rate (perturbed and base), % changed, unjudged turns, turns labelled by a
    pre-label rule instead of the judge, and self-contradictory verdicts. A genuine rate that counts a self-contradictory verdict is shown as ``-``.

    Args:
        results: the run (:func:`uta_tasks.runs.load_run`), or lm-eval's results JSON.
        checks: :func:`uta_tasks.apps.quickstart.verdict_checks.check_run` of the same run
            (without it, no verdict is checked).
    """
    from uta_tasks.datasets import BENCHMARKS
    from uta_tasks.schema.labels import LABELS
    from uta_tasks.schema.probe import VERDICT, VERDICT_REF
    from uta_tasks.tasks.generate import group_names

    if isinstance(results, Run):
        results = _as_results(results)
    checks = checks or {}
    groups = set(group_names())
    header = ("task", "n", "accuracy", "genuine %", "base %", "changed %", "top label", "unjudged", "pre-labelled",
              "contradictory")
    rows = [header]
    for task, values in sorted(results.get("results", {}).items()):
        config = results.get("configs", {}).get(task) or {}
        bench = (config.get("metadata") or {}).get(output.META_BENCHMARK)
        if bench not in BENCHMARKS or task in groups:
            continue
        primary = BENCHMARKS[bench].primary
        labels: dict[str, float] = {}
        for label in LABELS:
            share = _metric(values, output.label_metric(label))
            if share is not None:
                labels[label] = share
        top = max(labels.items(), key=lambda item: item[1])[0] if labels else None
        n = (results.get("n-samples", {}).get(task) or {}).get("effective", "?")
        slots = checks.get(task) or {}
        rows.append((
            task,
            str(n),
            _fmt(_metric(values, primary)) if primary else "-",
            _rate(values, output.GENUINE, slots.get(VERDICT)),
            _rate(values, output.GENUINE_BASE, slots.get(VERDICT_REF)),
            _fmt(_metric(values, output.PCT_CHANGED)),
            f"{top} ({100 * labels[top]:.0f}%)" if top else "-",
            _fmt(_metric(values, output.UNJUDGED), percent=False),
            _fmt(_metric(values, "judge_calls_saved"), percent=False),
            _contradictory(checks.get(task)),
        ))
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
