"""Every benchmark family through lm-eval with the real SmolLM2: local data files in the
benchmarks' real schemas, accuracy beside the user turns, held-out conversations."""

from __future__ import annotations

from pathlib import Path

import pytest
from runs import NO_JUDGE, evaluate, records

pytestmark = pytest.mark.slow
DATA = Path(__file__).resolve().parents[1] / "fixtures" / "data"


def test_gsm8k_and_gpqa_from_local_files_report_accuracy(lm):
    meta = {
        **NO_JUDGE,
        "gsm8k_data_files": str(DATA / "gsm8k_test.jsonl"),
        "gpqa_diamond_data_files": str(DATA / "gpqa_sample.csv"),
    }
    results = evaluate(lm, ["uta_gsm8k_trunc", "uta_gpqa_diamond"], metadata=meta, limit=2)
    gsm = results["results"]["uta_gsm8k_trunc"]
    assert 0.0 <= gsm["exact_match_flexible,none"] <= 1.0 and "share_changed,none" in gsm
    assert 0.0 <= results["results"]["uta_gpqa_diamond"]["exact_match,none"] <= 1.0
    for r in records(results, "uta_gpqa_diamond"):
        assert "(A)" in r["q"] or "A)" in r["q"]  # the lettered options reach the model


def test_conversations_run_pass_two_only_and_keep_the_reference(lm, backend_calls):
    from uta_tasks.probe import hook

    meta = {**NO_JUDGE, "conversations_data_files": str(DATA / "conversations_sample.jsonl")}
    results = evaluate(lm, ["uta_conversations", "uta_conversations_question"], metadata=meta)
    assert "assistant" not in hook.LAST_RUN  # the assistant turn is given: no pass 1
    assert len(backend_calls) == 1
    recs = records(results, "uta_conversations")
    assert recs
    for r in recs:
        assert r["given_answer"] is True and r["pass1_prompt"] is None
        assert r["messages"][-1]["role"] == "user"
        assert r["a"] and r["reference_user_turn"] and isinstance(r["u"], str)
        assert r["pass2_prompt"].endswith(f"{r['a']}<|im_end|>\n<|im_start|>user\n")
    first = next(r for r in recs if r["reference_user_turn"] == "Nice, but something shorter please.")
    assert first["a"] == "How about 'Rise & Shine Bakery'?"
    assert first["messages"][0]["role"] == "system"
    for r in records(results, "uta_conversations_question"):
        assert r["a_prime"].startswith(r["a"]) and r["cue"]


def test_offline_gsm8k_without_files_fails_fast_naming_the_fix(lm, backend_calls, monkeypatch, waits):
    from uta_tasks.datasets import BenchmarkDataError

    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    with pytest.raises(BenchmarkDataError, match="gsm8k_data_files") as err:
        evaluate(lm, ["uta_gsm8k"], limit=1, metadata=dict(NO_JUDGE))
    assert "openai/gsm8k" in str(err.value)
    assert waits == [] and backend_calls == []  # no retry backoff, and the model never called
