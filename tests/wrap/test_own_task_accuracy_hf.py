"""A full ``uta:`` run scores each document as lm-eval's own task does: real SmolLM2, greedy,
a task of the user's own (written by the test) with ``until: ["\\n\\n", "Question:"]``.

The probe generates the whole turn (its own stop strings), so a stop string of the task fires
inside the trace; the answer is scored as lm-eval would have cut it. Per document, the
wrapped task's accuracy equals plain lm-eval's on the same documents, same prompt.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from own_tasks import write_tasks

from uta_tasks.wrap.check import plan
from uta_tasks.wrap.yamls import write

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pipeline"))

from pipeline_run import NO_JUDGE, evaluate, records  # noqa: E402

pytestmark = pytest.mark.slow
DOCS = 10
BUDGET = {"max_gen_toks": 96}  # the task's own max_gen_toks, for both runs


def test_wrapped_accuracy_equals_lm_evals_own_per_document(hf_lm, tmp_path):
    import lm_eval
    from lm_eval.api.model import CacheHook
    from lm_eval.tasks import TaskManager

    own = write_tasks(tmp_path / "my_tasks", split=DOCS)
    try:
        plain = lm_eval.simple_evaluate(model=hf_lm, tasks=["my_task"], task_manager=TaskManager(include_path=[str(own)]),
                                        apply_chat_template=True, log_samples=True, bootstrap_iters=0)
        write(tmp_path / "wrapped", plan(["my_task"], [str(own)]), {})
        wrapped = evaluate(hf_lm, ["uta_wrap_my_task"], include=(tmp_path / "wrapped",), metadata=dict(NO_JUDGE),
                           gen_kwargs=dict(BUDGET), bootstrap_iters=0)
    finally:
        hf_lm.set_cache_hook(CacheHook(None))

    theirs = {s["doc"]["question"]: s for s in plain["samples"]["my_task"]}
    ours = records(wrapped, "uta_wrap_my_task")
    assert len(theirs) == len(ours) == DOCS
    stopped_inside = 0
    for sample, record in zip(wrapped["samples"]["uta_wrap_my_task"], ours, strict=True):
        question = sample["doc"]["question"]
        other = theirs[question]
        assert other["arguments"][0][0] == hf_lm.apply_chat_template(record.messages)  # same prompt
        kept = other["resps"][0][0]  # what lm-eval kept of its own generation
        assert record.answer.startswith(kept)  # the same greedy tokens, then the rest of the turn
        assert sample["exact_match_last-number"] == other["exact_match"], question
        stopped_inside += record.answer != kept
    assert stopped_inside >= 1  # a stop string of the task fired inside the probe's whole turn
    assert (wrapped["results"]["uta_wrap_my_task"]["exact_match_last-number,none"]
            == plain["results"]["my_task"]["exact_match,last-number"])
