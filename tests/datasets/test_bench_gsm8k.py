"""GSM8K: the user turn, and accuracy identical to lm-eval's own gsm8k task."""

from __future__ import annotations

import pytest
from bench_parity import assert_gsm8k_parity

from uta_tasks.datasets import BENCHMARKS

BENCH = BENCHMARKS["gsm8k"]

# Free-form chat answers to the six fixture problems (golds 12, 14, 150, 1050, -7, 21),
# several of each kind lm-eval's filters treat differently.
RESPONSES = [
    "She makes 24 + 18 = 42 muffins and sells 30, so 42 - 30 = 12. The answer is 12.",
    "Three notebooks cost $12 and the pen $2, so he spends **$14**.",
    "60 miles per hour for 2.5 hours gives 150 miles.\n#### 150",
    "She gives away 300 and buys 150 more, ending with 1,050 stamps.",
    "The temperature drops to 7 degrees below zero, i.e. 7.",
    "I am not sure how many sheets are needed.",
]


@pytest.fixture(scope="module")
def docs(data_dir):
    return BENCH.load(gsm8k_data_files=str(data_dir / "gsm8k_test.jsonl"))["test"]


def test_user_turn_is_the_problem(docs):
    assert BENCH.doc_to_messages(docs[0]) == [{"role": "user", "content": docs[0]["question"]}]


@pytest.mark.parametrize(
    ("answer", "flexible", "strict"),
    [
        ("So 42 - 30 = 12 muffins are left.", 1.0, 0.0),
        ("#### 12", 1.0, 1.0),
        ("The answer is 12.", 1.0, 0.0),  # lm-eval ignores a final "."
        ("12 muffins, not 13", 0.0, 0.0),  # the LAST number counts
        ("No idea.", 0.0, 0.0),  # failed extraction is wrong
        ("", 0.0, 0.0),
    ],
)
def test_score_cases(docs, answer, flexible, strict):
    assert BENCH.score(docs[0], answer) == {"exact_match_flexible": flexible, "exact_match_strict": strict}


def test_thousands_separator_and_dollar_are_ignored(docs):
    assert BENCH.score(docs[3], "She has 1,050 stamps")["exact_match_flexible"] == 1.0
    assert BENCH.score(docs[1], "He spends $14.")["exact_match_flexible"] == 1.0


def test_parity_with_lm_eval_gsm8k_task(docs):
    """Same numbers as lm-eval's ConfigurableTask built from its installed gsm8k.yaml."""
    assert_gsm8k_parity(docs, RESPONSES)
