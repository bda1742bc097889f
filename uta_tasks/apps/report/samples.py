"""Rows of the report's sample browser: q, a', u, verdict and the exact judge prompt per user turn."""

from __future__ import annotations

from typing import Any

from uta_tasks.apps.report.tables import temp_text
from uta_tasks.runs import names
from uta_tasks.runs.collect import ReportData
from uta_tasks.runs.jsonio import dumps_strict


def _prompt_text(messages: Any) -> str:
    if not isinstance(messages, list):
        return ""
    return "\n\n".join(f"[{m.get('role', '?')}]\n{m.get('content', '')}" for m in messages if isinstance(m, dict))


def _verdict_fields(verdict: Any, suffix: str = "") -> dict[str, Any]:
    if not isinstance(verdict, dict):
        return {f"genuine{suffix}": "not judged", f"label{suffix}": ""}
    judged = verdict.get(names.V_STATUS) == names.V_JUDGED
    return {
        f"genuine{suffix}": ("yes" if verdict.get(names.V_GENUINE) else "no") if judged else "unjudged",
        f"label{suffix}": (verdict.get(names.V_LABEL) or "") if judged else "unjudged",
    }


def sample_rows(data: ReportData, max_per_task: int = 100) -> tuple[list[dict[str, Any]], int]:
    """Browser rows of every logged user turn (at most ``max_per_task`` docs per task).

    Args:
        data: the report data.
        max_per_task: docs shown per task and temperature.

    Returns:
        The rows and the number of docs left out by the limit.
    """
    rows: list[dict[str, Any]] = []
    left_out = 0
    for row in data.rows:
        task = row.run.tasks.get(row.task)
        if task is None or task.docs is None:
            continue
        left_out += max(0, len(task.docs) - max_per_task)
        for doc in task.docs[:max_per_task]:
            for repeat, record in enumerate(doc.records):
                verdict = record.get(names.REC_VERDICT)
                item = {
                    "model": row.model,
                    "T": temp_text(row.temperature),
                    "task": row.task,
                    "doc_id": doc.doc_id,
                    "repeat": repeat,
                    "q": record.get(names.REC_Q) or "",
                    "a_prime": record.get(names.REC_A_PRIME) or "",
                    "u": record.get(names.REC_U) or "",
                    **_verdict_fields(verdict),
                    "rationale": (verdict or {}).get(names.V_RATIONALE) or (verdict or {}).get(names.V_REASON) or "",
                    "prompt": _prompt_text((verdict or {}).get(names.V_PROMPT)),
                }
                if row.perturbation != names.PERTURBATION_NONE:
                    item["u_ref"] = record.get(names.REC_U_REF) or ""
                    item.update(_verdict_fields(record.get(names.REC_VERDICT_REF), "_ref"))
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
