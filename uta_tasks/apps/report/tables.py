"""The report's tables (values as percentages, intervals at the report's confidence).

* headline: genuine follow-up rate per model x benchmark with accuracy (the paper's Tables 3
  and 5, Fig. 3).

The label, perturbation and temperature tables, in the report's layout and the paper's, are
built by :mod:`uta_tasks.apps.report.layouts`.

Every metric by task, a table per section, is generated from the metric table
(:mod:`uta_tasks.apps.report.metric_tables`).

The runs in the paper's own table layouts, and the check against its published cells, are
in :mod:`uta_tasks.apps.report.paper_sections`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from uta_tasks.runs import Estimate
from uta_tasks.runs.collect import ReportData
from uta_tasks.schema import output
from uta_tasks.stats.display import percent, percent_interval


@dataclass
class Table:
    """A table ready to render.

    Attributes:
        id: HTML id.
        title: heading.
        caption: one line on what it shows.
        headers: column names.
        rows: cells as text.
    """

    id: str
    title: str
    caption: str
    headers: list[str]
    rows: list[list[str]] = field(default_factory=list)


def temp_text(t: float | None) -> str:
    """A temperature as shown in tables.

    Args:
        t: the temperature.
    """
    return "?" if t is None else f"{t:g}"


def share_cell(value: float | None, low: float | None, high: float | None) -> str:
    """``12.5 [3.1, 40.2]`` from a share and its interval, or an em dash without a value.

    Args:
        value: the share.
        low: its interval's lower end, or None.
        high: its interval's upper end, or None.
    """
    if value is None:
        return "—"
    iv = percent_interval(low, high)
    return percent(value) + ("" if iv == "—" else f" {iv}")


def rate_cell(m: Estimate | None) -> str:
    """``12.5 [3.1, 40.2]`` from an estimate of a share, or an em dash.

    Args:
        m: the estimate (its value and interval), or None.
    """
    if m is None:
        return "—"
    iv = m.interval
    return share_cell(m.value, None if iv is None else iv.low, None if iv is None else iv.high)


def _n(m: Estimate) -> str:
    return "—" if m.n is None else str(m.n)


def headline(data: ReportData) -> Table:
    """Genuine follow-up rate and accuracy per model x benchmark (unperturbed tasks).

    Args:
        data: the report data.
    """
    benches = data.benchmarks
    headers = ["model", "T"]
    for b in benches:
        headers += [f"{b} follow-up %", f"{b} accuracy %"]
    table = Table("headline", "Genuine follow-up rate and accuracy",
                  f"Share of judged user turns that are genuine follow-ups, {data.settings.confidence:.0%} Wilson "
                  "interval in brackets; accuracy of the pass-1 answer (the benchmark's primary metric).", headers)
    for model, t in data.series:
        cells = [model, temp_text(t)]
        for b in benches:
            row = data.find(model, t, b, output.PERTURBATION_NONE)
            cells += [rate_cell(row.metric(output.GENUINE)) if row else "—",
                      percent(row.metric(output.ACCURACY).value) if row else "—"]
        table.rows.append(cells)
    return table
