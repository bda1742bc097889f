"""The paper's eight primary labels of a generated user turn (PROTOCOL section 4)."""

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
