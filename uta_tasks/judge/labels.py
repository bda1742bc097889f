"""The JSON schema the judge must answer with, built on the paper's eight primary labels
(:mod:`uta_tasks.schema.labels`: the labels and which ``genuine`` each allows).

Label and decision cannot contradict each other: ``plausible_followup`` goes with
``genuine`` true, the six failure labels with ``genuine`` false, and ``other`` with
either (a grounded turn no description fits, or a failure none fits). The reply schema
says so, and :func:`uta_tasks.judge.parse.parse_reply` rejects a reply that breaks it
(it is retried, then unjudged). This holds for every prompt version.

Shape of a reply::

    {"rationale": "...", "decision": {"label": "...", "genuine": true}}

``rationale`` comes first and ``label`` before ``genuine``: models that decode
properties in schema order (OpenAI structured outputs, llama.cpp grammars) write their
reasoning before committing to a decision. The pairing needs a union (``anyOf``) of
three ``{label, genuine}`` objects. OpenAI's strict structured outputs forbid a union
at the root of the schema and allow one below a property, so the pair sits under
``decision``; each branch starts with ``label`` and the branches' label values are
disjoint, so the first key decides the branch. ``oneOf``, ``const`` and ``if``/``then``
are not used.
"""

from __future__ import annotations

import copy
from typing import Any

from uta_tasks.schema.labels import FAILURE_LABELS, FREE_LABELS, GENUINE_LABELS, LABELS, allowed_genuine

__all__ = [
    "DECISION_KEY", "FAILURE_LABELS", "FREE_LABELS", "GENUINE_LABELS", "LABELS", "SCHEMA_NAME", "VERDICT_SCHEMA",
    "allowed_genuine", "response_format",
]

SCHEMA_NAME = "followup_verdict"
DECISION_KEY = "decision"

_LABEL_HELP = "The one primary label that best describes the candidate user turn."
_GENUINE_HELP = "True when the candidate user turn is a genuine, grounded follow-up."


def _branch(labels: tuple[str, ...], genuine: tuple[bool, ...]) -> dict[str, Any]:
    genuine_schema: dict[str, Any] = {"type": "boolean", "description": _GENUINE_HELP}
    if len(genuine) == 1:
        genuine_schema["enum"] = list(genuine)
    return {
        "type": "object",
        "properties": {
            "label": {"type": "string", "enum": list(labels), "description": _LABEL_HELP},
            "genuine": genuine_schema,
        },
        "required": ["label", "genuine"],
        "additionalProperties": False,
    }


VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "rationale": {
            "type": "string",
            "description": "Short explanation citing what the candidate user turn does.",
        },
        DECISION_KEY: {
            "description": (
                "The primary label and the binary decision: plausible_followup goes with genuine true, "
                "the six failure labels with genuine false, other with either."
            ),
            "anyOf": [
                _branch(GENUINE_LABELS, (True,)),
                _branch(FAILURE_LABELS, (False,)),
                _branch(FREE_LABELS, (True, False)),
            ],
        },
    },
    "required": ["rationale", DECISION_KEY],
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
