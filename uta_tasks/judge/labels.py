"""The paper's eight primary labels and the JSON schema the judge must answer with.

The schema lists ``rationale`` first, then ``label``, then ``genuine``: models that
decode properties in schema order (OpenAI structured outputs, llama.cpp grammars)
write their reasoning before committing to a decision.
"""

from __future__ import annotations

import copy
from typing import Any

LABELS: tuple[str, ...] = (
    "plausible_followup",
    "previous_turn_restate",
    "assistant_turn_restate",
    "new_task_prompt",
    "meta_planning",
    "degenerate_short",
    "malformed_artifact",
    "other",
)

SCHEMA_NAME = "followup_verdict"

VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "rationale": {
            "type": "string",
            "description": "Short explanation citing what the candidate user turn does.",
        },
        "label": {
            "type": "string",
            "enum": list(LABELS),
            "description": "The one primary label that best describes the candidate user turn.",
        },
        "genuine": {
            "type": "boolean",
            "description": "True when the candidate user turn is a genuine, grounded follow-up.",
        },
    },
    "required": ["rationale", "label", "genuine"],
    "additionalProperties": False,
}


def response_format() -> dict[str, Any]:
    """The ``response_format`` argument of a chat completion asking for a strict verdict.

    Returns:
        A fresh dict (callers may not share mutable state through it).
    """
    return {
        "type": "json_schema",
        "json_schema": {
            "name": SCHEMA_NAME,
            "strict": True,
            "schema": copy.deepcopy(VERDICT_SCHEMA),
        },
    }
