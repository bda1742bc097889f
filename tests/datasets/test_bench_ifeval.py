"""IFEval: accuracy identical to lm-eval's own ifeval task."""

from __future__ import annotations

import pytest
from bench_parity import assert_ifeval_parity

from uta_tasks.datasets import BENCHMARKS

BENCH = BENCHMARKS["ifeval"]

# Hand-written answers to the eight fixture prompts, some following and some breaking
# their instructions (strict and loose differ on the markdown and first-line cases).
RESPONSES = [
    "hi sam, could you water my plants while i am away? thanks a lot!",
    "The chain moves between sprockets. A larger rear sprocket makes pedaling easier, while a smaller one gives more speed.",
    "Here are my tips:\n* Start with simple recipes.\n* Taste as you go.\n* Keep your knives sharp.",
    "**Leaves** fall in the wind,\nquiet gold on the cold ground,\nautumn breathes slowly.\nIs there anything else I can help with?\n(haiku ends)",
    "<<Green Corners of the City>>\nCity gardens bring people together. They also cool the streets.",
    "What is the capital of France? Explain briefly.\nParis is the capital of France; it has been the seat of government for centuries.",
    "Meet the bottle that goes everywhere: LEAKPROOF, INSULATED and light.",
    "SECTION 1\nA rainbow is light bent by raindrops.\nSECTION 2\nEach colour bends a little differently.\nP.S. Look for one after rain!",
]


@pytest.fixture(scope="module")
def docs(data_dir):
    return BENCH.load(ifeval_data_files=str(data_dir / "ifeval_sample.jsonl"))["test"]


def test_user_turn_is_the_prompt(docs):
    assert BENCH.doc_to_messages(docs[1]) == [{"role": "user", "content": docs[1]["prompt"]}]


def test_metrics(docs):
    scores = BENCH.score(docs[1], RESPONSES[1])
    assert set(scores) == set(BENCH.aggregations)
    assert scores["inst_level_strict_acc"] == [True, False]  # has commas
    assert scores["prompt_level_strict_acc"] is False


def test_parity_with_lm_eval_ifeval_task(docs):
    assert_ifeval_parity(docs, RESPONSES)


def test_loose_differs_from_strict_where_lm_eval_says_so(docs):
    scores = BENCH.score(docs[3], RESPONSES[3])  # a line after the required end phrase
    assert scores["inst_level_strict_acc"] == [True, False]
    assert scores["inst_level_loose_acc"] == [True, True]
