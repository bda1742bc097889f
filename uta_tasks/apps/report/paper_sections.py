"""The runs laid out in the paper's own tables, and the reference check against its cells.

* Table 1 (left): truncation, Full -> Trunc. per benchmark;
* Table 1 (right): appended question, Base -> +Question and % Changed;
* Tables 3 and 5: GSM8K accuracy and the follow-up rate on every benchmark;
* Fig. 3: task accuracy beside follow-up on GSM8K, GPQA Diamond and IFBench;
* Table 4 (Figs. 1 right and 4): the temperature sweep, one panel per data set;
* Table 6: label distribution pooled per family over the family's models (unperturbed tasks);
* the reference check: every published cell the runs measure, with a verdict.

Table 1, Table 4 and Table 6 are the paper's layout of the report's perturbation,
temperature and label tables (:mod:`uta_tasks.apps.report.layouts`).

A section with no data is left out.
"""

from __future__ import annotations

# A module import: uta_tasks.paper.reference reads ReportData from this package, so its names
# are looked up when a section is built, not when this module loads.
import uta_tasks.paper.reference as paper_reference
from uta_tasks.apps.report.layouts import (
    QUESTION,
    TRUNC,
    benches_with,
    cell,
    label_table,
    perturbation_table,
    printed,
    temperature_table,
)
from uta_tasks.apps.report.tables import Table, share_cell, temp_text
from uta_tasks.runs.collect import ReportData
from uta_tasks.schema import output

FIG3_BENCHMARKS = ("gsm8k", "gpqa_diamond", "ifbench")


def tables_3_5(data: ReportData) -> Table | None:
    """Tables 3 and 5: GSM8K accuracy and the follow-up rate per benchmark (unperturbed tasks).

    Args:
        data: the report data.
    """
    benches = benches_with(data, output.PERTURBATION_NONE)
    if not benches:
        return None
    acc = ["GSM8K Acc."] if "gsm8k" in benches else []
    table = Table("paper-tables35", "Paper Tables 3 and 5: accuracy and follow-up per benchmark",
                  "GSM8K answer accuracy (%) and genuine follow-up rate (%) on every benchmark, "
                  f"{data.settings.confidence:.0%} Wilson interval in brackets.",
                  ["Model", "T", *acc, *(printed(b) for b in benches)])
    for model, t in data.series:
        cells = [cell(data, model, t, "gsm8k", output.PERTURBATION_NONE, output.ACCURACY)] if acc else []
        cells += [cell(data, model, t, b, output.PERTURBATION_NONE, output.GENUINE) for b in benches]
        if any(c != "—" for c in cells):
            table.rows.append([model, temp_text(t), *cells])
    return table


def fig3(data: ReportData) -> Table | None:
    """Fig. 3: task accuracy beside follow-up rate on GSM8K, GPQA Diamond and IFBench.

    Args:
        data: the report data.
    """
    benches = [b for b in FIG3_BENCHMARKS if b in benches_with(data, output.PERTURBATION_NONE)]
    if not benches:
        return None
    table = Table("paper-fig3", "Paper Fig. 3: task accuracy vs follow-up rate",
                  "Top row of the figure: task accuracy (%); bottom row: genuine follow-up rate (%).",
                  ["Model", "T", *(f"{printed(b)} {k}" for k in ("accuracy", "follow-up") for b in benches)])
    for model, t in data.series:
        cells = [cell(data, model, t, b, output.PERTURBATION_NONE, m)
                 for m in (output.ACCURACY, output.GENUINE) for b in benches]
        if any(c != "—" for c in cells):
            table.rows.append([model, temp_text(t), *cells])
    return table


def _check_row(c: paper_reference.Check) -> list[str]:
    temp = "—" if c.cell.temperature is None else temp_text(c.cell.temperature)
    return [c.cell.source, c.run_model, c.task, c.cell.metric, temp, f"{c.cell.value:.1f}",
            share_cell(c.value, c.low, c.high),
            "—" if c.n is None else str(c.n), c.verdict, c.reason, " ".join(c.cell.notes) or "—"]


def reference(data: ReportData, families: dict[str, str] | None = None, tolerance_pp: float = 0.0) -> Table | None:
    """The reference check: every published cell the runs measure, with its verdict.

    Args:
        data: the report data.
        families: ``MODEL=FAMILY`` overrides.
        tolerance_pp: percentage points the run's interval is widened by.
    """
    checks = paper_reference.check_reference(data, tolerance_pp, families)
    if not checks:
        return None
    widened = f", widened by {tolerance_pp:g} pp" if tolerance_pp else ""
    return Table("paper-reference", "Reference check against the paper",
                 "Every published cell (uta_tasks/paper/cells_v1.json) whose model, benchmark, perturbation and "
                 f"temperature a run matches: the paper's value, the run's with its {data.settings.confidence:.0%} "
                 f"interval{widened} (Wilson; paired bootstrap for differences), and the verdict. Not comparable: "
                 "another judge model or prompt version, another pass2_context, or another N.",
                 ["Source", "Model", "Task", "Metric", "T", "Paper %", "Run %", "n", "Verdict", "Reason",
                  "Paper notes"], [_check_row(c) for c in checks])


def paper_tables(data: ReportData, families: dict[str, str] | None = None, tolerance_pp: float = 0.0) -> list[Table]:
    """Every paper section that has data, in the paper's order, then the reference check.

    Args:
        data: the report data.
        families: ``MODEL=FAMILY`` overrides.
        tolerance_pp: tolerance of the reference check.
    """
    found = [perturbation_table(data, "paper", TRUNC), perturbation_table(data, "paper", QUESTION), tables_3_5(data),
             fig3(data), temperature_table(data, "paper"), label_table(data, "paper", families),
             reference(data, families, tolerance_pp)]
    return [t for t in found if t is not None]
