"""Charts as standalone SVG markup, written by the package (no plotting library needed).

Three chart kinds cover the report's figures; each returns one ``<svg>`` element as a string
(with ``xmlns``, no XML prolog) that can be inlined in HTML or saved with :func:`svg_document`.
Values are plain numbers on the chart's scale (the report uses percentages, 0-100).

* :func:`bar_chart` - vertical bars grouped by category, one bar per :class:`Series` in each
  group, with an error bar where the :class:`Point` has ``low``/``high``.
* :func:`stacked_bar_chart` - one horizontal bar per row, split into the :class:`Series`' shares.
* :func:`line_chart` - one line with markers per :class:`Series` over numeric x values, with
  an interval at each point that has ``low``/``high``.

Example::

    from uta_tasks.apps.report.svg import Point, Series, bar_chart, svg_document
    markup = bar_chart("Genuine rate", ["gsm8k", "ifeval"],
                       [Series("model-a", [Point(10.0, 2.8, 30.1), None])], y_label="rate (%)")
    Path("headline.svg").write_text(svg_document(markup), encoding="utf-8")

A category or row label may hold ``\\n`` for several lines. Output is deterministic: the same
input gives the same bytes. Colours cycle through :data:`PALETTE` unless a series names one.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from uta_tasks.templates.escape import display_text

PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf")
FONT = "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\""
_LINE_H = 13.0
_TITLE_SIZE = 13
_MARGIN = 12.0  # left and right of the title
# Advance widths in em of DejaVu Sans (the first font of FONT, Debian's default sans), rounded
# up, by kind of character; bold is about 13% wider. Layout only: a text's estimated width is
# never less than its drawn width in that font (tests/report/test_report_figure_bounds.py
# measures it in Chromium), so titles, axes and legends stay inside the figure.
_NARROW = frozenset(" !'(),-./:;I[]fijlrt|")
_WIDE_LATIN = frozenset("MWmw%@")
_BOLD = 1.13


def _char_em(ch: str) -> float:
    if unicodedata.east_asian_width(ch) in ("W", "F"):
        return 1.0
    if ch in _NARROW:
        return 0.4
    if ch in _WIDE_LATIN:
        return 1.0
    if ch.isupper() or ch.isdigit():
        return 0.8
    return 0.64


@dataclass(frozen=True)
class Point:
    """One value, with an optional interval around it.

    Attributes:
        value: the value on the chart's scale.
        low: the interval's lower end, or None for no error bar.
        high: the interval's upper end, or None for no error bar.
    """

    value: float
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class Series:
    """A named series: one value per category (bar charts), row (stacked) or x value (lines).

    Attributes:
        name: legend entry.
        values: one :class:`Point` (or a bare number) per position; None leaves the position empty.
        color: fill/stroke colour, or None to take the next one of :data:`PALETTE`.
    """

    name: str
    values: Sequence[Point | float | None]
    color: str | None = None


def _esc(text: str) -> str:
    """Text content: markup escaped, control and bidi-override characters visible (XML-safe)."""
    return escape(display_text(text))


def svg_document(markup: str) -> str:
    """A chart's markup as the content of a ``.svg`` file (XML prolog added)."""
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + markup + "\n"


def _point(v: Point | float | None) -> Point | None:
    if v is None or isinstance(v, Point):
        return v
    return Point(float(v))


def _color(series: Series, i: int) -> str:
    return series.color or PALETTE[i % len(PALETTE)]


def _num(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


def _text(x: float, y: float, text: str, *, size: int = 11, anchor: str = "middle", weight: str = "normal",
          rotate: float | None = None) -> str:
    lines = text.split("\n")
    transform = f' transform="rotate({_num(rotate)} {_num(x)} {_num(y)})"' if rotate is not None else ""
    body = "".join(f'<tspan x="{_num(x)}" dy="{0 if i == 0 else _LINE_H}">{_esc(line)}</tspan>'
                   for i, line in enumerate(lines))
    return (f'<text x="{_num(x)}" y="{_num(y)}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}"{transform}>{body}</text>')


def _text_width(text: str, size: int = 11, *, bold: bool = False) -> float:
    """An upper estimate of the drawn width in px of ``text`` (its longest line) at ``size`` px."""
    em = max((sum(_char_em(ch) for ch in line) for line in display_text(text).split("\n")), default=0.0)
    return em * size * (_BOLD if bold else 1.0)


def _fit_title(width: float, title: str) -> float:
    """The chart's width, widened where its title (centred, bold) would not fit inside it."""
    return max(width, _text_width(title, _TITLE_SIZE, bold=True) + 2 * _MARGIN)


def _open(width: float, height: float, title: str) -> list[str]:
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_num(width)}" height="{_num(height)}" '
            f'viewBox="0 0 {_num(width)} {_num(height)}" role="img" aria-label={quoteattr(display_text(title))} {FONT}>',
            f"<title>{_esc(title)}</title>",
            f'<rect x="0" y="0" width="{_num(width)}" height="{_num(height)}" fill="#ffffff"/>',
            _text(width / 2, 18, title, size=_TITLE_SIZE, weight="bold")]


