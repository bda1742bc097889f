"""The comparison page's two figures, as standalone SVG in the report's style
(:mod:`uta_tasks.apps.report.svg`: its palette and font; every text escaped and made visible by
:func:`uta_tasks.templates.escape.display_text`).

* :func:`accuracy_chart`: per benchmark, one point per model at (accuracy, genuine follow-up
  rate), each with its horizontal and vertical interval: accuracy and interaction awareness
  side by side, as the paper's Fig. 3 sets them (*Beyond the Assistant Turn*, arXiv 2604.02315).
* :func:`rank_chart`: per headline rate, one row per model in rank order, a line over its rank
  interval and a dot at its rank.

Both are deterministic: the same input gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from uta_tasks.apps.report.svg import FONT, PALETTE
from uta_tasks.templates.escape import display_text

_PLOT = 240.0  # side of one scatter panel
_ROW = 16.0  # height of one model's row in the rank chart
_LABELLED = 12  # at most this many models get their name beside their point


def _num(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


def _esc(text: str) -> str:
    return escape(display_text(text))


def _text(x: float, y: float, text: str, *, size: int = 11, anchor: str = "middle", weight: str = "normal",
          rotate: bool = False) -> str:
    turn = f' transform="rotate(-90 {_num(x)} {_num(y)})"' if rotate else ""
    return (f'<text x="{_num(x)}" y="{_num(y)}" font-size="{size}" text-anchor="{anchor}" font-weight="{weight}"'
            f"{turn}>{_esc(text)}</text>")


def _open(width: float, height: float, title: str) -> list[str]:
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_num(width)}" height="{_num(height)}" '
            f'viewBox="0 0 {_num(width)} {_num(height)}" role="img" aria-label={quoteattr(display_text(title))} '
            f"{FONT}>", f"<title>{_esc(title)}</title>",
            f'<rect x="0" y="0" width="{_num(width)}" height="{_num(height)}" fill="#ffffff"/>']


@dataclass(frozen=True)
class ScatterPoint:
    """One model on one panel (percentages; an interval end may be None).

    Attributes:
        name: the model.
        x: accuracy.
        x_low: its interval's lower end.
        x_high: its upper end.
        y: genuine follow-up rate.
        y_low: its interval's lower end.
        y_high: its upper end.
    """

    name: str
    x: float
    x_low: float | None
    x_high: float | None
    y: float
    y_low: float | None
    y_high: float | None


def _panel(title: str, points: Sequence[ScatterPoint], left: float, top: float) -> list[str]:
    out = [_text(left + _PLOT / 2, top - 8, title, size=12, weight="bold")]

    def xs(v: float) -> float:
        return left + _PLOT * min(max(v, 0.0), 100.0) / 100.0

    def ys(v: float) -> float:
        return top + _PLOT - _PLOT * min(max(v, 0.0), 100.0) / 100.0

    for k in range(6):
        v = 20.0 * k
        out.append(f'<line x1="{_num(xs(v))}" y1="{_num(top)}" x2="{_num(xs(v))}" y2="{_num(top + _PLOT)}" '
                   'stroke="#eeeeee"/>')
        out.append(f'<line x1="{_num(left)}" y1="{_num(ys(v))}" x2="{_num(left + _PLOT)}" y2="{_num(ys(v))}" '
                   'stroke="#eeeeee"/>')
        out.append(_text(xs(v), top + _PLOT + 14, _num(v), size=10))
        out.append(_text(left - 6, ys(v) + 4, _num(v), size=10, anchor="end"))
    out.append(f'<rect x="{_num(left)}" y="{_num(top)}" width="{_num(_PLOT)}" height="{_num(_PLOT)}" fill="none" '
               'stroke="#333333"/>')
    out.append(_text(left + _PLOT / 2, top + _PLOT + 32, "accuracy (%)"))
    out.append(_text(left - 34, top + _PLOT / 2, "genuine follow-up rate (%)", rotate=True))
    for i, p in enumerate(points):
        color = PALETTE[i % len(PALETTE)]
        x, y = xs(p.x), ys(p.y)
        if p.x_low is not None and p.x_high is not None:
            out.append(f'<path d="M{_num(xs(p.x_low))} {_num(y)}H{_num(xs(p.x_high))}" stroke="{color}" '
                       'stroke-width="1.2"/>')
        if p.y_low is not None and p.y_high is not None:
            out.append(f'<path d="M{_num(x)} {_num(ys(p.y_low))}V{_num(ys(p.y_high))}" stroke="{color}" '
                       'stroke-width="1.2"/>')
        out.append(f'<circle cx="{_num(x)}" cy="{_num(y)}" r="4" fill="{color}"><title>{_esc(p.name)}: accuracy '
                   f"{_num(p.x)}%, genuine follow-up {_num(p.y)}%</title></circle>")
        if len(points) <= _LABELLED:
            out.append(_text(x + 6, y - 6, p.name, size=10, anchor="start"))
    return out


def accuracy_chart(title: str, panels: Sequence[tuple[str, Sequence[ScatterPoint]]]) -> str:
    """Accuracy against genuine follow-up rate, one panel per benchmark, side by side.

    Args:
        title: the figure's accessible name and heading.
        panels: ``(benchmark, points)`` per panel.
    """
    left, gap, top = 64.0, 150.0, 52.0
    width = left + len(panels) * (_PLOT + gap)
    height = top + _PLOT + 48
    out = _open(width, height, title) + [_text(width / 2, 18, title, size=13, weight="bold")]
    for k, (bench, points) in enumerate(panels):
        out += _panel(bench, points, left + k * (_PLOT + gap), top)
    return "\n".join(out + ["</svg>"])


@dataclass(frozen=True)
class RankRow:
    """One model's row of a rank chart.

    Attributes:
        name: the model.
        rank: its rank.
        low: its rank interval's best rank.
        high: its worst.
    """

    name: str
    rank: int
    low: int
    high: int


def rank_chart(title: str, rows: Sequence[RankRow], models: int) -> str:
    """Rank intervals: one row per model in rank order.

    Args:
        title: the figure's accessible name and heading.
        rows: the ranked models, best first.
        models: ranks on the axis (1 to this).
    """
    label_w = 12 + 6.5 * max((len(display_text(r.name)) for r in rows), default=4)
    left, top, plot_w = min(label_w, 260.0), 44.0, 360.0
    height = top + _ROW * max(1, len(rows)) + 40
    width = left + plot_w + 24
    span = max(1, models - 1)

    def xs(rank: float) -> float:
        return left + 8 + (plot_w - 16) * (rank - 1) / span

    out = _open(width, height, title) + [_text(width / 2, 18, title, size=13, weight="bold")]
    step = max(1, models // 10)
    for rank in [*range(1, models + 1, step), *([models] if (models - 1) % step else [])]:
        out.append(f'<line x1="{_num(xs(rank))}" y1="{_num(top)}" x2="{_num(xs(rank))}" '
                   f'y2="{_num(top + _ROW * len(rows))}" stroke="#eeeeee"/>')
        out.append(_text(xs(rank), top + _ROW * len(rows) + 14, str(rank), size=10))
    out.append(_text(left + plot_w / 2, top + _ROW * len(rows) + 32, "rank (1 = highest rate)"))
    for i, row in enumerate(rows):
        y = top + _ROW * i + _ROW / 2
        name = display_text(row.name)
        shown = name if len(name) <= 38 else name[:37] + "…"
        out.append(_text(left - 6, y + 4, shown, size=10, anchor="end"))
        out.append(f'<path d="M{_num(xs(row.low))} {_num(y)}H{_num(xs(row.high))}" stroke="#1565c0" '
                   'stroke-width="3" stroke-linecap="round"/>')
        out.append(f'<circle cx="{_num(xs(row.rank))}" cy="{_num(y)}" r="3.5" fill="#0d2f5e"><title>{_esc(row.name)}: '
                   f"rank {row.rank}, interval {row.low}-{row.high}</title></circle>")
    return "\n".join(out + ["</svg>"])
