"""The comparison's outputs: ``index.html`` (self-contained, readable offline, in the report's
style and under its Content-Security-Policy), ``leaderboard.json``, ``leaderboard.csv`` and the
figures as ``figures/*.svg``.

Every name and text from a run or the YAML file is escaped for its format: jinja2's ``|e`` and
:func:`~uta_tasks.templates.escape.display_text` in the page, the SVG writer's escaping in the
figures, and in the CSV a text cell that a spreadsheet would read as a formula (starting with
``=``, ``+``, ``-``, ``@``, a tab or a carriage return) is prefixed with ``'``.
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import uta_tasks
from uta_tasks.apps.compare.charts import RankRow, ScatterPoint, accuracy_chart, rank_chart
from uta_tasks.apps.compare.ranking import Leaderboard, Placed, RateRanking
from uta_tasks.apps.compare.reading import ModelRun
from uta_tasks.apps.report.html import CSP_PLACEHOLDER, answers_cell, with_csp
from uta_tasks.apps.report.svg import svg_document
from uta_tasks.runs import Estimate, dumps_strict
from uta_tasks.runs.atomic import write_text
from uta_tasks.schema import compare as names
from uta_tasks.templates import render
from uta_tasks.templates.escape import display_text

_FORMULA = ("=", "+", "-", "@", "\t", "\r")
PERCENT = 100.0


@dataclass(frozen=True)
class PageFiles:
    """What :func:`write_page` wrote.

    Attributes:
        html: the page.
        json: ``leaderboard.json``.
        csv: ``leaderboard.csv``.
        figures: the SVG files.
    """

    html: Path
    json: Path
    csv: Path
    figures: list[Path]


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{PERCENT * value:.1f}"


def _interval(e: Estimate) -> str:
    iv = e.interval
    return "—" if iv is None else f"[{_pct(iv.low)}, {_pct(iv.high)}]"


def _counts(e: Estimate) -> str:
    if e.k is None or e.n is None:
        return "—"
    return f"{e.k:g} / {e.n}"


def _link(path: Path | None, out: Path) -> str | None:
    return None if path is None else Path(os.path.relpath(path, out)).as_posix()


def _provenance(model: ModelRun) -> dict[str, Any]:
    p = {} if model.summary is None else model.summary.provenance
    return {"backend": p.get("model_backend"), "model_args": p.get("model_args"), "answers": answers_cell(p),
            "judge_model": p.get("judge_model"), "prompt_version": p.get("prompt_version"),
            "temperature": p.get("temperature"), "results_file": None if model.summary is None
            else model.summary.results_file}


def _estimate_json(e: Estimate) -> dict[str, Any]:
    iv = e.interval
    return {"value": e.value, "ci_low": iv.low if iv else None, "ci_high": iv.high if iv else None,
            "ci_method": iv.method if iv else None, "k": e.k, "n": e.n}


def _placed_json(board: Leaderboard, p: Placed) -> dict[str, Any]:
    d = p.next_difference
    return {"model": board.models[p.model].name, **_estimate_json(p.estimate),
            "rank": p.rank.rank if p.rank else None, "rank_low": p.rank.low if p.rank else None,
            "rank_high": p.rank.high if p.rank else None,
            "next_difference": None if d is None else {"ci_low": d.low, "ci_high": d.high,
                                                       "significant": p.significant}}


def leaderboard_json(board: Leaderboard, out: Path) -> dict[str, Any]:
    """The machine-readable leaderboard (``leaderboard.json``).

    Args:
        board: the leaderboard.
        out: the page's folder (links are relative to it).
    """
    s = board.settings
    return {
        "schema": names.LEADERBOARD_SCHEMA,
        "generated_by": f"uta-tasks {uta_tasks.__version__}",
        "settings": {"confidence": s.confidence, "iterations": s.iterations, "seed": s.seed,
                     "rate_interval": "wilson", "rank_interval": "paired bootstrap over documents, percentile"},
        "models": [{"name": m.name, "folder": f"{names.RUNS_DIR}/{m.slug}", "report": _link(m.report, out),
                    "error": m.error, "notes": board.notes.get(i, []), **_provenance(m)}
                   for i, m in enumerate(board.models)],
        "rankings": [{"task": r.task, "benchmark": r.benchmark, "perturbation": r.perturbation, "metric": "genuine_followup",
                      "docs": r.docs, "models": [_placed_json(board, p) for p in r.placed]} for r in board.rankings],
        "accuracy_vs_followup": {bench: [{"model": board.models[p.model].name, "accuracy": _estimate_json(p.accuracy),
                                          "genuine_followup": _estimate_json(p.genuine)} for p in points]
                                 for bench, points in board.scatter.items()},
    }


def _cell(value: Any) -> Any:
    if isinstance(value, str):
        text = display_text(value)
        return "'" + text if text.startswith(_FORMULA) else text
    return "" if value is None else value


def leaderboard_csv(board: Leaderboard) -> str:
    """One row per task and model (``leaderboard.csv``).

    Args:
        board: the leaderboard.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["task", "benchmark", "perturbation", "model", "rank", "rank_low", "rank_high", "genuine_followup",
                     "ci_low", "ci_high", "k", "n", "differs_from_next"])
    for r in board.rankings:
        for p in r.placed:
            iv = p.estimate.interval
            row = [r.task, r.benchmark, r.perturbation, board.models[p.model].name,
                   p.rank.rank if p.rank else None, p.rank.low if p.rank else None, p.rank.high if p.rank else None,
                   p.estimate.value, iv.low if iv else None, iv.high if iv else None, p.estimate.k, p.estimate.n,
                   None if p.significant is None else ("yes" if p.significant else "no")]
            writer.writerow([_cell(v) for v in row])
    return buffer.getvalue()


