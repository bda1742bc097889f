"""The package's own SVG charts: bars scale with their values, intervals are drawn where given,
text is escaped, and the same input gives the same bytes (the report needs no plotting library)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from uta_tasks.apps.report.svg import Point, Series, bar_chart, line_chart, stacked_bar_chart, svg_document

NS = "{http://www.w3.org/2000/svg}"


def _rects(root: ET.Element) -> list[ET.Element]:
    return [r for r in root.iter(f"{NS}rect") if r.find(f"{NS}title") is not None]


def test_bar_heights_are_proportional_and_intervals_drawn():
    markup = bar_chart("Rates", ["gsm8k", "ifeval"],
                       [Series("a", [Point(10.0, 2.0, 30.0), Point(50.0)]), Series("b", [None, 25.0])],
                       y_label="rate (%)", plot_height=200.0)
    root = ET.fromstring(markup)
    bars = {r.find(f"{NS}title").text: float(r.get("height")) for r in _rects(root)}
    assert bars == {"a · gsm8k: 10": 20.0, "a · ifeval: 50": 100.0, "b · ifeval: 25": 50.0}
    intervals = [p for p in root.iter(f"{NS}path")]
    assert len(intervals) == 1  # only a/gsm8k has an interval
    d = intervals[0].get("d")
    low_y, high_y = (float(v) for v in re.match(r"M[\d.]+ ([\d.]+)V([\d.]+)", d).groups())
    assert low_y - high_y == 56.0  # 2% .. 30% of 200 px
    legend = [t.text for t in root.iter(f"{NS}tspan")]
    assert "a" in legend and "b" in legend and "rate (%)" in legend


def test_stacked_bars_fill_shares_left_to_right():
    markup = stacked_bar_chart("Labels", ["m1", "m2"],
                               [Series("x", [25.0, 100.0], "#111111"), Series("y", [75.0, 0.0], "#222222")],
                               x_label="share (%)", plot_width=400.0)
    root = ET.fromstring(markup)
    segs = [(r.find(f"{NS}title").text, float(r.get("x")), float(r.get("width")), r.get("fill"))
            for r in _rects(root)]
    assert [s[0] for s in segs] == ["m1 · x: 25", "m1 · y: 75", "m2 · x: 100"]
    (_, x0, w0, f0), (_, x1, w1, f1), (_, x2, w2, _) = segs
    assert (w0, w1, w2) == (100.0, 300.0, 400.0) and x1 == x0 + w0 == x2 + 100.0
    assert (f0, f1) == ("#111111", "#222222")


def test_line_chart_markers_and_intervals():
    markup = line_chart("T", [0.0, 0.7, 1.0], [Series("m gsm8k", [Point(10, 5, 20), None, Point(40, 30, 50)])],
                        x_label="temperature", y_label="rate (%)")
    root = ET.fromstring(markup)
    circles = [c.find(f"{NS}title").text for c in root.iter(f"{NS}circle") if c.find(f"{NS}title") is not None]
    assert circles == ["m gsm8k · 0: 10", "m gsm8k · 1: 40"]
    paths = [p.get("d") for p in root.iter(f"{NS}path")]
    assert sum(d.count("M") == 1 and "L" in d for d in paths) == 1  # the line
    assert len(paths) == 3  # the line and two intervals


def test_text_is_escaped_multiline_and_output_deterministic():
    cats = ["a<b>&\"c\"\nsecond line"]
    one = bar_chart("<script>x</script>", cats, [Series("s&t", [5.0])], y_label="y")
    assert one == bar_chart("<script>x</script>", cats, [Series("s&t", [5.0])], y_label="y")
    root = ET.fromstring(one)
    assert root.find(f"{NS}title").text == "<script>x</script>"
    assert "<script>" not in one
    texts = [t.text for t in root.iter(f"{NS}tspan")]
    assert 'a<b>&"c"' in texts and "second line" in texts
    doc = svg_document(one)
    assert doc.startswith("<?xml") and ET.fromstring(doc.split("\n", 1)[1]).tag == f"{NS}svg"
