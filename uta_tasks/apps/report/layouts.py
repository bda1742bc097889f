"""The three tables the report shows in two layouts, its own and the paper's: one builder
each, which reads the values once and lays them out.

* temperature: the genuine follow-up rate of the unperturbed tasks per model, benchmark and
  temperature; ``report``: a row per model and benchmark, a column per temperature;
  ``paper`` (Table 4, Figs. 1 right and 4): a row per model, a panel of columns per data set;
* labels: each label's share of the judged user turns of the unperturbed tasks, pooled per
  group; ``report``: a group per model and temperature, a row each; ``paper`` (Table 6): a
  group per family (over its models) and temperature, a column each;
* perturbations: base and perturbed rate, their paired difference and the share of changed
  user turns of each perturbed task; ``report``: a row per task, every column; ``paper``
  (Table 1): the left panel for ``trunc`` (Full -> Trunc. per benchmark), the right one for
  ``question`` (Base -> +Question, % Changed).

A layout with no data gives None.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from uta_tasks.apps.report.tables import Table, rate_cell, temp_text
from uta_tasks.paper.models import series_family
from uta_tasks.runs import Estimate
from uta_tasks.runs.collect import ReportData, TaskRow
from uta_tasks.runs.pooled import Pooled, pool
from uta_tasks.schema import output
from uta_tasks.schema.labels import LABELS
from uta_tasks.schema.verdict import JUDGED
from uta_tasks.stats.display import percent

Layout = Literal["report", "paper"]
# Benchmark names as the paper prints them.
PRINTED = {"gsm8k": "GSM8K", "ifeval": "IFEval", "ifbench": "IFBench", "gpqa_main": "GPQA Main",
           "gpqa_diamond": "GPQA Dia.", "healthbench": "HealthBench", "conversations": "conversations"}
TRUNC, QUESTION = "trunc", "question"
DASH = "—"


def printed(bench: str) -> str:
    """A benchmark's name as the paper prints it.

    Args:
        bench: the registry name.
    """
    return PRINTED.get(bench, bench)


def benches_with(data: ReportData, perturbation: str) -> list[str]:
    """The benchmarks that have a task of this perturbation, in the report's order.

    Args:
        data: the report data.
        perturbation: ``none``, ``trunc`` or ``question``.
    """
    return [b for b in data.benchmarks if any(r.benchmark == b and r.perturbation == perturbation for r in data.rows)]


def cell(data: ReportData, model: str, t: float | None, bench: str, pert: str, metric: str) -> str:
    """A rate of one task of a series, or a dash without that task.

    Args:
        data: the report data.
        model: the series' model.
        t: its temperature.
        bench: the benchmark.
        pert: the perturbation.
        metric: the metric.
    """
    row = data.find(model, t, bench, pert)
    return rate_cell(row.metric(metric)) if row else DASH


def _kept(rows: list[list[str]], keys: int) -> list[list[str]]:
    return [r for r in rows if any(c != DASH for c in r[keys:])]


def temperature_table(data: ReportData, layout: Layout) -> Table | None:
    """The rate per temperature (None with a single temperature).

    Args:
        data: the report data.
        layout: ``report`` or ``paper``.
    """
    temps = data.temperatures
    if len(temps) < 2:
        return None
    benches = benches_with(data, output.PERTURBATION_NONE)
    models = list(dict.fromkeys(m for m, _ in data.series))
    rate = {(m, b, t): cell(data, m, t, b, output.PERTURBATION_NONE, output.GENUINE)
            for m in models for b in benches for t in temps}
    if layout == "report":
        return Table("temperatures", "Temperature",
                     "Genuine follow-up rate (%) of the unperturbed tasks at each sampling temperature.",
                     ["model", "benchmark", *(f"T={temp_text(t)}" for t in temps)],
                     _kept([[m, b, *(rate[m, b, t] for t in temps)] for m in models for b in benches], 2))
    return Table("paper-table4", "Paper Table 4 and Figs. 1 (right), 4: temperature sweep",
                 "Genuine follow-up rate (%) at each sampling temperature, one panel of columns per data set.",
                 ["Model", *(f"{printed(b)} T={temp_text(t)}" for b in benches for t in temps)],
                 _kept([[m, *(rate[m, b, t] for b in benches for t in temps)] for m in models], 1))


def label_table(data: ReportData, layout: Layout, families: dict[str, str] | None = None) -> Table | None:
    """Each label's share of the judged user turns of the unperturbed tasks, pooled per group.

    Args:
        data: the report data.
        layout: ``report`` (a group per model and temperature) or ``paper`` (per family).
        families: ``paper``: ``MODEL=FAMILY`` overrides.
    """
    rows = [r for r in data.rows if r.perturbation == output.PERTURBATION_NONE]

    def group(r: TaskRow) -> tuple[str, float | None]:
        return (series_family(r.model, r.model_id, families), r.temperature) if layout == "paper" else (
            r.model, r.temperature)

    keys = list(dict.fromkeys(data.series)) if layout == "report" else list(dict.fromkeys(map(group, rows)))
    if layout == "paper" and not rows:
        return None
    grouped = {k: [r for r in rows if group(r) == k] for k in keys}
    shares: dict[tuple[str, float | None], dict[str, Pooled]] = {
        k: {label: pool(v, output.label_metric(label), data.settings.confidence) for label in LABELS}
        for k, v in grouped.items()}
    if layout == "report":
        return Table("labels", "Label distribution",
                     "Share of judged user turns per label (%), pooled over the unperturbed tasks.",
                     ["model", "T", JUDGED, *LABELS],
                     [[m, temp_text(t), str(max((p.n for p in shares[m, t].values()), default=0)),
                       *(percent(shares[m, t][x].value) for x in LABELS)] for m, t in keys])
    several = len({t for _, t in keys}) > 1
    headers = ["Primary Label", *(f"{fam}{f' T={temp_text(t)}' if several else ''} (%) n={shares[fam, t][LABELS[0]].n}"
                                  for fam, t in keys)]
    models: dict[str, set[str]] = {}
    for (fam, _), fam_rows in grouped.items():
        models.setdefault(fam, set()).update(r.model for r in fam_rows)
    members = "; ".join(f"{fam}: {', '.join(sorted(ms))}" for fam, ms in models.items())
    return Table("paper-table6", "Paper Table 6: label distribution per family",
                 f"Share of judged user turns per primary label (%), pooled over the family's models and the "
                 f"unperturbed tasks ({members}).", headers,
                 [[label, *(percent(shares[k][label].value) for k in keys)] for label in LABELS])


@dataclass(frozen=True)
class _Effect:
    row: TaskRow
    base: Estimate
    perturbed: Estimate
    diff: Estimate
    changed: Estimate


def perturbation_table(data: ReportData, layout: Layout, perturbation: str | None = None) -> Table | None:
    """Base -> perturbed rate of each perturbed task.

    Args:
        data: the report data.
        layout: ``report`` (every perturbed task) or ``paper`` (the panel of ``perturbation``).
        perturbation: ``paper``: ``trunc`` (Table 1 left) or ``question`` (Table 1 right).
    """
    effects = [_Effect(r, r.metric(output.GENUINE_BASE), r.metric(output.GENUINE), r.metric(output.GENUINE_DIFF),
                       r.metric(output.SHARE_CHANGED))
               for r in data.rows if r.perturbation != output.PERTURBATION_NONE
               and (layout == "report" or r.perturbation == perturbation)]
    if layout == "report":
        return Table("perturbations", "Perturbation effects",
                     "Base rate (u after the unperturbed answer) and perturbed rate on the same docs; difference in "
                     "percentage points with a paired bootstrap interval (Newcombe without samples).",
                     ["model", "T", "benchmark", "perturbation", "base %", "perturbed %", "difference pp",
                      "changed %", "n"],
                     [[e.row.model, temp_text(e.row.temperature), e.row.benchmark, e.row.perturbation,
                       rate_cell(e.base), rate_cell(e.perturbed), rate_cell(e.diff), percent(e.changed.value),
                       DASH if e.diff.n is None else str(e.diff.n)] for e in effects])
    if not effects:
        return None
    if perturbation == QUESTION:
        return Table("paper-table1-question", "Paper Table 1 (right): appended question",
                     "Base: follow-up rate (%) after the unperturbed answer; +Question: after the answer with a "
                     "generic question appended; % Changed: share of user turns whose text differs from the "
                     "unperturbed one.", ["Model", "T", "Benchmark", "Base", "+Question", "% Changed"],
                     [[e.row.model, temp_text(e.row.temperature), printed(e.row.benchmark), rate_cell(e.base),
                       rate_cell(e.perturbed), rate_cell(e.changed)] for e in effects])
    benches = benches_with(data, TRUNC)
    by_task: dict[tuple[str, float | None, str], _Effect] = {}
    for e in effects:  # the first of a key, as ReportData.find
        by_task.setdefault((e.row.model, e.row.temperature, e.row.benchmark), e)
    rows = []
    for model, t in data.series:
        found = [by_task.get((model, t, b)) for b in benches]
        rows.append([model, temp_text(t), *(c for e in found
                                            for c in ((rate_cell(e.base), rate_cell(e.perturbed)) if e else
                                                      (DASH, DASH)))])
    return Table("paper-table1-trunc", "Paper Table 1 (left): truncation",
                 "Genuine follow-up rate (%) after the full answer (u_ref, the same docs) and after the truncated "
                 f"answer, {data.settings.confidence:.0%} Wilson interval in brackets.",
                 ["Model", "T", *(f"{printed(b)} {col}" for b in benches for col in ("Full", "Trunc."))],
                 _kept(rows, 2))
