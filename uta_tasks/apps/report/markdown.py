"""The report's Markdown summary (tables, figure links, provenance), e.g. for a CI job summary."""

from __future__ import annotations

from urllib.parse import quote

from uta_tasks.apps.report.figures import FigureFile
from uta_tasks.apps.report.html import PROVENANCE_HEADERS, provenance_rows
from uta_tasks.apps.report.tables import Table
from uta_tasks.runs.collect import ReportData
from uta_tasks.templates.escape import display_text, markdown_text


def _cell(text: str) -> str:
    return markdown_text(text)


def table_markdown(table: Table) -> str:
    """One table as a Markdown section.

    Args:
        table: the table.
    """
    lines = [f"### {markdown_text(table.title)}", "", markdown_text(table.caption), ""]
    if not table.rows:
        return "\n".join([*lines, "_No rows._", ""])
    lines.append("| " + " | ".join(_cell(h) for h in table.headers) + " |")
    lines.append("|" + "---|" * len(table.headers))
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in table.rows]
    return "\n".join([*lines, ""])


def render_markdown(data: ReportData, tables: list[Table], figures: list[FigureFile], *, title: str,
                    figures_dir: str = "figures") -> str:
    """The Markdown summary.

    Args:
        data: the report data.
        tables: tables in page order.
        figures: saved figures (linked as SVG).
        title: heading.
        figures_dir: path of the figures folder relative to the Markdown file.
    """
    parts = [f"## {markdown_text(title)}", "", f"Intervals at {data.settings.confidence:.0%} confidence.", ""]
    parts += [table_markdown(t) for t in tables]
    if figures:
        parts += ["### Figures", ""] + [f"![{markdown_text(f.title)}]({quote(figures_dir)}/{quote(f.svg.name)})"
                                        for f in figures] + [""]
    prov = Table("provenance", "Provenance", "Where the numbers come from.", PROVENANCE_HEADERS,
                 provenance_rows(data))
    parts.append(table_markdown(prov))
    return display_text("\n".join(parts))
