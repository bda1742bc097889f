"""The paper's figures drawn from the runs, as inline SVG (:mod:`uta_tasks.apps.report.svg`).

* ``paper-fig3``: Fig. 3, task accuracy (top) and follow-up rate (bottom) on GSM8K, GPQA
  Diamond and IFBench, one bar per model, at the lowest temperature of the runs;
* ``paper-fig1-4``: Figs. 1 (right) and 4, follow-up rate against temperature, one panel per
  data set, one line per model (with several temperatures only);
* ``paper-table6``: Table 6 as stacked bars, one per family.

Several panels are nested ``<svg>`` elements of one figure. A figure without data is left out.
"""

from __future__ import annotations

import re

from uta_tasks.apps.report.figures import LABEL_COLORS, RATE_AXIS, rate_point
from uta_tasks.apps.report.layouts import PRINTED
from uta_tasks.apps.report.paper_sections import FIG3_BENCHMARKS
from uta_tasks.apps.report.svg import Series, bar_chart, line_chart, stacked_bar_chart
from uta_tasks.paper.models import series_family
from uta_tasks.runs.collect import ReportData
from uta_tasks.runs.pooled import pool
from uta_tasks.schema import output
from uta_tasks.schema.labels import LABELS

# Which paper section each figure is shown in.
PAPER_FIGURE_SECTION = {"paper-fig3": "paper-fig3", "paper-fig1-4": "paper-table4", "paper-table6": "paper-table6"}
_SIZE = re.compile(r'^<svg [^>]*?width="([\d.]+)" height="([\d.]+)"')


def panels(title: str, charts: list[str], *, vertical: bool = False) -> str:
    """Charts side by side (or one under the other) as one ``<svg>``.

    Args:
        title: the accessible name of the whole figure.
        charts: ``<svg>`` markup of each panel, as :mod:`uta_tasks.apps.report.svg` writes it.
        vertical: stack the panels instead of placing them in a row.
    """
    sizes = []
    for chart in charts:
        match = _SIZE.match(chart)
        if match is None:
            raise ValueError(f"panels: a chart of {title!r} does not start with <svg width=... height=...>")
        sizes.append((float(match.group(1)), float(match.group(2))))
    width = max(w for w, _ in sizes) if vertical else sum(w for w, _ in sizes)
    height = sum(h for _, h in sizes) if vertical else max(h for _, h in sizes)
    parts, offset = [], 0.0
    for chart, (w, h) in zip(charts, sizes):
        x, y = (0.0, offset) if vertical else (offset, 0.0)
        parts.append(chart.replace("<svg ", f'<svg x="{x:g}" y="{y:g}" ', 1))
        offset += h if vertical else w
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}" '
            f'viewBox="0 0 {width:g} {height:g}" role="img" aria-label="{title}">' + "".join(parts) + "</svg>")


def fig3(data: ReportData) -> str | None:
    """Fig. 3: accuracy and follow-up rate per benchmark, one bar per model (lowest temperature).

    Args:
        data: the report data.
    """
    benches = [b for b in FIG3_BENCHMARKS if any(r.benchmark == b and r.perturbation == output.PERTURBATION_NONE
                                                  for r in data.rows)]
    if not benches:
        return None
    t = data.temperatures[0]
    models = list(dict.fromkeys(m for m, temp in data.series if temp == t))
    charts = []
    for metric, heading, axis in ((output.ACCURACY, "Task accuracy", "accuracy (%)"),
                                  (output.GENUINE, "Genuine follow-up rate", RATE_AXIS)):
        series = []
        for model in models:
            rows = [data.find(model, t, b, output.PERTURBATION_NONE) for b in benches]
            points = [rate_point(r.metric(metric)) if r else None for r in rows]
            if any(p is not None for p in points):
                series.append(Series(model, points))
        charts.append(bar_chart(heading, [PRINTED.get(b, b) for b in benches], series, y_label=axis))
    return panels("Fig. 3: task accuracy vs follow-up rate", charts, vertical=True)


def fig1_4(data: ReportData) -> str | None:
    """Figs. 1 (right) and 4: follow-up rate against temperature, one panel per data set.

    Args:
        data: the report data.
    """
    temps = [t for t in data.temperatures if t is not None]
    if len(temps) < 2:
        return None
    charts = []
    models = list(dict.fromkeys(m for m, _ in data.series))
    for bench in data.benchmarks:
        series = []
        for model in models:
            rows = [data.find(model, t, bench, output.PERTURBATION_NONE) for t in temps]
            points = [rate_point(r.metric(output.GENUINE)) if r else None for r in rows]
            if any(p is not None for p in points):
                series.append(Series(model, points))
        if series:
            charts.append(line_chart(PRINTED.get(bench, bench), temps, series, x_label="temperature",
                                     y_label=RATE_AXIS, plot_width=240.0))
    return panels("Figs. 1 (right) and 4: follow-up rate vs temperature", charts) if charts else None


def table6(data: ReportData, families: dict[str, str] | None = None) -> str | None:
    """Table 6 as stacked bars: label shares pooled per family (and temperature).

    Args:
        data: the report data.
        families: ``MODEL=FAMILY`` overrides.
    """
    rows = [r for r in data.rows if r.perturbation == output.PERTURBATION_NONE]
    keys = list(dict.fromkeys((series_family(r.model, r.model_id, families), r.temperature) for r in rows))
    if not keys:
        return None
    several = len({t for _, t in keys}) > 1
    labels = [f"{fam} (T={t:g})" if several and t is not None else fam for fam, t in keys]
    segments = []
    for i, label in enumerate(LABELS):
        values = []
        for key in keys:
            share = pool([r for r in rows if (series_family(r.model, r.model_id, families), r.temperature) == key],
                          output.label_metric(label), data.settings.confidence).value
            values.append(100.0 * (share or 0.0))
        segments.append(Series(label, values, LABEL_COLORS[i % len(LABEL_COLORS)]))
    return stacked_bar_chart("Table 6: label distribution per family", labels, segments,
                             x_label="share of judged user turns (%)")


def paper_figures(data: ReportData, families: dict[str, str] | None = None) -> list[tuple[str, str, str]]:
    """``(name, title, markup)`` of every paper figure that has data.

    Args:
        data: the report data.
        families: ``MODEL=FAMILY`` overrides.
    """
    found = [("paper-fig3", "Fig. 3 (from the runs)", fig3(data)),
             ("paper-fig1-4", "Figs. 1 (right) and 4 (from the runs)", fig1_4(data)),
             ("paper-table6", "Table 6 as bars (from the runs)", table6(data, families))]
    return [(name, title, markup) for name, title, markup in found if markup is not None]
