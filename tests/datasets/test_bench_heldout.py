"""Held-out benchmarks: the cut after a real assistant turn that a user answered."""

from __future__ import annotations

import json
import logging

import pytest

from uta_tasks.datasets import BENCHMARKS, BenchmarkDataError
from uta_tasks.datasets.heldout import cut

U, A, S = "user", "assistant", "system"


def msgs(*pairs):
    return [{"role": r, "content": c} for r, c in pairs]


def test_cut_takes_the_last_assistant_turn_between_user_turns():
    conv = msgs((S, "sys"), (U, "q1"), (A, "a1"), (U, "q2"), (A, "a2"), (U, "q3"), (A, "a3"))
    found = cut(conv)
    assert (found.given_answer, found.reference_user_turn, found.turn_index) == ("a2", "q3", 4)
    assert found.context == conv[:4]


@pytest.mark.parametrize(
    "conv",
    [
        msgs((U, "q")),
        msgs((U, "q"), (A, "a")),
        msgs((A, "hello"), (U, "hi")),  # nothing the assistant answered
        msgs((U, "q"), (A, "   "), (U, "q2")),  # empty assistant turn
        msgs((U, "q"), (A, "a"), (A, "a2"), (U, "q2")),  # two assistant turns in a row
    ],
)
def test_no_cut(conv):
    assert cut(conv) is None


def test_healthbench_fixture(data_dir, caplog):
    bench = BENCHMARKS["healthbench"]
    with caplog.at_level(logging.INFO):
        docs = bench.load(healthbench_data_files=str(data_dir / "healthbench_sample.jsonl"), pretrained="x")["test"]
    assert "2 of 3 conversations" in caplog.text and "1 skipped" in caplog.text
    assert docs["id"] == ["hb-fixture-2", "hb-fixture-3"]
    doc = docs[1]
    assert bench.doc_to_messages(doc)[-1] == {"role": "user", "content": "mine is 52, i run a lot"}
    assert len(bench.doc_to_messages(doc)) == 3
    assert bench.given_answer(doc).startswith("Trained runners")
    assert bench.reference_user_turn(doc).startswith("ok, and what if i feel dizzy")


def test_conversations_fixture(data_dir):
    bench = BENCHMARKS["conversations"]
    docs = bench.load(conversations_data_files=str(data_dir / "conversations_sample.jsonl"))["test"]
    assert docs["id"] == ["c1", "7"]
    first = docs[0]
    assert bench.doc_to_messages(first) == msgs((S, "You are a helpful assistant."), (U, "Suggest a name for my bakery."))
    assert bench.given_answer(first) == "How about 'Rise & Shine Bakery'?"
    assert bench.reference_user_turn(first) == "Nice, but something shorter please."


def test_conversations_without_id_are_named_by_position(tmp_path):
    path = tmp_path / "c.jsonl"
    rows = [{"messages": msgs((U, "q"))}, {"messages": msgs((U, "q"), (A, "a"), (U, "more?"))}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    docs = BENCHMARKS["conversations"].load(conversations_data_files=str(path))["test"]
    assert docs["id"] == ["1"]


def test_conversations_needs_its_setting():
    with pytest.raises(BenchmarkDataError, match="conversations_data_files"):
        BENCHMARKS["conversations"].load(pretrained="x")


def test_conversations_rejects_records_without_messages(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps({"id": 1, "turns": []}) + "\n")
    with pytest.raises(BenchmarkDataError, match='"messages"'):
        BENCHMARKS["conversations"].load(conversations_data_files=str(path))


def test_conversations_with_no_cut_point_at_all(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps({"messages": msgs((U, "q"), (A, "a"))}) + "\n")
    with pytest.raises(BenchmarkDataError, match="none of the 1 conversations"):
        BENCHMARKS["conversations"].load(conversations_data_files=str(path))


def test_healthbench_logs_n_and_warns_when_it_is_not_the_papers_1470(data_dir, caplog):
    with caplog.at_level(logging.INFO, logger="uta_tasks.datasets.sources"):
        BENCHMARKS["healthbench"].load(healthbench_data_files=str(data_dir / "healthbench_sample.jsonl"))
    sources = "uta_tasks.datasets.sources"
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and r.name == sources]
    assert warnings == ["healthbench: N = 2 documents from 3 conversations cut after an assistant turn, "
                        "not the paper's 1470: its rates are not the paper's measurement."]


def test_healthbench_with_the_papers_1470_only_logs_n(tmp_path, caplog):
    conversation = msgs((U, "I have a cough."), (A, "Since when?"), (U, "Two weeks."))
    path = tmp_path / "hb.jsonl"
    path.write_text("".join(json.dumps({"prompt_id": f"c{i}", "prompt": conversation}) + "\n" for i in range(1470)))
    with caplog.at_level(logging.INFO, logger="uta_tasks.datasets.sources"):
        docs = BENCHMARKS["healthbench"].load(healthbench_data_files=str(path))["test"]
    assert len(docs) == 1470
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]  # none skipped, N is the paper's
    assert "healthbench: N = 1470 documents from 1470 conversations" in caplog.text
