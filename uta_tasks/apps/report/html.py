"""The self-contained HTML page: inline CSS, JS and SVG, no network access, works from file://."""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Any

import uta_tasks
from uta_tasks.apps.report.figures import FigureFile
from uta_tasks.apps.report.paper_figures import PAPER_FIGURE_SECTION
from uta_tasks.apps.report.samples import script_json
from uta_tasks.apps.report.tables import Table
from uta_tasks.runs.collect import ReportData
from uta_tasks.templates import render
from uta_tasks.templates.escape import display_text

# Which table section each figure is shown in.
FIGURE_SECTION = {"headline": "headline", "labels": "labels", "perturbations": "perturbations",
                  "temperature": "temperatures", **PAPER_FIGURE_SECTION}
CSP_PLACEHOLDER = "uta-report-content-security-policy"
# The page's executable inline script (not the JSON data block) and its inline style.
_INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.S)
_INLINE_STYLE = re.compile(r"<style>(.*?)</style>", re.S)
PROVENANCE_HEADERS = ["model", "results file", "answers", "temperature", "judge model", "prompt version",
                      "judge temperature", "lm-eval", "transformers", "samples", "limit", "tasks"]


def _text(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, (list, tuple)):
        return ", ".join(_text(v) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def answers_cell(provenance: dict[str, Any]) -> str:
    """Where a run's pass-1 answers came from: generated, or the saved runs they were read from
    (``answers_from``: the folder, or the Hub repo at the commit read).

    Args:
        provenance: one run's provenance (:func:`uta_tasks.runs.provenance.run_provenance`).
    """
    read = set()
    for task in (provenance.get("tasks") or {}).values():
        source = task.get("answers_from")
        if source:
            hub = source.get("hub")
            where = (f"{hub.get('repo')}@{str(hub.get('revision'))[:12]}/{hub.get('folder') or ''}".rstrip("/")
                     if isinstance(hub, dict) else str(source.get("path")))
            read.add(f"{where} ({source.get('samples')})" if source.get("samples") else where)
    return f"read from a saved run: {'; '.join(sorted(read))}" if read else "generated"


def provenance_rows(data: ReportData) -> list[list[str]]:
    """One provenance row per run.

    Args:
        data: the report data.
    """
    rows = []
    for p in data.provenance:
        judge = _text(p.get("judge_model"))
        prompt = _text(p.get("prompt_version"))
        sources = {t.get("judge_model_source") for t in (p.get("tasks") or {}).values()}
        if sources == {"default"}:
            judge += " (package default)"
            prompt += " (package default)"
        rows.append([
            _text(p.get("display_model")), _text(p.get("results_file")), answers_cell(p), _text(p.get("temperature")),
            judge, prompt,
            _text(p.get("judge_temperature")), _text(p.get("lm_eval_version")), _text(p.get("transformers_version")),
            "yes" if p.get("samples_logged") else "no", _text(p.get("limit")), _text(sorted(p.get("tasks") or {})),
        ])
    return rows


def render_html(data: ReportData, tables: list[Table], figures: list[FigureFile], samples: list[dict[str, Any]],
                *, title: str, left_out: int = 0, max_samples: int = 100) -> str:
    """The report page.

    Args:
        data: the report data.
        tables: tables in page order.
        figures: saved figures (inlined as SVG).
        samples: rows of the sample browser.
        title: page title.
        left_out: docs not shown in the sample browser.
        max_samples: the per-task limit of the sample browser.
    """
    by_section: dict[str, list[FigureFile]] = {}
    for fig in figures:
        by_section.setdefault(FIGURE_SECTION.get(fig.name, "headline"), []).append(fig)
    page = render(
        "report/report.html.j2",
        title=title,
        version=uta_tasks.__version__,
        n_runs=len(data.provenance),
        n_rows=len(data.rows),
        confidence=f"{data.settings.confidence:.0%}",
        tables=tables,
        figures=by_section,
        provenance_headers=PROVENANCE_HEADERS,
        provenance_rows=provenance_rows(data),
        samples_json=script_json(samples),
        left_out=left_out,
        max_samples=max_samples,
        csp=CSP_PLACEHOLDER,
    )
    return with_csp(display_text(page))


def with_csp(page: str) -> str:
    """The page with its Content-Security-Policy: nothing loads or connects, only the page's own
    inline script (by its SHA-256) and style run, and images are ``data:`` URIs.

    Args:
        page: the rendered page holding :data:`CSP_PLACEHOLDER` in its CSP ``<meta>``.
    """
    scripts = _INLINE_SCRIPT.findall(page)
    styles = _INLINE_STYLE.findall(page)
    policy = "; ".join([
        "default-src 'none'",
        "script-src " + " ".join(_source_hash(s) for s in scripts) if scripts else "script-src 'none'",
        "style-src " + " ".join(_source_hash(s) for s in styles) if styles else "style-src 'none'",
        "img-src data:",
        "base-uri 'none'",
        "form-action 'none'",
        "object-src 'none'",
    ])
    return page.replace(CSP_PLACEHOLDER, policy, 1)


def _source_hash(source: str) -> str:
    digest = hashlib.sha256(source.encode("utf-8", "backslashreplace")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"
