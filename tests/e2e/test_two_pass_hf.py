"""The two-pass hook through real lm-eval with the real SmolLM2 (``--model hf``)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from runs import GEN, IFBENCH, NO_JUDGE, evaluate, model_dir_without_template, records

pytestmark = pytest.mark.slow
N = 3


def test_one_backend_call_per_pass_and_deduplicated_counts(lm, backend_calls, plain_task_dir):
    from uta_tasks.probe import hook

    results = evaluate(lm, [*IFBENCH, "plain_echo"], include=[plain_task_dir], limit=N)
    plain = [c for c in backend_calls if c and c[0].startswith("Count to")]
    uta = [c for c in backend_calls if c not in plain]
    # lm-eval's own task is untouched: its prompts go to the backend as they are, alone.
    assert plain == [["Count to 3:", "Count to 4:", "Count to 5:"]] or sorted(plain[0]) == sorted(
        ["Count to 3:", "Count to 4:", "Count to 5:"]
    )
    assert "exact_match,none" in results["results"]["plain_echo"]
    # One call for pass 1 (N answers shared by 3 tasks), one for pass 2 (base u = both u_ref).
    assert len(uta) == 2
    assert len(uta[0]) <= N and len(uta[1]) <= 3 * N
    assert hook.LAST_RUN["assistant"].requested == 3 * N
    assert hook.LAST_RUN["user"].requested == 5 * N
    base = {r["q"]: r for r in records(results, "uta_ifbench")}
    for task in IFBENCH[1:]:
        for r in records(results, task):
            assert r["a"] == base[r["q"]]["a"]  # same answer reused at T=0
            assert r["u_ref"] == base[r["q"]]["u"]  # same user turn reused at T=0


def test_use_cache_rerun_generates_nothing(lm, backend_calls, tmp_path):
    cache = str(tmp_path / "lm_cache")
    first = evaluate(lm, IFBENCH, limit=2, use_cache=cache)
    assert backend_calls, "the first run generates"
    backend_calls.clear()
    second = evaluate(lm, IFBENCH, limit=2, use_cache=cache)
    assert backend_calls == []
    for task in IFBENCH:
        assert [(r["a"], r["u"], r["u_ref"]) for r in records(second, task)] == [
            (r["a"], r["u"], r["u_ref"]) for r in records(first, task)
        ]


def test_gen_kwargs_reach_both_passes_and_sampling_is_not_merged(lm, backend_calls):
    from uta_tasks.probe import hook

    gen = {**GEN, "temperature": 0.9, "top_p": 0.95, "do_sample": True}
    results = evaluate(lm, IFBENCH, limit=2, gen_kwargs=gen, random_seed=1, numpy_random_seed=1, torch_random_seed=1)
    for task in IFBENCH:
        for r in records(results, task):
            for side in ("assistant", "user"):
                assert r["generation"][side]["temperature"] == 0.9
                assert r["generation"][side]["top_p"] == 0.95
            assert r["generation"]["assistant"]["max_gen_toks"] == GEN["max_gen_toks"]
            assert r["generation"]["user"]["max_gen_toks"] == NO_JUDGE["user_max_gen_toks"]
            assert "<|im_end|>" in r["generation"]["user"]["until"]
    # Sampled requests are never merged: every task samples its own answer.
    assert hook.LAST_RUN["assistant"].generated == 3 * 2
    assert results["config"]["gen_kwargs"]["temperature"] == 0.9


def test_truncation_removes_exact_token_count(lm, smollm2_tokenizer):
    results = evaluate(lm, ["uta_ifbench_trunc"], limit=N, gen_kwargs={**GEN, "max_gen_toks": 64})
    tok = smollm2_tokenizer
    recs = records(results, "uta_ifbench_trunc")
    assert len(recs) == N
    for r in recs:
        ids = tok(r["a"], add_special_tokens=False)["input_ids"]
        n = len(ids)
        removed = min(n, max(25, math.ceil(0.25 * n)))
        assert r["truncation"] == {"scope": "response", "n_tokens": n, "removed_tokens": removed,
                                   "emptied": removed == n}
        assert r["pass2_prompt"] == r["pass1_prompt"] + r["a_prime"] + "<|im_end|>\n<|im_start|>user\n"  # the trace
        assert r["a_prime"] == tok.decode(ids[: n - removed])
        assert r["a"].startswith(r["a_prime"])
        assert r["pass2_prompt"].endswith(f"<|im_start|>assistant\n{r['a_prime']}<|im_end|>\n<|im_start|>user\n")


def test_system_instruction_and_logged_record_fields(lm):
    results = evaluate(lm, ["uta_ifbench_question"], limit=1, system_instruction="Answer in one sentence.")
    (r,) = records(results, "uta_ifbench_question")
    assert r["messages"][0] == {"role": "system", "content": "Answer in one sentence."}
    assert r["pass1_prompt"].startswith("<|im_start|>system\nAnswer in one sentence.<|im_end|>")
    assert r["a_prime"] == f"{r['a']} {r['cue']}"
    assert r["role_switch"]["name"] == "sentinel"
    for key in ("q", "pass1_prompt", "a", "answer", "a_prime", "pass2_prompt", "u", "u_ref", "generation"):
        assert key in r


def test_predict_only_skips_the_judge(lm):
    # An unreachable judge would fail the preflight: predict_only must not even try it.
    meta = {**NO_JUDGE, "judge": "openai", "judge_base_url": "http://127.0.0.1:9/v1"}
    results = evaluate(lm, ["uta_ifbench"], limit=1, metadata=meta, predict_only=True)
    (r,) = records(results, "uta_ifbench")
    assert r["verdict"] is None and r["u"] is not None


def test_model_without_chat_template_fails_before_generation(smollm2_dir, tmp_path, backend_calls):
    from lm_eval.models.huggingface import HFLM

    from uta_tasks.probe.role_switch import RoleSwitchError

    bare = HFLM(pretrained=str(model_dir_without_template(smollm2_dir, tmp_path / "bare")), batch_size=4, device="cpu")
    with pytest.raises(RoleSwitchError, match="no chat template"):
        evaluate(bare, ["uta_ifbench"], limit=1)
    assert backend_calls == []


def test_judge_none_reports_accuracy_without_follow_up_rates(lm):
    results = evaluate(lm, ["uta_ifbench_trunc"], limit=1, metadata={**NO_JUDGE, "metrics": "full"})
    metrics = results["results"]["uta_ifbench_trunc"]
    assert "prompt_level_strict_acc,none" in metrics and "share_changed,none" in metrics
    assert "trunc_emptied,none" in metrics
    assert not any(k.startswith("genuine_followup") for k in metrics)


def test_repeats_sample_k_independent_pairs_per_doc(lm, tmp_path):
    import uta_tasks

    base = Path(uta_tasks.include_path()) / "ifbench" / "uta_ifbench.yaml"
    (tmp_path / "rep.yaml").write_text(f"include: {base}\ntask: uta_ifbench_rep\nrepeats: 3\n")
    gen = {**GEN, "temperature": 0.9, "do_sample": True}
    results = evaluate(lm, ["uta_ifbench_rep"], include=[tmp_path], limit=2, gen_kwargs=gen)
    samples = results["samples"]["uta_ifbench_rep"]
    assert [len(s["filtered_resps"][0]) for s in samples] == [3, 3]
    for s in samples:
        answers = [json.loads(r)["a"] for r in s["resps"][0]]  # a: the first text of a record, written whole
        assert len(set(answers)) > 1  # k samples, not one answer copied k times
