"""``answers_from`` on few-shot runs whose answers hit a small budget, in every form a published run
takes (issue 52): the examples in one prompt or as chat turns, the samples renamed ``.json`` or
gzipped to ``.jsonl.gz``. The probe runs with no extra flags (the task's own settings).

A task of our own (3-shot, ``max_gen_toks: 64``) answered by the scripted greedy model, whose answers
run to about 200 tokens on some documents and 40 on others. Every document is probed, every pass-1
prompt is the saved prompt, every budget-cut answer is continued to the whole turn a full run writes,
accuracy equals the saved run's wherever the probe scored the text lm-eval scored, and the plan said
beforehand what the run did.
"""

from __future__ import annotations

import gzip
import shutil
from collections import Counter

import pytest
from pipeline_run import NO_JUDGE, evaluate, records
from saved_lm_eval_runs import TOKENIZER, GreedyLM, fewshot_task_folder, save, saved_prompt, short_or_long

from uta_tasks.apps.plan.built import Flags
from uta_tasks.apps.plan.counts import make_plan
from uta_tasks.probe import hook
from uta_tasks.wrap.check import plan
from uta_tasks.wrap.yamls import write

SOURCE, LIMIT, BUDGET, MAX_LENGTH = "arith_fewshot", 4, 64, 4096
TASKS = [f"uta_wrap_{SOURCE}", f"uta_wrap_{SOURCE}_trunc", f"uta_wrap_{SOURCE}_question"]


def _as_published(folder, suffix: str) -> None:
    (samples,) = folder.glob(f"samples_{SOURCE}_*.jsonl")
    if suffix == ".json":
        samples.rename(samples.with_suffix(".json"))
        return
    with samples.open("rb") as raw, gzip.open(samples.with_suffix(".jsonl.gz"), "wb") as packed:
        shutil.copyfileobj(raw, packed)
    samples.unlink()


@pytest.mark.parametrize("suffix", [".json", ".jsonl.gz"])
@pytest.mark.parametrize("multiturn", [False, True], ids=["one-prompt", "chat-turns"])
def test_a_few_shot_run_cut_at_its_budget_is_probed_whole_with_no_extra_flags(tokenizer, tmp_path, multiturn, suffix):
    lm = GreedyLM(tokenizer, short_or_long, max_length=MAX_LENGTH)
    own = fewshot_task_folder(tmp_path / "own", SOURCE, BUDGET)
    plain = evaluate(lm, [SOURCE], include=(own,), limit=LIMIT, apply_chat_template=True,
                     fewshot_as_multiturn=multiturn, gen_kwargs=None)
    _as_published(save(plain, tmp_path / "out", model_args=f"pretrained={TOKENIZER}"), suffix)
    theirs = {s["doc_id"]: s for s in plain["samples"][SOURCE]}
    cut = {d for d, s in theirs.items() if len(tokenizer(s["resps"][0][0], add_special_tokens=False)["input_ids"])
           >= BUDGET}
    assert 0 < len(cut) < LIMIT

    meta = {**NO_JUDGE, "answers_from": str(tmp_path / "out")}
    model_args = {"pretrained": str(TOKENIZER), "max_length": MAX_LENGTH}
    planned = make_plan([f"uta:{SOURCE}"], metadata=meta, limit=LIMIT, flags=Flags(model_args, str(own))).saved
    write(tmp_path / "wrap", plan([SOURCE], (str(own),)), {})
    lm.calls.clear()
    probed = evaluate(lm, TASKS, metadata={**meta, **model_args}, include=(own, tmp_path / "wrap"), limit=LIMIT,
                      gen_kwargs=None)
    assert not any(p.endswith("<|im_start|>assistant\n") for batch in lm.calls for p, _ in batch)  # nothing regenerated

    every = [r for task in TASKS for r in records(probed, task)]
    assert planned is not None and len(every) == planned.answers == 3 * LIMIT
    kinds = Counter(r.answer_source["completion"] for r in every)
    assert (planned.as_saved, planned.after_stop, planned.after_budget) == (
        kinds["as_saved"], kinds["after_stop"], kinds["after_budget"])
    assert planned.after_budget == 3 * len(cut)
    assert planned.completions == hook.LAST_RUN["completion"].generated == LIMIT  # the tasks share each answer
    assert planned.largest == max(r.generation["completion"]["max_gen_toks"] for r in every)

    for sample, record in zip(probed["samples"][TASKS[0]], records(probed, TASKS[0]), strict=True):
        saved = theirs[sample["doc_id"]]
        assert record.overlong is None and record.pass1_prompt == saved_prompt(saved)
        assert record.pass1_prompt.count("<|im_start|>assistant") == (4 if multiturn else 1)
        # the whole turn the model writes after the saved prompt, as a full run would have written it
        assert record.a == short_or_long(record.pass1_prompt, {}) and record.a.startswith(saved["resps"][0][0])
        expected = "after_budget" if sample["doc_id"] in cut else "after_stop"
        assert record.answer_source["completion"] == expected and not record.answer_incomplete
        if record.answer_source["tokens_added"] == 0:  # the text lm-eval scored: the same score
            assert sample["exact_match"] == saved["exact_match"]
    assert probed["n-shot"][TASKS[0]] == 3
