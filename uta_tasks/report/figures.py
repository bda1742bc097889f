"""The report's figures, drawn with matplotlib on Agg canvases and saved as PNG and SVG.

* ``headline``: genuine follow-up rate per benchmark and model, with Wilson intervals;
* ``labels``: label distribution per model as stacked bars (the paper's Table 6 as a chart);
* ``perturbations``: base vs perturbed rate per benchmark and perturbation;
* ``temperature``: rate against temperature (the paper's Figs. 1 right and 4), when several are given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from uta_tasks.report.collect import ReportData
from uta_tasks.report.pooled import label_shares
from uta_tasks.report.tables import temp_text
from uta_tasks.runs import names

LABEL_COLORS = ("#2e7d32", "#c62828", "#ef6c00", "#6a1b9a", "#1565c0", "#9e9e9e", "#5d4037", "#00838f")


@dataclass(frozen=True)
class FigureFile:
    """A saved figure.

    Attributes:
        name: file stem, e.g. ``labels``.
        title: heading in the report.
        png: the PNG file.
        svg: the SVG file.
        svg_inline: the SVG markup for inlining in HTML (no XML prolog).
    """

    name: str
    title: str
    png: Path
    svg: Path
    svg_inline: str


def _figure(width: float, height: float) -> tuple[Any, Any]:
    """A new figure on an Agg canvas (matplotlib's object API: no pyplot, no global backend change)."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("the report's figures need matplotlib: pip install 'uta-tasks[report]'") from None
    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)
    return fig, fig.subplots()


def _series_name(model: str, t: float | None, data: ReportData) -> str:
    return model if len(data.temperatures) < 2 else f"{model} (T={temp_text(t)})"


def _err(m: dict) -> tuple[float, float, float]:
    v = 100.0 * (m.get("value") or 0.0)
    lo = 100.0 * m["ci_low"] if m.get("ci_low") is not None else v
    hi = 100.0 * m["ci_high"] if m.get("ci_high") is not None else v
    return v, max(0.0, v - lo), max(0.0, hi - v)


def _bars(ax: Any, groups: list[str], series: Sequence[tuple[str, Sequence[dict | None]]]) -> None:
    width = 0.8 / max(1, len(series))
    for i, (label, cells) in enumerate(series):
        xs, ys, lo, hi = [], [], [], []
        for g, m in enumerate(cells):
            if m is None or m.get("value") is None:
                continue
            v, dl, dh = _err(m)
            xs.append(g - 0.4 + width * (i + 0.5))
            ys.append(v)
            lo.append(dl)
            hi.append(dh)
        ax.bar(xs, ys, width, label=label, color=f"C{i % 10}", yerr=[lo, hi], capsize=3, ecolor="#333")
    ax.set_xticks(range(len(groups)), groups)
    ax.set_ylabel("genuine follow-up rate (%)")
    ax.set_ylim(0, 100)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)


def _headline(data: ReportData) -> Any:
    fig, ax = _figure(7.5, 3.6)
    benches = data.benchmarks
    series = []
    for model, t in data.series:
        cells = []
        for b in benches:
            row = data.find(model, t, b, names.PERTURBATION_NONE)
            cells.append(row.metric(names.GENUINE) if row else None)
        series.append((_series_name(model, t, data), cells))
    _bars(ax, benches, series)
    ax.set_title("Genuine follow-up rate (95% Wilson interval)")
    return fig


def _labels(data: ReportData) -> Any:
    series = data.series
    fig, ax = _figure(7.5, 1.2 + 0.45 * len(series))
    all_labels = names.labels()
    ys = [_series_name(m, t, data) for m, t in series]
    left = [0.0] * len(series)
    for j, label in enumerate(all_labels):
        widths = []
        for m, t in series:
            share = label_shares(data, m, t)[label].value
            widths.append(100.0 * (share or 0.0))
        ax.barh(ys, widths, left=left, color=LABEL_COLORS[j % len(LABEL_COLORS)], label=label)
        left = [a + b for a, b in zip(left, widths)]
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of judged user turns (%)")
    ax.invert_yaxis()
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    ax.set_title("Label distribution (unperturbed tasks)")
    fig.tight_layout()
    return fig


def _perturbations(data: ReportData) -> Any | None:
    rows = [r for r in data.rows if r.perturbation != names.PERTURBATION_NONE]
    if not rows:
        return None
    fig, ax = _figure(min(14.0, max(5.0, 2.2 * len(rows) + 1.5)), 3.6)
    groups = [f"{r.benchmark}\n{r.perturbation}\n{_series_name(r.model, r.temperature, data)}" for r in rows]
    series = [("base (u after a)", [r.metric(names.GENUINE_BASE) for r in rows]),
              ("perturbed (u after a')", [r.metric(names.GENUINE) for r in rows])]
    _bars(ax, groups, series)
    ax.tick_params(axis="x", labelsize=7)
    ax.set_title("Perturbation effects: base vs perturbed rate")
    fig.tight_layout()
    return fig


def _temperature(data: ReportData) -> Any | None:
    temps = [t for t in data.temperatures if t is not None]
    if len(temps) < 2:
        return None
    fig, ax = _figure(6.0, 3.6)
    i = 0
    for model in dict.fromkeys(m for m, _ in data.series):
        for b in data.benchmarks:
            pts = []
            for t in temps:
                row = data.find(model, t, b, names.PERTURBATION_NONE)
                if row is not None and row.metric(names.GENUINE).get("value") is not None:
                    pts.append((t, *_err(row.metric(names.GENUINE))))
            if not pts:
                continue
            xs, ys, lo, hi = zip(*pts)
            ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, label=f"{model} {b}", color=f"C{i % 10}")
            i += 1
    ax.set_xlabel("temperature")
    ax.set_ylabel("genuine follow-up rate (%)")
    ax.set_ylim(0, 100)
    ax.set_xticks(temps)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    ax.set_title("Genuine follow-up rate vs temperature")
    return fig


def _save(fig: Any, name: str, title: str, out_dir: Path) -> FigureFile:
    import matplotlib

    out_dir.mkdir(parents=True, exist_ok=True)
    png, svg = out_dir / f"{name}.png", out_dir / f"{name}.svg"
    fig.savefig(png, dpi=150, bbox_inches="tight", metadata={"Software": None})
    with matplotlib.rc_context({"svg.hashsalt": f"uta-{name}", "svg.fonttype": "none"}):
        fig.savefig(svg, bbox_inches="tight", metadata={"Date": None, "Creator": None})
    text = svg.read_text(encoding="utf-8")
    return FigureFile(name, title, png, svg, text[text.index("<svg"):])


def draw_figures(data: ReportData, out_dir: Path) -> list[FigureFile]:
    """Draw every figure that has data and save it as PNG and SVG under ``out_dir``.

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
    ):
        if not data.rows:
            break
        fig = draw(data)
        if fig is not None:
            out.append(_save(fig, name, title, out_dir))
    return out
