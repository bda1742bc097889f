"""Reasoning models (issue 9): a real tokenizer with a <think>, harmony or GLM template and a
scripted model, through lm-eval's real evaluator."""

from __future__ import annotations

import math

import pytest
from pipeline_run import DATA, NO_JUDGE, evaluate, records
from scripted_lm import ScriptedLM, load_tokenizer

REASONING = " ".join(f"step{i}" for i in range(150))
GEN = {"max_gen_toks": 2048}  # room for the scripted answers: they are complete
FINAL = "So the result is " + " ".join(f"part{i}" for i in range(60)) + "."


def thinking_script(prompt: str, kwargs: dict) -> str:
    if prompt.endswith("<|im_start|>assistant\n") or prompt.endswith("</think>\n\n"):
        return f"<think>\n{REASONING}\n</think>\n\n{FINAL}"
    return "Why did it stop?"


# The ablation of issue 17: re-rendered pass 2, truncation of the final answer only (the
# paper's defaults, trace and response, are tested in test_paper_parity.py).
ABLATION = {**NO_JUDGE, "pass2_context": "template", "truncate_scope": "final_answer"}


def test_final_answer_scope_cuts_the_final_answer_only():
    tokenizer = load_tokenizer(template="qwen_think")
    lm = ScriptedLM(tokenizer, thinking_script)
    rec = records(evaluate(lm, ["uta_ifbench_trunc"], limit=2, gen_kwargs=GEN, metadata=ABLATION),
                  "uta_ifbench_trunc")[0]
    assert rec.truncate_scope == "final_answer" and rec.truncation["scope"] == "final_answer"
    n = len(tokenizer(FINAL, add_special_tokens=False)["input_ids"])
    assert rec.truncation["n_tokens"] == n and rec.truncation["removed_tokens"] == max(25, math.ceil(0.25 * n))
    assert rec.a_prime.startswith(f"<think>\n{REASONING}\n</think>\n\n")  # reasoning put back in front
    final_shown = rec.a_prime.split("</think>\n\n", 1)[1]
    assert FINAL.startswith(final_shown) and len(final_shown) < len(FINAL)
    # the model's own template drops earlier reasoning: pass 2 sees the cut final answer only
    assert "step3" not in rec.pass2_prompt and final_shown in rec.pass2_prompt
    assert rec.pass2_prompt.endswith("<|im_start|>user\n")


def test_unclosed_reasoning_is_flagged_and_scored_wrong():
    def never_closes(prompt: str, kwargs: dict) -> str:
        if prompt.endswith("<|im_start|>assistant\n"):
            return "<think>\nThe total is 18, so the answer is 18. Let me double-check"
        return "Hmm?"

    lm = ScriptedLM(load_tokenizer(template="qwen_think"), never_closes)
    meta = {**NO_JUDGE, "gsm8k_data_files": str(DATA / "gsm8k_test.jsonl"), "metrics": "full"}
    results = evaluate(lm, ["uta_gsm8k"], limit=2, metadata=meta, gen_kwargs=GEN)
    gsm = results["results"]["uta_gsm8k"]
    assert gsm["answer_incomplete,none"] == 1.0
    assert gsm["exact_match_flexible,none"] == 0.0  # even where the reasoning holds the right number
    assert all(r.answer_incomplete and r.reasoning_form == "unclosed" for r in records(results, "uta_gsm8k"))


def test_enable_thinking_and_template_args_reach_both_passes():
    lm = ScriptedLM(load_tokenizer(template="qwen_think"), thinking_script, chat_template_args={},
                    enable_thinking=False)
    rec = records(evaluate(lm, ["uta_ifbench"], limit=1, gen_kwargs=GEN), "uta_ifbench")[0]
    assert rec.pass1_prompt.endswith("<think>\n\n</think>\n\n")
    assert rec.role_switch["template_args"] == {"enable_thinking": False}

    def harmony(prompt: str, kwargs: dict) -> str:
        if prompt.endswith("<|start|>assistant"):
            return "<|channel|>analysis<|message|>think<|end|><|start|>assistant<|channel|>final<|message|>Four.<|return|>"
        return "Why four?"

    args = {"reasoning_effort": "high", "current_date": "2026-11-30"}
    lm = ScriptedLM(load_tokenizer(template="harmony"), harmony, chat_template_args=args)
    rec = records(evaluate(lm, ["uta_ifbench"], limit=1, gen_kwargs=GEN), "uta_ifbench")[0]
    header = rec.pass1_prompt.split("<|start|>user", 1)[0]
    assert "Reasoning: high" in header and "Current date: 2026-11-30" in header
    assert rec.role_switch["name"] == "harmony" and rec.pass2_prompt.startswith(header)
    assert rec.answer == "Four." and rec.pass2_prompt.endswith(
        "<|start|>assistant<|channel|>final<|message|>Four.<|end|><|start|>user<|message|>"
    )


