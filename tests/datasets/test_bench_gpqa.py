"""GPQA: reproducible seeded shuffle, the user turn, final-letter extraction."""

from __future__ import annotations

import random

import pytest

from uta_tasks.datasets import BENCHMARKS
from uta_tasks.datasets.gpqa import add_choices, extract_letter, shuffle_seed


@pytest.fixture(scope="module")
def docs(data_dir):
    return BENCHMARKS["gpqa_diamond"].load(gpqa_diamond_data_files=str(data_dir / "gpqa_sample.csv"))["test"]


def test_loads_real_csv_schema(docs):
    assert len(docs) == 5
    assert {"Question", "Correct Answer", "Record ID", "choices", "answer"} <= set(docs.column_names)


def test_correct_letter_points_at_correct_answer(docs):
    for doc in docs:
        assert sorted(doc["choices"]) == sorted(
            [doc["Correct Answer"], doc["Incorrect Answer 1"], doc["Incorrect Answer 2"], doc["Incorrect Answer 3"]]
        )
        assert doc["choices"]["ABCD".index(doc["answer"])] == doc["Correct Answer"]


def test_order_is_fixed_per_question_and_ignores_global_random_state(docs):
    raw = {k: v for k, v in docs[0].items() if k not in ("choices", "answer")}
    random.seed(1)
    first = add_choices(raw)
    random.seed(2)
    random.random()
    assert add_choices(raw) == first == {"choices": docs[0]["choices"], "answer": docs[0]["answer"]}


def test_seed_comes_from_record_id_then_question(docs):
    doc = dict(docs[0])
    assert shuffle_seed(doc) == shuffle_seed({"Record ID": doc["Record ID"], "Question": "other"})
    assert shuffle_seed({"Record ID": None, "Question": "q"}) == shuffle_seed({"Question": "q"})
    assert len({shuffle_seed(d) for d in docs}) == len(docs)


def test_correct_answers_are_not_all_in_one_position(docs):
    assert len({d["answer"] for d in docs}) > 1


def test_user_turn_shows_lettered_options_and_format(docs):
    (message,) = BENCHMARKS["gpqa_diamond"].doc_to_messages(docs[0])
    assert message["role"] == "user"
    text = message["content"]
    assert docs[0]["Question"] in text
    for letter, choice in zip("ABCD", docs[0]["choices"], strict=True):
        assert f"\n{letter}) {choice}" in text
    assert "'Answer: $LETTER'" in text


@pytest.mark.parametrize(
    ("answer", "letter"),
    [
        ("Reasoning...\nAnswer: C", "C"),
        ("answer: b", "B"),
        ("**Answer: D**", "D"),
        ("Answer: (A)", "A"),
        ("Answer: $B$", "B"),
        ("Answer: A\nOn reflection, Answer: D", "D"),  # the final one counts
        ("Answer: Definitely the second", None),
        ("I think it is B.", None),
        ("", None),
    ],
)
def test_extract_letter(answer, letter):
    assert extract_letter(answer) == letter


def test_score(docs):
    bench = BENCHMARKS["gpqa_main"]
    doc = docs[0]
    wrong = next(x for x in "ABCD" if x != doc["answer"])
    assert bench.score(doc, f"Answer: {doc['answer']}") == {"exact_match": 1.0}
    assert bench.score(doc, f"Answer: {wrong}") == {"exact_match": 0.0}
    assert bench.score(doc, "no letter here") == {"exact_match": 0.0}
