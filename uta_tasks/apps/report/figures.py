"""The report's figures, drawn as inline SVG by :mod:`uta_tasks.apps.report.svg` and saved as ``.svg`` files.

* ``headline``: genuine follow-up rate per benchmark and model, with Wilson intervals;
* ``labels``: label distribution per model as stacked bars (the paper's Table 6 as a chart);
* ``perturbations``: base vs perturbed rate per benchmark and perturbation;
* ``temperature``: rate against temperature (the paper's Figs. 1 right and 4), when several are given;
* ``turns``: rate against the user turn of held-out conversations (:mod:`.turns`), when several are probed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from uta_tasks.apps.report.svg import Point, Series, bar_chart, line_chart, stacked_bar_chart, svg_document
from uta_tasks.apps.report.tables import temp_text
from uta_tasks.apps.report.turns import turns_figure
from uta_tasks.runs import Estimate
from uta_tasks.runs.atomic import write_text
from uta_tasks.runs.collect import ReportData
from uta_tasks.runs.pooled import label_shares
from uta_tasks.schema import output
from uta_tasks.schema.labels import LABELS

LABEL_COLORS = ("#2e7d32", "#c62828", "#ef6c00", "#6a1b9a", "#1565c0", "#9e9e9e", "#5d4037", "#00838f")
RATE_AXIS = "genuine follow-up rate (%)"


@dataclass(frozen=True)
class FigureFile:
    """A saved figure.

    Attributes:
        name: file stem, e.g. ``labels``.
        title: heading in the report.
        svg: the SVG file.
        svg_inline: the SVG markup for inlining in HTML (no XML prolog).
    """

    name: str
    title: str
    svg: Path
    svg_inline: str


def _series_name(model: str, t: float | None, data: ReportData) -> str:
    return model if len(data.temperatures) < 2 else f"{model} (T={temp_text(t)})"


def rate_point(m: Estimate | None) -> Point | None:
    """An estimate of a share (value and interval) as a percentage point, or None without a value."""
    if m is None or m.value is None:
        return None
    iv = m.interval
    return Point(100.0 * m.value, None if iv is None else 100.0 * iv.low, None if iv is None else 100.0 * iv.high)


def _headline(data: ReportData) -> str:
    benches = data.benchmarks
    series = []
    for model, t in data.series:
        cells = []
        for b in benches:
            row = data.find(model, t, b, output.PERTURBATION_NONE)
            cells.append(rate_point(row.metric(output.GENUINE)) if row else None)
        series.append(Series(_series_name(model, t, data), cells))
    return bar_chart("Genuine follow-up rate (95% Wilson interval)", benches, series, y_label=RATE_AXIS)


def _labels(data: ReportData) -> str:
    rows = [_series_name(m, t, data) for m, t in data.series]
    segments = []
    for j, label in enumerate(LABELS):
        shares = [label_shares(data, m, t)[label].value for m, t in data.series]
        segments.append(Series(label, [100.0 * (s or 0.0) for s in shares], LABEL_COLORS[j % len(LABEL_COLORS)]))
    return stacked_bar_chart("Label distribution (unperturbed tasks)", rows, segments,
                             x_label="share of judged user turns (%)")


def _perturbations(data: ReportData) -> str | None:
    rows = [r for r in data.rows if r.perturbation != output.PERTURBATION_NONE]
    if not rows:
        return None
    groups = [f"{r.benchmark}\n{r.perturbation}\n{_series_name(r.model, r.temperature, data)}" for r in rows]
    series = [Series("base (u after a)", [rate_point(r.metric(output.GENUINE_BASE)) for r in rows]),
              Series("perturbed (u after a')", [rate_point(r.metric(output.GENUINE)) for r in rows])]
    return bar_chart("Perturbation effects: base vs perturbed rate", groups, series, y_label=RATE_AXIS)


def _temperature(data: ReportData) -> str | None:
    temps = [t for t in data.temperatures if t is not None]
    if len(temps) < 2:
        return None
    series = []
    for model in dict.fromkeys(m for m, _ in data.series):
        for b in data.benchmarks:
            pts = []
            for t in temps:
                row = data.find(model, t, b, output.PERTURBATION_NONE)
                pts.append(rate_point(row.metric(output.GENUINE)) if row is not None else None)
            if any(p is not None for p in pts):
                series.append(Series(f"{model} {b}", pts))
    return line_chart("Genuine follow-up rate vs temperature", temps, series, x_label="temperature",
                      y_label=RATE_AXIS)


def save_figure(markup: str, name: str, title: str, out_dir: Path) -> FigureFile:
    """Save a chart as ``<out_dir>/<name>.svg`` and keep its markup for inlining.

    Args:
        markup: the ``<svg>`` element.
        name: file stem and figure id.
        title: heading in the report.
        out_dir: the figures folder.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    svg = out_dir / f"{name}.svg"
    write_text(svg, svg_document(markup))
    return FigureFile(name, title, svg, markup)


def draw_figures(data: ReportData, out_dir: Path) -> list[FigureFile]:
    """Draw every figure that has data and save it as SVG under ``out_dir``.

    Args:
        data: the report data.
        out_dir: the figures folder.
    """
    out: list[FigureFile] = []
    for name, title, draw in (
        ("headline", "Genuine follow-up rate per benchmark", _headline),
        ("labels", "Label distribution per model", _labels),
        ("perturbations", "Perturbation effects", _perturbations),
        ("temperature", "Temperature", _temperature),
        ("turns", "Genuine follow-up rate by user turn", turns_figure),
    ):
        if not data.rows:
            break
        markup = draw(data)
        if markup is not None:
            out.append(save_figure(markup, name, title, out_dir))
    return out
