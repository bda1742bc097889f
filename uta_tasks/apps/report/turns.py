"""The ``turns`` figure: genuine follow-up rate against the user turn the model writes.

Held-out tasks probed at several user turns of their conversations (``conversations_probe_turn:
every``, or runs at different turns) give one point per user turn: the share of judged user
turns that are genuine, with its Wilson interval. The turn of a record is read from its
messages (1 + the user turns before the assistant turn), so any held-out run can be drawn.
"""

from __future__ import annotations

from collections import defaultdict

from uta_tasks.apps.report.svg import Point, Series, line_chart
from uta_tasks.runs.collect import ReportData
from uta_tasks.schema import output
from uta_tasks.stats.proportion import wilson

#: (judged, genuine) per user turn
Counts = dict[int, tuple[int, int]]


def turn_counts(data: ReportData) -> dict[str, Counts]:
    """Judged and genuine user turns per user-turn number, per series (model and benchmark).

    Args:
        data: the report data (unperturbed held-out tasks with logged samples are read).
    """
    out: dict[str, dict[int, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for row in data.rows:
        task = row.run.tasks.get(row.task)
        if row.perturbation != output.PERTURBATION_NONE or task is None or task.facts is None:
            continue
        for turn, (judged, genuine) in task.facts.user_turns.items():
            cell = out[f"{row.model} {row.benchmark}"][turn]
            cell[0] += judged
            cell[1] += genuine
    return {name: {turn: (c[0], c[1]) for turn, c in sorted(cells.items())} for name, cells in out.items()}


def turns_figure(data: ReportData) -> str | None:
    """The rate-by-turn line chart, or None when no series has more than one user turn."""
    counts = {name: cells for name, cells in turn_counts(data).items() if len(cells) > 1}
    if not counts:
        return None
    turns = sorted({t for cells in counts.values() for t in cells})
    series = []
    for name, cells in counts.items():
        points: list[Point | None] = []
        for t in turns:
            if t not in cells:
                points.append(None)
                continue
            n, k = cells[t]
            interval = wilson(k, n)
            points.append(Point(100.0 * k / n, 100.0 * interval.low, 100.0 * interval.high))
        series.append(Series(name, points))
    return line_chart("Genuine follow-up rate by user turn (95% Wilson interval)", [float(t) for t in turns],
                      series, x_label="user turn the model writes", y_label="genuine follow-up rate (%)")
