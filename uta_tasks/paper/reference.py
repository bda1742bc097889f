"""The reference check: every cell of a run that the paper publishes, with a verdict.

A run's task row matches a published cell when its model is the cell's model (Hugging Face
id, or the same last name part), and benchmark, perturbation, temperature and metric are the
cell's. The verdict is

* ``inside``: the paper's value lies in the run's interval (95% Wilson for a rate, paired
  bootstrap for a difference) widened by the tolerance on both sides;
* ``outside``: it does not;
* ``not comparable``: the run was made with a setting of the comparability table
  (:mod:`uta_tasks.runs.comparability`, its ``paper`` entries: judge model and prompt version,
  ``pass2_context``, ``truncate_scope``, ``user_samples``, judged at all) that is not the
  paper's (accuracy cells check only the settings that change the answer), or on another
  number of documents; the reason names which.

Table 6 cells are checked per family: label shares pooled over the family's models in the
runs (unperturbed tasks, T = 0, the five self-generated benchmarks).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal

from uta_tasks.paper.cells import Cell, PaperReference, load_reference
from uta_tasks.paper.models import paper_model, series_family
from uta_tasks.runs.collect import ReportData, TaskRow
from uta_tasks.runs.comparability import not_comparable_to
from uta_tasks.runs.pooled import pool
from uta_tasks.runs.provenance import task_provenance
from uta_tasks.runs.task_run import TaskRun
from uta_tasks.schema import output

Verdict = Literal["inside", "outside", "not comparable"]
INSIDE: Verdict = "inside"
OUTSIDE: Verdict = "outside"
NOT_COMPARABLE: Verdict = "not comparable"

_RUN_METRICS = {output.GENUINE, output.GENUINE_BASE, output.ACCURACY, output.SHARE_CHANGED}


@dataclass(frozen=True)
class Check:
    """One published cell against one run.

    Attributes:
        cell: the published cell (``origin`` ``derived`` for a difference of two cells).
        run_model: the run's model (or the family, for Table 6).
        task: the run's task (or ``pooled``).
        value: the run's value as a share, or None.
        low: lower end of its interval, or None.
        high: upper end, or None.
        method: how the interval was computed.
        n: units behind the run's value.
        verdict: ``inside``, ``outside`` or ``not comparable``.
        reason: why, in words.
    """

    cell: Cell
    run_model: str
    task: str
    value: float | None
    low: float | None
    high: float | None
    method: str | None
    n: int | None
    verdict: Verdict
    reason: str


def _expected(ref: PaperReference) -> dict[str, tuple[Callable[[Any], bool], str]]:
    """The paper's values of the settings the reference states itself (the comparability table
    holds the others)."""
    def judge(value: Any) -> bool:
        return str(value) == ref.judge_model or str(value).startswith(ref.judge_model + "-20")

    return {
        "judge_model": (judge, ref.judge_model),
        "prompt_version": (lambda v: str(v) in ref.judge_prompts,
                           f"criteria, written in {', '.join(ref.judge_prompts)}"),
        "pass2_context": (lambda v: v == ref.pass2_context, ref.pass2_context),
    }


def settings_differ(task: TaskRun, ref: PaperReference, accuracy_only: bool = False) -> list[str]:
    """How a task's settings differ from the paper's (empty when they do not), by the
    comparability table (:mod:`uta_tasks.runs.comparability`), each setting named.

    Args:
        task: a task of a run.
        ref: the paper's settings.
        accuracy_only: the cell is an accuracy: only the settings that change the answer apply.
    """
    return not_comparable_to(task_provenance(task), _expected(ref), task.perturbation, accuracy_only)


def _verdict(paper: float, value: float | None, low: float | None, high: float | None, tolerance: float,
             reasons: list[str]) -> tuple[Verdict, str]:
    if reasons:
        return NOT_COMPARABLE, "; ".join(reasons)
    if value is None or low is None or high is None:
        return NOT_COMPARABLE, "the run has no value (nothing judged)"
    widened = f" widened by {100 * tolerance:g} pp" if tolerance else ""
    if low - tolerance <= paper <= high + tolerance:
        return INSIDE, f"the paper's value lies in the run's interval{widened}"
    side = "below" if paper < low - tolerance else "above"
    return OUTSIDE, f"the paper's value lies {side} the run's interval{widened}"


def _row_check(cell: Cell, row: TaskRow, metric: str, tolerance: float, settings: list[str]) -> Check:
    task = row.run.tasks[row.task]
    reasons = list(settings)
    if cell.n_docs is not None and task.n_docs is not None and task.n_docs != cell.n_docs:
        reasons.append(f"N: the run has {task.n_docs} documents, the paper {cell.n_docs}")
    m = row.metric(metric)
    iv = m.interval
    low, high, method = (iv.low, iv.high, iv.method) if iv else (None, None, None)
    verdict, reason = _verdict(cell.value / 100.0, m.value, low, high, tolerance, reasons)
    return Check(cell, row.model, row.task, m.value, low, high, method, m.n, verdict, reason)


def _differences(cells: list[Cell]) -> list[Cell]:
    """Derived cells: perturbed minus base of one source, model, benchmark and temperature."""
    out = []
    by_key = {(c.source.split(" (")[0], c.model, c.benchmark, c.perturbation, c.temperature, c.metric): c
              for c in cells}
    for (source, model, bench, pert, t, metric), rate in by_key.items():
        base = by_key.get((source, model, bench, pert, t, output.GENUINE_BASE))
        if pert == output.PERTURBATION_NONE or metric != output.GENUINE or base is None:
            continue
        out.append(replace(rate, id=rate.id.rsplit("/", 1)[0] + "/" + output.GENUINE_DIFF, column=f"{rate.column} - base",
                           metric=output.GENUINE_DIFF, value=round(rate.value - base.value, 1), origin="derived",
                           quote=None, notes=(f"{rate.value} - {base.value}: {rate.source} {rate.column} minus "
                                              f"{base.column}, not printed by the paper.", *base.notes)))
    return out


def _family_checks(data: ReportData, cells: list[Cell], tolerance: float, ref: PaperReference,
                   families: dict[str, str] | None) -> list[Check]:
    rows = [r for r in data.rows if r.temperature == 0.0 and r.perturbation == output.PERTURBATION_NONE]
    out = []
    for family in dict.fromkeys(series_family(r.model, r.model_id, families) for r in rows):
        fam_rows = [r for r in rows if series_family(r.model, r.model_id, families) == family]
        fam_cells = [c for c in cells if c.source == "Table 6" and c.model == family]
        if not fam_cells:
            continue
        reasons = sorted({x for r in fam_rows for x in settings_differ(r.run.tasks[r.task], ref)})
        docs = sum(r.run.tasks[r.task].n_docs or 0 for r in fam_rows)
        for cell in fam_cells:
            extra = [] if docs == cell.n_docs else [f"N: the runs pool {docs} documents, the paper {cell.n_docs}"]
            p = pool(fam_rows, cell.metric, data.settings.confidence)
            iv = p.interval
            verdict, reason = _verdict(cell.value / 100.0, p.value, iv.low if iv else None, iv.high if iv else None,
                                       tolerance, [*reasons, *extra])
            out.append(Check(cell, family, "pooled", p.value, iv.low if iv else None, iv.high if iv else None,
                             iv.method if iv else None, p.n, verdict, reason))
    return out


def check_reference(data: ReportData, tolerance_pp: float = 0.0, families: dict[str, str] | None = None,
                    ref: PaperReference | None = None) -> list[Check]:
    """Every published cell the runs measure, with its verdict.

    Args:
        data: the runs.
        tolerance_pp: percentage points the interval is widened by on each side.
        families: ``--family MODEL=FAMILY`` pairs for Table 6.
        ref: the paper's cells (default: the packaged ``cells_v1.json``).
    """
    ref = ref or load_reference()
    tolerance = tolerance_pp / 100.0
    cells = [c for c in ref.cells if c.metric in _RUN_METRICS]
    cells += _differences(cells)
    out: list[Check] = []
    for row in data.rows:
        found = paper_model(row.model_id or row.model)
        if found is None:
            continue
        matched = [c for c in cells if (c.model, c.benchmark, c.perturbation, c.temperature) == (
            found.model, row.benchmark, row.perturbation, row.temperature) and row.metrics.get(c.metric)]
        task = row.run.tasks[row.task]
        # Accuracy scores pass 1's answer: only the settings that change the answer apply to it.
        out += [_row_check(cell, row, cell.metric, tolerance,
                           settings_differ(task, ref, accuracy_only=cell.metric == output.ACCURACY))
                for cell in matched]
    out += _family_checks(data, list(ref.cells), tolerance, ref, families)
    return out
