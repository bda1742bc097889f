"""``answers_from``: the completion of a stop-cut answer gets the budget a full run of the task
would give it, fitted to the model's maximum length, and is flagged when it runs out (issue 43).

The scripted model behaves as lm-eval's ``hf`` model does: it refuses (an ``AssertionError``, as
``hf`` raises) a request whose prompt and ``max_gen_toks`` do not fit its maximum length.
"""

from __future__ import annotations

from pipeline_run import NO_JUDGE, evaluate, records
from saved_lm_eval_runs import GSM8K, GreedyLM, greedy_script, save, saved_prompt

from uta_tasks.probe.budget import count_tokens

TASK = "uta_wrap_gsm8k"


class BoundedLM(GreedyLM):
    """The scripted model with lm-eval's ``hf`` bound: prompt tokens + max_gen_toks <= max_length."""

    def generate_until(self, requests: list, disable_tqdm: bool = False) -> list[str]:
        for request in requests:
            prompt, kwargs = request.args[0], request.args[1]
            asked = len(self.tokenizer(prompt)["input_ids"]) + int(kwargs.get("max_gen_toks", 256))
            assert asked <= self.max_length, f"{asked} tokens asked of a model of {self.max_length}"
        return super().generate_until(requests)


def _saved(tokenizer, folders) -> dict:
    plain = evaluate(GreedyLM(tokenizer, greedy_script), ["gsm8k"], include=(folders["plain"],), limit=1,
                     apply_chat_template=True, num_fewshot=0, gen_kwargs={"max_gen_toks": 200})
    save(plain, folders["out"])
    return next(s for s in plain["samples"]["gsm8k"] if s["filter"] == "flexible-extract")


def _probe(lm, folders, saved: bool, **kwargs) -> list:
    meta = {**NO_JUDGE, "gsm8k_data_files": str(GSM8K), "overlong": "drop",
            **({"answers_from": str(folders["out"])} if saved else {})}
    results = evaluate(lm, [TASK], metadata=meta, include=(folders["wrap"],), limit=1, **kwargs)
    return records(results, TASK)


def test_the_completion_is_fitted_as_a_full_run_and_leaves_the_task_budget(tokenizer, folders):
    """No --gen_kwargs: the task's own budget, fitted to a model of 2,048 tokens (hf asserted on the
    probe's 32,768 default less the saved answer before)."""
    sample = _saved(tokenizer, folders)
    lm = BoundedLM(tokenizer, greedy_script, max_length=2048)
    full = _probe(lm, folders, saved=False, gen_kwargs=None)[0]
    lm.calls.clear()
    mine = _probe(lm, folders, saved=True, gen_kwargs=None)[0]
    completion = next(kwargs for batch in lm.calls for prompt, kwargs in batch if not prompt.endswith("user\n"))
    prompt = saved_prompt(sample)
    saved_tokens = len(tokenizer(sample["resps"][0][0], add_special_tokens=False)["input_ids"])
    assert mine.budget["assistant"] == full.budget["assistant"] == 2048 - count_tokens(tokenizer, prompt)
    assert completion["max_gen_toks"] == full.budget["assistant"] - saved_tokens
    assert mine.a == full.a and not mine.answer_incomplete and not full.answer_incomplete


def test_a_completion_that_runs_out_of_budget_is_flagged_incomplete(tokenizer, folders):
    """A model whose maximum length leaves the completion 8 tokens: the answer stops short, as a
    full run's does, and both records say so."""
    sample = _saved(tokenizer, folders)
    prompt = saved_prompt(sample)
    saved_tokens = len(tokenizer(sample["resps"][0][0], add_special_tokens=False)["input_ids"])
    lm = BoundedLM(tokenizer, greedy_script, max_length=count_tokens(tokenizer, prompt) + saved_tokens + 8)
    full = _probe(lm, folders, saved=False)[0]
    lm.calls.clear()
    mine = _probe(lm, folders, saved=True)[0]
    assert full.answer_incomplete and mine.answer_incomplete
    assert mine.answer_source["tokens_added"] == 8 and mine.a.startswith(sample["resps"][0][0])
