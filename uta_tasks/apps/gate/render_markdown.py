"""The gate's result as Markdown, for a CI job summary (``$GITHUB_STEP_SUMMARY``)."""

from __future__ import annotations

from uta_tasks.apps.gate.api import GateResult
from uta_tasks.stats.display import interval, number
from uta_tasks.templates.escape import code_span, display_text, markdown_text

_ICON = {"pass": "✅ pass", "fail": "❌ fail", "error": "⚠️ undecided"}


def _cell(text: str) -> str:
    return markdown_text(text)


def render_markdown(result: GateResult) -> str:
    """A heading with the verdict, the rule table, and the causes of failures.

    Args:
        result: the gate's result.
    """
    c = result.counts()
    p = result.provenance
    mode = "strict: point estimates" if result.settings.strict else f"{result.settings.confidence:.0%} intervals"
    judge = f"judge {code_span(p.get('judge_model', '?'))} (prompt {code_span(p.get('prompt_version', '?'))})"
    lines = [
        f"## uta-gate: {result.verdict.upper()}",
        "",
        f"{c['pass']} passed, {c['fail']} failed, {c['error']} undecided ({mode}).",
        "",
        f"Model {code_span(p.get('model', '?'))}, {judge}, temperature {markdown_text(p.get('temperature', '?'))}.",
        "",
        "| rule | value | interval | bound | n | verdict |",
        "|---|---:|---|---|---:|---|",
    ]
    for r in result.results:
        iv = interval(r.interval.low, r.interval.high) if r.interval else "—"
        n = "—" if r.n is None else str(r.n)
        lines.append(f"| {_cell(r.rule.name)} | {number(r.value)} | {iv} | {_cell(r.rule.bound_text)} | {n} | "
                     f"{_ICON[r.status]} |")
    notes = [r for r in result.results if r.status != "pass" or r.uncertain]
    if notes:
        lines += ["", *[f"- **{_cell(r.rule.name)}**: {_cell(r.note)}" for r in notes]]
    noisy = [r for r in result.results if r.judge_noise]
    if noisy:
        lines += ["", *[f"- **{_cell(r.rule.name)}**: {_cell(r.judge_noise or '')}" for r in noisy]]
    return display_text("\n".join(lines) + "\n")
