"""Parity on real model answers: SmolLM2-135M-Instruct (transformers, CPU, greedy)
answers real IFBench prompts and the IFEval and GSM8K fixtures through its own chat
template; uta and the reference scorers must give identical numbers."""

from __future__ import annotations

import logging

import pytest
from bench_parity import assert_gsm8k_parity, assert_ifbench_parity, assert_ifeval_parity

from uta_tasks.datasets import BENCHMARKS

log = logging.getLogger(__name__)

pytestmark = pytest.mark.slow

#: One IFBench prompt per instruction below (the first in file order), chosen to cover
#: the checks that need NLTK data (stop words, word and sentence tokenizers) and a
#: spread of formats and counts.
IFBENCH_INSTRUCTIONS = [
    "ratio:stop_words", "words:keywords_specific_position", "format:title_case",
    "count:word_count_range", "format:list", "format:emoji", "sentence:keyword", "count:numbers",
    "format:quotes", "ratio:sentence_type", "words:no_consecutive", "count:pronouns",
]
MAX_NEW_TOKENS = 96


@pytest.fixture(scope="module")
def generate(smollm2_dir):
    """Greedy answers of SmolLM2 to a list of chat conversations, generated as one batch
    (left padding): one ``generate`` call per benchmark instead of one per prompt."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(smollm2_dir, padding_side="left")
    model = AutoModelForCausalLM.from_pretrained(smollm2_dir, dtype=torch.float32).eval()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a 135M model gains little from more; one thread stays fast on a busy machine

    def run(conversations: list[list[dict]]) -> list[str]:
        prompts = [tokenizer.apply_chat_template(m, add_generation_prompt=True, tokenize=False) for m in conversations]
        inputs = tokenizer(prompts, return_tensors="pt", padding=True, add_special_tokens=False)
        with torch.no_grad():
            out = model.generate(**inputs, max_new_tokens=MAX_NEW_TOKENS, do_sample=False,
                                 pad_token_id=tokenizer.pad_token_id)
        start = inputs["input_ids"].shape[1]
        return [tokenizer.decode(row[start:], skip_special_tokens=True) for row in out]

    yield run
    torch.set_num_threads(threads)


def test_ifbench_parity_on_smollm2_answers(generate):
    bench = BENCHMARKS["ifbench"]
    docs = bench.load(ifbench_unverifiable="drop")["test"]
    first = {}
    for n, ids in enumerate(docs["instruction_id_list"]):
        for i in ids:
            first.setdefault(i, n)
    picked = docs.select(sorted({first[i] for i in IFBENCH_INSTRUCTIONS}))
    answers = generate([bench.doc_to_messages(doc) for doc in picked])
    report = assert_ifbench_parity(picked, answers)
    log.info("IFBench, %d SmolLM2 answers: %s", len(answers), report)


def test_ifeval_parity_on_smollm2_answers(generate, data_dir):
    bench = BENCHMARKS["ifeval"]
    docs = bench.load(ifeval_data_files=str(data_dir / "ifeval_sample.jsonl"))["test"]
    answers = generate([bench.doc_to_messages(doc) for doc in docs])
    log.info("IFEval, %d SmolLM2 answers: %s", len(answers), assert_ifeval_parity(docs, answers))


def test_gsm8k_parity_on_smollm2_answers(generate, data_dir):
    bench = BENCHMARKS["gsm8k"]
    docs = bench.load(gsm8k_data_files=str(data_dir / "gsm8k_test.jsonl"))["test"]
    answers = generate([bench.doc_to_messages(doc) for doc in docs])
    scores = assert_gsm8k_parity(docs, answers)
    log.info("GSM8K, %d SmolLM2 answers: %s", len(answers), scores)
