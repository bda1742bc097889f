"""uta_conversations at a chosen user turn (``conversations_probe_turn``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from uta_tasks.datasets import conversations
from uta_tasks.datasets.errors import BenchmarkDataError

DATA = Path(__file__).resolve().parents[1] / "fixtures" / "data"
MULTI = str(DATA / "conversations_multiturn.jsonl")


def _docs(**meta: object) -> list[dict]:
    return list(conversations.load(conversations_data_files=MULTI, **meta)["test"])


def test_default_is_the_last_user_turn():
    docs = _docs()
    assert [(d["id"], d["user_turn"]) for d in docs] == [("trip", 4), ("code", 4)]
    assert docs[1]["reference_user_turn"] == "Got it."


def test_every_turn_gives_one_document_per_turn():
    docs = _docs(conversations_probe_turn="every")
    assert [(d["id"], d["user_turn"]) for d in docs] == [
        ("trip", 2), ("trip", 3), ("trip", 4), ("code", 2), ("code", 3), ("code", 4)]
    second = docs[1]
    assert second["reference_user_turn"] == "Is Alfama hilly? My knee is not great."
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "user"]
    assert second["given_answer"].startswith("Try Time Out Market")


def test_a_chosen_turn():
    docs = _docs(conversations_probe_turn=3)
    assert [(d["id"], d["reference_user_turn"]) for d in docs] == [
        ("trip", "Is Alfama hilly? My knee is not great."), ("code", "What about a tuple?")]


@pytest.mark.parametrize("value", ["first", 1, 0, "2.5", True])
def test_a_bad_turn_is_refused_by_name(value):
    with pytest.raises(BenchmarkDataError, match="conversations_probe_turn"):
        _docs(conversations_probe_turn=value)


def test_a_turn_no_conversation_reaches_is_refused():
    with pytest.raises(BenchmarkDataError, match="at user turn 9"):
        _docs(conversations_probe_turn=9)
