"""The paper's eight primary labels of a user turn and which ``genuine`` decision each allows.

``plausible_followup`` goes with ``genuine`` true, the six failure labels with ``genuine``
false, and ``other`` (the free label) with either. The judge's reply schema
(:mod:`uta_tasks.judge.labels`) is built from these.
"""

from __future__ import annotations

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
GENUINE_LABELS: tuple[str, ...] = ("plausible_followup",)
FREE_LABELS: tuple[str, ...] = ("other",)
FAILURE_LABELS: tuple[str, ...] = tuple(label for label in LABELS if label not in GENUINE_LABELS + FREE_LABELS)


def allowed_genuine(label: str) -> tuple[bool, ...]:
    """The ``genuine`` values a label may go with.

    Args:
        label: One of :data:`LABELS`.

    Returns:
        ``(True,)``, ``(False,)`` or ``(True, False)``.
    """
    if label in GENUINE_LABELS:
        return (True,)
    if label in FAILURE_LABELS:
        return (False,)
    if label in FREE_LABELS:
        return (True, False)
    raise ValueError(f"label {label!r} is not one of {list(LABELS)}")


def pairing_error(label: object, genuine: object) -> str | None:
    """What is wrong with a (label, genuine) pair, or None when it is a valid decision: the one
    place the label vocabulary and the label/decision pairing are checked (the judge's reply
    parser and :meth:`uta_tasks.schema.verdict.Verdict.judged_as` both ask it).

    Args:
        label: the label.
        genuine: the decision.
    """
    if label not in LABELS:
        return f"label {label!r} is not one of {list(LABELS)}"
    if not isinstance(genuine, bool):
        return f"genuine is {genuine!r}, not a JSON boolean"
    if genuine not in allowed_genuine(str(label)):
        wanted = "true" if allowed_genuine(str(label)) == (True,) else "false"
        return f"contradiction: label {label} with genuine {str(genuine).lower()}; {label} requires genuine {wanted}"
    return None
