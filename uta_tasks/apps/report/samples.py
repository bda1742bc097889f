"""Rows of the report's sample browser: q, a', u, verdict and the exact judge prompt per user turn,
each text cut at :data:`~uta_tasks.templates.escape.MAX_SHOWN_CHARS` with a note."""

from __future__ import annotations

from typing import Any

from uta_tasks.apps.report.tables import temp_text
from uta_tasks.probe.verdict_prompts import slot_prompt
from uta_tasks.runs import dumps_strict
from uta_tasks.runs.collect import ReportData
from uta_tasks.schema import output
from uta_tasks.schema.probe import VERDICT, ProbeRecord
from uta_tasks.schema.verdict import UNJUDGED, Verdict
from uta_tasks.templates.escape import bounded_text


def _prompt_text(messages: list[dict[str, str]] | None) -> str:
    if not isinstance(messages, list):
        return ""
    return "\n\n".join(f"[{m.get('role', '?')}]\n{m.get('content', '')}" for m in messages if isinstance(m, dict))


def _judge_prompt(record: ProbeRecord) -> list[dict[str, str]] | None:
    """The judge messages of the record's verdict: stored, or rebuilt (record version 4)."""
    try:
        return slot_prompt(record, VERDICT)
    except ValueError:  # a prompt by reference whose template is not installed here
        return None


def _verdict_fields(verdict: Verdict | None, suffix: str = "") -> dict[str, Any]:
    if verdict is None:
        return {f"genuine{suffix}": "not judged", f"label{suffix}": ""}
    return {
        f"genuine{suffix}": ("yes" if verdict.genuine else "no") if verdict.judged else UNJUDGED,
        f"label{suffix}": (verdict.label or "") if verdict.judged else UNJUDGED,
    }


def sample_rows(data: ReportData, max_per_task: int) -> tuple[list[dict[str, Any]], int]:
    """Browser rows of every logged user turn (at most ``max_per_task`` docs per task).

    Args:
        data: the report data (read with ``examples`` at least ``max_per_task``: :func:`collect`).
        max_per_task: docs shown per task and temperature.

    Returns:
        The rows and the number of docs left out by the limit.
    """
    rows: list[dict[str, Any]] = []
    left_out = 0
    for row in data.rows:
        task = row.run.tasks.get(row.task)
        if task is None or task.facts is None:
            continue
        left_out += max(0, task.facts.docs - max_per_task)
        for doc in task.examples[:max_per_task]:
            for repeat, record in enumerate(doc.records):
                verdict = record.verdict
                item = {
                    "model": row.model,
                    "T": temp_text(row.temperature),
                    "task": row.task,
                    "doc_id": doc.doc_id,
                    "repeat": repeat,
                    "q": bounded_text(record.q or ""),
                    "a_prime": bounded_text(record.a_prime or ""),
                    "u": bounded_text(record.u or ""),
                    **_verdict_fields(verdict),
                    "rationale": bounded_text((verdict.rationale or verdict.reason or "") if verdict else ""),
                    "prompt": bounded_text(_prompt_text(_judge_prompt(record))),
                }
                if row.perturbation != output.PERTURBATION_NONE:
                    item["u_ref"] = bounded_text(record.u_ref or "")
                    item.update(_verdict_fields(record.verdict_ref, "_ref"))
                rows.append(item)
    return rows, left_out


def script_json(value: Any) -> str:
    """Strict JSON that is safe inside an HTML ``<script type="application/json">`` element.

    Args:
        value: JSON-like data.
    """
    text = dumps_strict(value, indent=None)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") \
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