def test_glm_template_mode_keeps_the_final_answer_only():
    def glm(prompt: str, kwargs: dict) -> str:
        return f"{REASONING}</think>{FINAL}" if prompt.endswith("<|assistant|>\n<think>") else "Why?"

    lm = ScriptedLM(load_tokenizer(template="glm"), glm)
    rec = records(evaluate(lm, ["uta_ifbench_trunc"], limit=1, gen_kwargs=GEN, metadata=ABLATION),
                  "uta_ifbench_trunc")[0]
    assert rec.role_switch["name"] == "glm4" and rec.reasoning_form == "think"
    assert not rec.answer_incomplete and "step3" not in rec.a_prime and FINAL.startswith(rec.a_prime)
    assert rec.pass2_prompt.endswith("<|user|>\n")


def test_over_long_pass2_prompt_is_refused_before_pass2_and_can_be_dropped():
    tokenizer = load_tokenizer(template="qwen_think")
    long_answer = lambda p, k: "word " * 400 if p.endswith("<|im_start|>assistant\n") else "Why?"  # noqa: E731
    lm = ScriptedLM(tokenizer, long_answer, max_length=380)
    with pytest.raises(Exception, match="max_model_len"):
        evaluate(lm, ["uta_ifbench"], limit=1, gen_kwargs=GEN)
    assert len(lm.calls) == 1, "pass 1 ran; pass 2 was refused before generating"
    lm = ScriptedLM(tokenizer, long_answer, max_length=380)
    results = evaluate(lm, ["uta_ifbench"], limit=1, metadata={**NO_JUDGE, "overlong": "drop", "metrics": "full"})
    assert results["results"]["uta_ifbench"]["overlong,none"] == 1.0
    assert records(results, "uta_ifbench")[0].overlong == "pass2"


def test_budget_is_capped_so_lm_eval_never_cuts_the_prompt():
    lm = ScriptedLM(load_tokenizer(template="qwen_think"), thinking_script, max_length=4096)
    rec = records(evaluate(lm, ["uta_ifbench"], limit=1, gen_kwargs={"max_gen_toks": 32768}), "uta_ifbench")[0]
    sent = lm.calls[0][0][1]["max_gen_toks"]
    prompt_tokens = len(lm.tokenizer(rec.pass1_prompt)["input_ids"])
    assert sent == rec.budget["assistant"] and prompt_tokens + sent <= 4096


def test_think_end_token_is_refused_before_generation():
    lm = ScriptedLM(load_tokenizer(template="qwen_think"), thinking_script, think_end_token="</think>")
    with pytest.raises(Exception, match="think_end_token"):
        evaluate(lm, ["uta_ifbench"], limit=1, gen_kwargs=GEN)
    assert lm.calls == []


def test_units_are_shares_and_changed_is_undefined_when_sampled():
    lm = ScriptedLM(load_tokenizer(template="qwen_think"), thinking_script)
    greedy = evaluate(lm, ["uta_ifbench_question"], limit=2, gen_kwargs=GEN)["results"]["uta_ifbench_question"]
    assert 0.0 <= greedy["share_changed,none"] <= 1.0
    sampled = evaluate(lm, ["uta_ifbench_question"], limit=2,
                       gen_kwargs={**GEN, "temperature": 0.7, "do_sample": True})
    # undefined on every doc: lm-eval gets no value, so its table has no row; computed from
    # the samples (what uta-summary, report and gate read) it is NaN
    assert "share_changed,none" not in sampled["results"]["uta_ifbench_question"]
    from uta_tasks.runs.from_samples import measure_docs, missing_values, per_metric
    from uta_tasks.runs.samples import DocSample, decode_records

    docs = [DocSample(line["doc_id"], decode_records(line), {}, line) for line in sampled["samples"]["uta_ifbench_question"]]
    meta = sampled["configs"]["uta_ifbench_question"]["metadata"]
    specs, measured = measure_docs("uta_ifbench_question", meta, docs, None)
    assert math.isnan(missing_values(specs, per_metric(specs, measured), set())["share_changed"])
    assert all(m.units["share_changed"] == {} for m in measured)  # no unit behind an interval either


def test_sampling_settings_in_effect_are_recorded_per_pass():
    from transformers import GenerationConfig

    model = type("Model", (), {"generation_config": GenerationConfig(top_p=0.8, top_k=20, repetition_penalty=1.05)})()
    lm = ScriptedLM(load_tokenizer(template="qwen_think"), thinking_script, model=model)
    gen = {**GEN, "temperature": 0.6, "do_sample": True, "top_p": 0.95}
    rec = records(evaluate(lm, ["uta_ifbench"], limit=1, gen_kwargs=gen), "uta_ifbench")[0]
    for side in ("assistant", "user"):
        used = rec.generation["sampling"][side]
        assert used["temperature"] == 0.6 and used["top_p"] == 0.95  # as sent
        assert used["top_k"] == 20 and used["repetition_penalty"] == 1.05  # the model's defaults
