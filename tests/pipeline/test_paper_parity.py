"""Issue 17: the paper's own procedure by default, through lm-eval's real evaluator with real
templates and a scripted model. Pass 2 in both modes, character for character; truncation
counts in both scopes; pass@k over user samples against a brute-force count."""

from __future__ import annotations

import hashlib
import itertools
import math

import pytest
from pipeline_run import DATA, NO_JUDGE, evaluate, records
from scripted_lm import ScriptedLM, load_tokenizer

REASONING = " ".join(f"step{i}" for i in range(150))
FINAL = "So the result is " + " ".join(f"part{i}" for i in range(60)) + "."
SHORT_FINAL = "The answer is 42."
GEN = {"max_gen_toks": 2048}
TEMPLATE = {**NO_JUDGE, "pass2_context": "template"}


def qwen(final: str = FINAL):
    def script(prompt: str, kwargs: dict) -> str:
        if prompt.endswith("<|im_start|>assistant\n"):
            return f"<think>\n{REASONING}\n</think>\n\n{final}"
        return "Why did it stop?"

    return script


def harmony(prompt: str, kwargs: dict) -> str:
    if prompt.endswith("<|start|>assistant"):
        return (f"<|channel|>analysis<|message|>{REASONING}<|end|><|start|>assistant<|channel|>final<|message|>"
                f"{FINAL}<|return|>")
    return "Why four?"


def glm(prompt: str, kwargs: dict) -> str:
    return f"{REASONING}</think>{FINAL}" if prompt.endswith("<|assistant|>\n<think>") else "Why?"


def _one(template: str, script, task: str = "uta_ifbench", metadata: dict | None = None):
    lm = ScriptedLM(load_tokenizer(template=template), script)
    return records(evaluate(lm, [task], limit=1, gen_kwargs=GEN, metadata=metadata or NO_JUDGE), task)[0]


@pytest.mark.parametrize(("template", "script", "join"), [
    ("qwen_think", qwen(), "<|im_end|>\n<|im_start|>user\n"),
    ("glm", glm, "<|user|>\n"),
])
def test_trace_is_pass1_prompt_plus_answer_plus_marker_and_header(template, script, join):
    rec = _one(template, script)
    assert rec.pass2_context == "trace" and rec.join["marker"] + rec.join["header"] == join
    assert rec.pass2_prompt == rec.pass1_prompt + rec.a + join  # character for character
    assert "step3" in rec.pass2_prompt and rec.answer == FINAL  # the model sees its reasoning


def test_harmony_trace_writes_end_where_generation_returned():
    rec = _one("harmony", harmony)
    assert rec.a.endswith("<|return|>")
    assert rec.pass2_prompt == rec.pass1_prompt + rec.a.removesuffix("<|return|>") + "<|end|><|start|>user<|message|>"
    assert "<|channel|>analysis<|message|>step0" in rec.pass2_prompt and rec.answer == FINAL


@pytest.mark.parametrize(("template", "script", "tail"), [
    ("qwen_think", qwen(), f"<|im_start|>assistant\n{FINAL}<|im_end|>\n<|im_start|>user\n"),
    ("harmony", harmony, f"<|start|>assistant<|channel|>final<|message|>{FINAL}<|end|><|start|>user<|message|>"),
    ("glm", glm, f"<|assistant|>\n<think></think>\n{FINAL}<|user|>\n"),
])
def test_template_mode_rerenders_and_drops_the_reasoning(template, script, tail):
    rec = _one(template, script, metadata=TEMPLATE)
    assert rec.pass2_context == "template" and rec.join is None
    assert rec.pass2_prompt.endswith(tail) and "step3" not in rec.pass2_prompt


def test_response_scope_counts_every_token_and_can_stop_mid_reasoning():
    tokenizer = load_tokenizer(template="qwen_think")
    rec = _one("qwen_think", qwen(SHORT_FINAL), task="uta_ifbench_trunc")
    n = len(tokenizer(rec.a, add_special_tokens=False)["input_ids"])
    assert rec.truncate_scope == "response" and rec.truncation["scope"] == "response"
    assert rec.truncation["n_tokens"] == n and rec.truncation["removed_tokens"] == max(25, math.ceil(0.25 * n))
    assert rec.a.startswith(rec.a_prime) and "</think>" not in rec.a_prime  # stops mid-reasoning
    kept = len(tokenizer(rec.a_prime, add_special_tokens=False)["input_ids"])
    assert abs(kept - (n - rec.truncation["removed_tokens"])) <= 1  # a token boundary, re-tokenised
    assert rec.pass2_prompt == rec.pass1_prompt + rec.a_prime + "<|im_end|>\n<|im_start|>user\n"
    assert rec.pass2_ref_prompt == rec.pass1_prompt + rec.a + "<|im_end|>\n<|im_start|>user\n"
    assert rec.answer == SHORT_FINAL  # accuracy: the final answer of the untruncated a