def _percent(e: Estimate) -> tuple[float, float | None, float | None] | None:
    """A rate, its interval's ends, as percentages (None without a value)."""
    if e.value is None:
        return None
    low, high = (e.interval.low, e.interval.high) if e.interval else (None, None)
    return (PERCENT * e.value, None if low is None else PERCENT * low, None if high is None else PERCENT * high)


def _scatter_figure(board: Leaderboard) -> str | None:
    panels = []
    for bench, points in board.scatter.items():
        shown = []
        for p in points:
            accuracy, genuine = _percent(p.accuracy), _percent(p.genuine)
            if accuracy is not None and genuine is not None:
                shown.append(ScatterPoint(board.models[p.model].name, *accuracy, *genuine))
        if shown:
            panels.append((bench, shown))
    if not panels:
        return None
    return accuracy_chart("Accuracy and genuine follow-up rate (95% Wilson intervals)", panels)


def _rank_figure(board: Leaderboard, ranking: RateRanking) -> str | None:
    rows = [RankRow(board.models[p.model].name, p.rank.rank, p.rank.low, p.rank.high) for p in ranking.placed if p.rank]
    if not rows:
        return None
    return rank_chart(f"{ranking.task}: rank intervals", rows, len(rows))


def _table_rows(board: Leaderboard, ranking: RateRanking, out: Path) -> list[dict[str, Any]]:
    rows = []
    for p in ranking.placed:
        model = board.models[p.model]
        d = p.next_difference
        rows.append({
            "rank": "—" if p.rank is None else str(p.rank.rank),
            "interval": "—" if p.rank is None else (f"{p.rank.low}" if p.rank.low == p.rank.high
                                                    else f"{p.rank.low}–{p.rank.high}"),
            "model": model.name, "report": _link(model.report, out), "rate": _pct(p.estimate.value),
            "wilson": _interval(p.estimate), "counts": _counts(p.estimate),
            "next": "" if d is None else f"[{_pct(d.low)}, {_pct(d.high)}]",
            "tied": p.significant is False, "notes": bool(board.notes.get(p.model)),
        })
    return rows


def write_page(board: Leaderboard, out: Path, *, title: str = "Many models, one probe") -> PageFiles:
    """Write the page, ``leaderboard.json``, ``leaderboard.csv`` and the figures under ``out``.

    Args:
        board: the leaderboard.
        out: the comparison's folder.
        title: the page's title.
    """
    figures_dir = out / "figures"
    figures: list[Path] = []
    scatter = _scatter_figure(board)
    if scatter is not None:
        figures.append(write_text(figures_dir / "accuracy-vs-followup.svg", svg_document(scatter)))
    rankings = []
    for ranking in board.rankings:
        chart = _rank_figure(board, ranking)
        if chart is not None:
            figures.append(write_text(figures_dir / f"ranks-{ranking.task}.svg", svg_document(chart)))
        rankings.append({"id": f"rank-{ranking.task}", "task": ranking.task, "benchmark": ranking.benchmark,
                         "perturbation": ranking.perturbation, "docs": ranking.docs,
                         "rows": _table_rows(board, ranking, out), "chart": chart,
                         "svg": None if chart is None else f"figures/ranks-{ranking.task}.svg"})
    models = [{"name": m.name, "report": _link(m.report, out), "error": m.error, "notes": board.notes.get(i, []),
               **{k: "—" if v is None else str(v) for k, v in _provenance(m).items()}}
              for i, m in enumerate(board.models)]
    s = board.settings
    page = render("compare/page.html.j2", title=title, version=uta_tasks.__version__, csp=CSP_PLACEHOLDER,
                  models=models, rankings=rankings, scatter=scatter, confidence=f"{s.confidence:.0%}",
                  iterations=s.iterations, seed=s.seed)
    html = write_text(out / names.PAGE_FILE, with_csp(display_text(page)))
    data = write_text(out / names.LEADERBOARD_FILE, dumps_strict(leaderboard_json(board, out)) + "\n")
    table = write_text(out / names.LEADERBOARD_CSV, leaderboard_csv(board))
    return PageFiles(html, data, table, figures)
