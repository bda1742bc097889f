"""Deterministic sample items for the judge tests (importable from subprocesses too)."""

from __future__ import annotations

from pathlib import Path

from uta_tasks.judge import JudgeItem

REPO_ROOT = Path(__file__).resolve().parents[2]


def make_items(count: int, prefix: str = "item") -> list[JudgeItem]:
    """Distinct items; every other candidate is a question (genuine for the fault double)."""
    items = []
    for index in range(count):
        question = f"{prefix} {index}: what is {index} + {index}?"
        answer = f"{index} + {index} = {2 * index}."
        user_turn = f"Why is it {2 * index}?" if index % 2 == 0 else question
        items.append(JudgeItem(context=(("user", question), ("assistant", answer)), user_turn=user_turn))
    return items