def test_final_answer_scope_counts_the_final_answer_only():
    tokenizer = load_tokenizer(template="qwen_think")
    rec = _one("qwen_think", qwen(), task="uta_ifbench_trunc", metadata={**NO_JUDGE, "truncate_scope": "final_answer"})
    n = len(tokenizer(FINAL, add_special_tokens=False)["input_ids"])
    assert rec.truncation == {"scope": "final_answer", "n_tokens": n, "removed_tokens": max(25, math.ceil(0.25 * n)),
                              "emptied": False}
    assert rec.a_prime.startswith(f"<think>\n{REASONING}\n</think>\n\n") and FINAL.startswith(
        rec.a_prime.split("</think>\n\n", 1)[1])
    assert rec.pass2_prompt == rec.pass1_prompt + rec.a_prime + "<|im_end|>\n<|im_start|>user\n"


def test_held_out_trace_is_the_data_conversation_rendered_then_the_join():
    lm = ScriptedLM(load_tokenizer(template="qwen_think"), qwen())
    meta = {**NO_JUDGE, "conversations_data_files": str(DATA / "conversations_sample.jsonl")}
    rec = records(evaluate(lm, ["uta_conversations"], limit=1, gen_kwargs=GEN, metadata=meta), "uta_conversations")[0]
    rendered = lm.tokenizer.apply_chat_template([*rec.messages, {"role": "assistant", "content": rec.a}],
                                                tokenize=False)
    assert rec.pass1_prompt is None and rec.pass2_prompt == rendered + "<|im_start|>user\n"


def sampled(prompt: str, kwargs: dict) -> str:
    """Pass 1: a plain answer. Pass 2: one of a few user turns, drawn from the prompt and a call
    counter ('?' marks the genuine ones for the scripted judge; repeats are judged once)."""
    if prompt.endswith("<|im_start|>assistant\n"):
        return "The answer is 42."
    sampled.calls += 1  # type: ignore[attr-defined]
    digest = hashlib.sha256(f"{prompt}{sampled.calls}".encode()).digest()[0]  # type: ignore[attr-defined]
    return ["Why 42?", "Thanks.", "Ok.", "How so?", "Thanks."][digest % 5]


def test_user_samples_pass_at_k_matches_brute_force(judge_server, tmp_path):
    sampled.calls = 0  # type: ignore[attr-defined]
    lm = ScriptedLM(load_tokenizer(template="qwen_think"), sampled)
    meta = {"judge_base_url": judge_server.base_url, "judge_model": "fault-judge", "judge_cache": "none",
            "ifbench_unverifiable": "drop", "user_max_gen_toks": 16, "user_samples": 5, "pass_at_k": "1,2,5",
            "metrics": "full"}
    results = evaluate(lm, ["uta_ifbench"], limit=6, metadata=meta,
                       gen_kwargs={**GEN, "temperature": 0.7, "do_sample": True})
    got = results["results"]["uta_ifbench"]
    recs = records(results, "uta_ifbench")
    assert all(len(r.u_samples) == 5 and r.u == r.u_samples[0] for r in recs)
    for k in (1, 2, 5):
        brute = [sum(any("?" in u for u in pick) for pick in itertools.combinations(r.u_samples, k))
                 / math.comb(5, k) for r in recs]
        assert got[f"genuine_pass_at_{k},none"] == pytest.approx(sum(brute) / len(brute))
    assert got["genuine_pass_at_k,none"] == got["genuine_pass_at_5,none"]
    prob = [sum("?" in u for u in r.u_samples) / 5 for r in recs]
    assert got["genuine_prob,none"] == pytest.approx(sum(prob) / len(prob))
    distinct = {(r.a_prime, r.q, u) for r in recs for u in r.u_samples}
    assert got["judge_calls,none"] == len(distinct)  # identical turns are judged once


def test_user_samples_refuse_greedy_decoding():
    lm = ScriptedLM(load_tokenizer(template="qwen_think"), sampled)
    with pytest.raises(Exception, match="user_samples=3.*T = 0.*temperature"):
        evaluate(lm, ["uta_ifbench"], limit=1, metadata={**NO_JUDGE, "user_samples": 3}, gen_kwargs=GEN)
    assert lm.calls == []
