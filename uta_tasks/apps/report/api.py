"""``build_report``: folders of runs in, ``report.html`` + ``report.md`` + figures out."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from uta_tasks.apps.report.figures import FigureFile, draw_figures, save_figure
from uta_tasks.apps.report.html import render_html
from uta_tasks.apps.report.judge_trust import judge_trust_tables
from uta_tasks.apps.report.layouts import label_table, perturbation_table, temperature_table
from uta_tasks.apps.report.markdown import render_markdown
from uta_tasks.apps.report.metric_tables import section_tables
from uta_tasks.apps.report.paper_figures import paper_figures
from uta_tasks.apps.report.paper_sections import paper_tables
from uta_tasks.apps.report.samples import sample_rows
from uta_tasks.apps.report.tables import Table, headline
from uta_tasks.runs import EstimateSettings
from uta_tasks.runs.atomic import write_text
from uta_tasks.runs.collect import ReportData, collect


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
    calibration: str | Path | None = None,
    retest: str | Path | None = None,
    families: dict[str, str] | None = None,
    tolerance_pp: float = 0.0,
) -> ReportFiles:
    """Write ``report.html``, ``report.md`` and ``figures/*.svg`` under ``out_dir``.

    Args:
        folders: lm-eval output folders (models x temperatures x tasks; samples optional).
        out_dir: destination folder.
        title: page title.
        max_samples: docs per task shown in the sample browser.
        settings: interval settings.
        calibration: a judge calibration file: adds the judge-error-corrected follow-up rates.
        retest: a ``retest.json`` of ``uta-rejudge --retest``: adds the judge's own spread and
            flags rate differences smaller than it.
        families: ``MODEL=FAMILY`` pairs for the paper's Table 6 (default: the family of the model id).
        tolerance_pp: percentage points the reference check widens each interval by.
    """
    from uta_tasks.apps.report.judge_trust import read_inputs

    calib, retest_data = read_inputs(calibration, retest)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    data = collect(list(folders), settings, calib, examples=max_samples)
    data.retest = retest_data
    tables = all_tables(data) + paper_tables(data, families, tolerance_pp)
    figures = draw_figures(data, out / "figures")
    figures += [save_figure(markup, name, fig_title, out / "figures")
                for name, fig_title, markup in paper_figures(data, families)]
    samples, left_out = sample_rows(data, max_samples)
    html = out / "report.html"
    page = render_html(data, tables, figures, samples, title=title, left_out=left_out, max_samples=max_samples)
    markdown = render_markdown(data, tables, figures, title=title)
    write_text(html, page)  # both rendered before either is written; each replaced whole
    md = out / "report.md"
    write_text(md, markdown)
    return ReportFiles(html, md, figures)


def all_tables(data: ReportData) -> list[Table]:
    """Every table of the report, in page order.

    Args:
        data: the report data.
    """
    tables = [headline(data), label_table(data, "report"), perturbation_table(data, "report"),
              temperature_table(data, "report"), *section_tables(data),
              *judge_trust_tables(data)]
    return [t for t in tables if t is not None]

