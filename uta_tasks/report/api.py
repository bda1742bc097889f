"""``build_report``: folders of runs in, ``report.html`` + ``report.md`` + figures out."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from uta_tasks.report.collect import collect
from uta_tasks.report.figures import FigureFile, draw_figures
from uta_tasks.report.html import render_html
from uta_tasks.report.markdown import render_markdown
from uta_tasks.report.samples import sample_rows
from uta_tasks.report.tables import all_tables
from uta_tasks.runs import EstimateSettings


@dataclass(frozen=True)
class ReportFiles:
    """What :func:`build_report` wrote.

    Attributes:
        html: the self-contained page.
        markdown: the Markdown summary.
        figures: the figures (one SVG file each, also inlined in the page).
    """

    html: Path
    markdown: Path
    figures: list[FigureFile]


def build_report(
    folders: list[str | Path],
    out_dir: str | Path,
    *,
    title: str = "User-turn probe report",
    max_samples: int = 100,
    settings: EstimateSettings | None = None,
) -> ReportFiles:
    """Write ``report.html``, ``report.md`` and ``figures/*.svg`` under ``out_dir``.

    Args:
        folders: lm-eval output folders (models x temperatures x tasks; samples optional).
        out_dir: destination folder.
        title: page title.
        max_samples: docs per task shown in the sample browser.
        settings: interval settings.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    data = collect(list(folders), settings)
    tables = all_tables(data)
    figures = draw_figures(data, out / "figures")
    samples, left_out = sample_rows(data, max_samples)
    html = out / "report.html"
    html.write_text(render_html(data, tables, figures, samples, title=title, left_out=left_out,
                                max_samples=max_samples), encoding="utf-8")
    md = out / "report.md"
    md.write_text(render_markdown(data, tables, figures, title=title), encoding="utf-8")
    return ReportFiles(html, md, figures)