def _legend(series: Sequence[Series], x: float, y: float, *, line: bool = False) -> list[str]:
    out = []
    for i, s in enumerate(series):
        yy = y + 16 * i
        c = _color(s, i)
        if line:
            out.append(f'<line x1="{_num(x)}" y1="{_num(yy)}" x2="{_num(x + 14)}" y2="{_num(yy)}" stroke="{c}" '
                       f'stroke-width="2"/><circle cx="{_num(x + 7)}" cy="{_num(yy)}" r="3" fill="{c}"/>')
        else:
            out.append(f'<rect x="{_num(x)}" y="{_num(yy - 5)}" width="12" height="10" fill="{c}"/>')
        out.append(_text(x + 18, yy + 4, s.name, size=10, anchor="start"))
    return out


def _legend_width(series: Sequence[Series]) -> float:
    return 30 + max((_text_width(s.name, 10) for s in series), default=0)


def _y_axis(left: float, top: float, plot_h: float, plot_w: float, y_max: float, label: str) -> list[str]:
    out = []
    for k in range(6):
        v = y_max * k / 5
        y = top + plot_h - plot_h * k / 5
        out.append(f'<line x1="{_num(left)}" y1="{_num(y)}" x2="{_num(left + plot_w)}" y2="{_num(y)}" '
                   f'stroke="#dddddd" stroke-width="1"/>')
        out.append(_text(left - 6, y + 4, _num(v), size=10, anchor="end"))
    out.append(f'<line x1="{_num(left)}" y1="{_num(top)}" x2="{_num(left)}" y2="{_num(top + plot_h)}" '
               f'stroke="#333333"/>')
    out.append(_text(14, top + plot_h / 2, label, size=11, rotate=-90))
    return out


def _interval(x: float, lo_y: float, hi_y: float, cap: float = 4.0) -> str:
    return (f'<path d="M{_num(x)} {_num(lo_y)}V{_num(hi_y)}M{_num(x - cap)} {_num(lo_y)}H{_num(x + cap)}'
            f'M{_num(x - cap)} {_num(hi_y)}H{_num(x + cap)}" stroke="#333333" stroke-width="1.2" fill="none"/>')


def bar_chart(title: str, categories: Sequence[str], series: Sequence[Series], *, y_label: str,
              y_max: float = 100.0, plot_height: float = 220.0, group_width: float | None = None) -> str:
    """Grouped vertical bars with error bars.

    Args:
        title: heading drawn above the chart.
        categories: one group per category, labelled under the axis.
        series: one bar per series in every group; ``values[i]`` belongs to ``categories[i]``.
        y_label: the vertical axis' label.
        y_max: top of the vertical scale (its bottom is 0).
        plot_height: height of the plotting area in px.
        group_width: width of one group in px (default: room for the labels and bars).
    """
    n = max(1, len(series))
    label_w = max((_text_width(c) for c in categories), default=0)
    gw = group_width or max(60.0, 18.0 * n + 20, label_w + 12)
    left, top = 56.0, 32.0
    plot_w = gw * max(1, len(categories))
    label_lines = max((c.count("\n") + 1 for c in categories), default=1)
    legend_w = _legend_width(series)
    width = _fit_title(left + plot_w + 16 + legend_w, title)
    height = max(top + plot_height + 14 + _LINE_H * label_lines + 8, top + 16 * len(series) + 8)
    out = _open(width, height, title) + _y_axis(left, top, plot_height, plot_w, y_max, y_label)

    def y_of(v: float) -> float:
        return top + plot_height - plot_height * min(max(v, 0.0), y_max) / y_max

    bar_w = (gw * 0.8) / n
    for g, cat in enumerate(categories):
        x0 = left + gw * g + gw * 0.1
        for i, s in enumerate(series):
            p = _point(s.values[g]) if g < len(s.values) else None
            if p is None:
                continue
            x = x0 + bar_w * i
            y = y_of(p.value)
            out.append(f'<rect x="{_num(x)}" y="{_num(y)}" width="{_num(bar_w * 0.92)}" '
                       f'height="{_num(top + plot_height - y)}" fill="{_color(s, i)}"><title>'
                       f"{_esc(s.name)} · {_esc(cat.replace(chr(10), ' '))}: {_num(p.value)}</title></rect>")
            if p.low is not None and p.high is not None:
                out.append(_interval(x + bar_w * 0.46, y_of(p.low), y_of(p.high)))
        out.append(_text(left + gw * (g + 0.5), top + plot_height + 14, cat, size=11))
    out.append(f'<line x1="{_num(left)}" y1="{_num(top + plot_height)}" x2="{_num(left + plot_w)}" '
               f'y2="{_num(top + plot_height)}" stroke="#333333"/>')
    out += _legend(series, left + plot_w + 16, top + 6)
    return "\n".join(out + ["</svg>"])


