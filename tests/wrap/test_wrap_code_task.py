"""A wrapped code task (lm-eval's cruxeval_output) scores by running the answer's code through
lm-eval's own unsafe-code path, only with ``confirm_run_unsafe_code``; without it lm-eval
refuses before the model is asked anything. Scripted model, local file in cruxeval's schema."""

from __future__ import annotations

import pytest
from pipeline_run import DATA, NO_JUDGE, evaluate, records

from uta_tasks.wrap.check import plan
from uta_tasks.wrap.yamls import write

TASK = "uta_wrap_cruxeval_output"
META = {**NO_JUDGE, "cruxeval_output_data_files": str(DATA / "cruxeval_output_sample.jsonl")}


def answers_the_doubling_right(prompt: str, gen_kwargs: dict) -> str:
    """Pass 1: a right assertion for ``x * 2``, a wrong one for the string reversal; pass 2: a question."""
    if prompt.endswith("<|im_start|>assistant\n"):
        if "return x * 2" in prompt:
            return "[ANSWER]\nassert f(3) == 6\n[/ANSWER]"
        return "[ANSWER]\nassert f('abc') == 'abc'\n[/ANSWER]"
    return "Why?"


@pytest.fixture()
def wrapped(tmp_path):
    from uta_tasks.lm_eval_compat.source_tasks import lookup

    if lookup("cruxeval_output") is None:
        pytest.skip("the installed lm-eval ships no cruxeval_output (0.5.0.dev1 does not)")
    write(tmp_path, plan(["cruxeval_output"]), {})
    return tmp_path


def test_code_is_run_to_score_only_with_the_confirmation(scripted, wrapped):
    scripted.script = answers_the_doubling_right
    results = evaluate(scripted, [TASK], metadata=META, include=(wrapped,), confirm_run_unsafe_code=True)
    per_doc = [s["pass_at_k_create_test"] for s in results["samples"][TASK]]
    assert per_doc == [1.0, 0.0]
    assert results["results"][TASK]["pass_at_k_create_test,none"] == 0.5
    first = records(results, TASK)[0]
    assert first.messages[0]["role"] == "system" and "Python function" in first.messages[0]["content"]
    assert first.q == "[PYTHON]\ndef f(x):\n    return x * 2\nassert f(3) == ??\n[/PYTHON]"


def test_without_the_confirmation_lm_eval_refuses_and_nothing_runs(scripted, wrapped):
    scripted.script = answers_the_doubling_right
    with pytest.raises(ValueError, match=f"{TASK} which is marked as unsafe"):
        evaluate(scripted, [TASK], metadata=META, include=(wrapped,))
    assert scripted.calls == []
