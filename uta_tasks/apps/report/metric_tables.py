"""The report's tables by task, generated from the metric table: one per section
(:data:`uta_tasks.metrics.sections.SECTIONS`), a row per task, a column per metric of that
section that a run reports, in the metric table's order, each cell as its row says
(``shown_as``). A metric added to the table is in the report with no code here.
"""

from __future__ import annotations

from uta_tasks.apps.report.tables import Table, rate_cell, temp_text
from uta_tasks.metrics.sections import SECTIONS
from uta_tasks.metrics.table import PROBE_METRICS, MetricSpec, rows_of
from uta_tasks.runs import Estimate
from uta_tasks.runs.collect import ReportData, TaskRow

TABLE_PREFIX = "metrics-"


def _cell(row: TaskRow, spec: MetricSpec) -> str:
    m = row.metric(spec.name)
    if m is None or m.value is None:
        return "—"
    if spec.shown_as == "count":
        share = row.metric(spec.observed_as) if spec.units is not None else None
        of = "" if share is None or share.n is None else f" of {share.n} ({rate_cell(share)})"
        return f"{m.value:g}{of}"
    return rate_cell(m) + _units(m)


def _units(m: Estimate) -> str:
    return "" if m.n is None else f" n={m.n}"


def section_tables(data: ReportData) -> list[Table]:
    """One table per section that has a metric the runs report.

    Args:
        data: the report data.
    """
    reported = rows_of(name for row in data.rows for name in row.metrics)
    tables = []
    for section, text in SECTIONS.items():
        specs = [m for m in reported if m.section == section]
        rows = [[row.model, temp_text(row.temperature), row.task, *(_cell(row, m) for m in specs)]
                for row in data.rows]
        rows = [r for r in rows if any(c != "—" for c in r[3:])]
        if specs and rows:
            tables.append(Table(f"{TABLE_PREFIX}{section}", text.title, text.caption,
                                ["model", "T", "task", *(m.name for m in specs)], rows))
    return tables


def sections_markdown() -> str:
    """The manual's list of these tables (docs/report.md, checked by a test)."""
    lines = []
    for section, text in SECTIONS.items():
        names = [m.name for m in PROBE_METRICS if m.section == section]
        shown = ", ".join(f"`{n}`" for n in names if not n.startswith("label_"))
        if any(n.startswith("label_") for n in names):
            shown = ", ".join(filter(None, (shown, "`label_<label>` (each label)")))
        if section == "followup":
            shown += ", `genuine_pass_at_<k>`"
        lines.append(f"- **{text.title}** (`table-{TABLE_PREFIX}{section}`): {text.caption} Metrics: {shown}.")
    return "\n".join(lines)