def stacked_bar_chart(title: str, rows: Sequence[str], segments: Sequence[Series], *, x_label: str,
                      x_max: float = 100.0, plot_width: float = 420.0) -> str:
    """Horizontal bars, one per row, each split into the segments' values (left to right).

    Args:
        title: heading drawn above the chart.
        rows: one bar per row, labelled on the left (top to bottom).
        segments: one part per series in every bar; ``values[i]`` belongs to ``rows[i]``.
        x_label: the horizontal axis' label.
        x_max: right end of the scale (its left end is 0).
        plot_width: width of the plotting area in px.
    """
    bar_h, gap = 22.0, 10.0
    left = 16 + max((_text_width(r) for r in rows), default=0)
    top = 32.0
    plot_h = (bar_h + gap) * max(1, len(rows))
    legend_w = _legend_width(segments)
    width = _fit_title(left + plot_width + 16 + legend_w, title)
    height = max(top + plot_h + 44, top + 16 * len(segments) + 8)
    out = _open(width, height, title)
    for k in range(6):
        x = left + plot_width * k / 5
        out.append(f'<line x1="{_num(x)}" y1="{_num(top)}" x2="{_num(x)}" y2="{_num(top + plot_h)}" '
                   f'stroke="#dddddd"/>')
        out.append(_text(x, top + plot_h + 14, _num(x_max * k / 5), size=10))
    out.append(_text(left + plot_width / 2, top + plot_h + 34, x_label, size=11))
    for r, row in enumerate(rows):
        y = top + gap / 2 + (bar_h + gap) * r
        out.append(_text(left - 6, y + bar_h / 2 + 4, row, size=11, anchor="end"))
        acc = 0.0
        for i, s in enumerate(segments):
            p = _point(s.values[r]) if r < len(s.values) else None
            if p is None or p.value <= 0:
                continue
            w = plot_width * min(p.value, x_max - acc) / x_max
            out.append(f'<rect x="{_num(left + plot_width * acc / x_max)}" y="{_num(y)}" width="{_num(w)}" '
                       f'height="{_num(bar_h)}" fill="{_color(s, i)}"><title>{_esc(row)} · {_esc(s.name)}: '
                       f"{_num(p.value)}</title></rect>")
            acc += p.value
    out += _legend(segments, left + plot_width + 16, top + 6)
    return "\n".join(out + ["</svg>"])


def line_chart(title: str, xs: Sequence[float], series: Sequence[Series], *, x_label: str, y_label: str,
               y_max: float = 100.0, plot_width: float = 360.0, plot_height: float = 220.0) -> str:
    """Lines with markers over numeric x values, with an interval at each point that has one.

    Args:
        title: heading drawn above the chart.
        xs: the x values (ticks are drawn at each); ``values[i]`` belongs to ``xs[i]``.
        series: one line per series; a None value breaks nothing, the point is just left out.
        x_label: the horizontal axis' label.
        y_label: the vertical axis' label.
        y_max: top of the vertical scale (its bottom is 0).
        plot_width: width of the plotting area in px.
        plot_height: height of the plotting area in px.
    """
    left, top = 56.0, 32.0
    legend_w = _legend_width(series)
    width = _fit_title(left + plot_width + 16 + legend_w, title)
    height = max(top + plot_height + 44, top + 16 * len(series) + 8)
    out = _open(width, height, title) + _y_axis(left, top, plot_height, plot_width, y_max, y_label)
    lo_x, hi_x = (min(xs), max(xs)) if xs else (0.0, 1.0)
    span = (hi_x - lo_x) or 1.0

    def x_of(x: float) -> float:
        return left + 12 + (plot_width - 24) * (x - lo_x) / span

    def y_of(v: float) -> float:
        return top + plot_height - plot_height * min(max(v, 0.0), y_max) / y_max

    for x in xs:
        out.append(_text(x_of(x), top + plot_height + 14, _num(x), size=10))
    out.append(f'<line x1="{_num(left)}" y1="{_num(top + plot_height)}" x2="{_num(left + plot_width)}" '
               f'y2="{_num(top + plot_height)}" stroke="#333333"/>')
    out.append(_text(left + plot_width / 2, top + plot_height + 34, x_label, size=11))
    for i, s in enumerate(series):
        c = _color(s, i)
        pts = [(x, p) for x, v in zip(xs, s.values) if (p := _point(v)) is not None]
        if not pts:
            continue
        path = " ".join(f"{'M' if j == 0 else 'L'}{_num(x_of(x))} {_num(y_of(p.value))}" for j, (x, p) in enumerate(pts))
        out.append(f'<path d="{path}" stroke="{c}" stroke-width="2" fill="none"/>')
        for x, p in pts:
            if p.low is not None and p.high is not None:
                out.append(_interval(x_of(x), y_of(p.low), y_of(p.high)))
            out.append(f'<circle cx="{_num(x_of(x))}" cy="{_num(y_of(p.value))}" r="4" fill="{c}"><title>'
                       f"{_esc(s.name)} · {_num(x)}: {_num(p.value)}</title></circle>")
    out += _legend(series, left + plot_width + 16, top + 6, line=True)
    return "\n".join(out + ["</svg>"])
