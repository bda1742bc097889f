"""``answers_from`` on a leaderboard-style run whose answers hit their budget (issue 52), with the real
SmolLM2, greedy, and no extra flags on the probe.

A task of our own (3-shot arithmetic word problems on the gsm8k fixture, ``max_gen_toks: 10``), saved by
lm-eval as chat turns and gzipped to ``.jsonl.gz`` as published runs are (the other forms, ``.json`` and
one prompt, with the scripted model: tests/pipeline/test_answers_from_budget_forms.py). The probe (``uta:<task>`` with ``--include_path``, the task's own settings) reads every
document: every pass-1 prompt is the saved prompt, and every answer the budget cut is continued from its
text with the rest of a full run's pass-1 budget. ``--plan`` said beforehand what the run then did. With
the saved run's budget given to the probe, the same answers are used as saved and flagged incomplete.
"""

from __future__ import annotations

import gzip
import shutil
import sys
from collections import Counter
from pathlib import Path

import pytest
from runs import NO_JUDGE, evaluate

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pipeline"))

from saved_lm_eval_runs import fewshot_task_folder, save, saved_prompt  # noqa: E402

from uta_tasks.apps.plan.built import Flags  # noqa: E402
from uta_tasks.apps.plan.counts import make_plan  # noqa: E402
from uta_tasks.probe import hook  # noqa: E402
from uta_tasks.schema.probe import ProbeRecord  # noqa: E402
from uta_tasks.wrap.check import plan  # noqa: E402
from uta_tasks.wrap.yamls import write  # noqa: E402

pytestmark = pytest.mark.slow
SOURCE, LIMIT, BUDGET = "arith_fewshot", 3, 10
TASKS = [f"uta_wrap_{SOURCE}", f"uta_wrap_{SOURCE}_trunc", f"uta_wrap_{SOURCE}_question"]


def _records(results: dict, task: str) -> dict[int, ProbeRecord]:
    return {s["doc_id"]: ProbeRecord.from_json(s["filtered_resps"][0][0]) for s in results["samples"][task]}


@pytest.mark.parametrize(("multiturn", "suffix"), [(True, ".jsonl.gz")], ids=["chat-turns-jsonl-gz"])
def test_a_few_shot_run_cut_at_its_budget_is_probed_whole_with_no_extra_flags(lm, smollm2_dir, smollm2_tokenizer,
                                                                            tmp_path, multiturn, suffix):
    own = fewshot_task_folder(tmp_path / "own", SOURCE, BUDGET)
    plain = evaluate(lm, [SOURCE], include=(own,), limit=LIMIT, apply_chat_template=True,
                     fewshot_as_multiturn=multiturn, gen_kwargs=None)
    folder = save(plain, tmp_path / "out", model_args=f"pretrained={smollm2_dir}")
    (samples,) = folder.glob(f"samples_{SOURCE}_*.jsonl")
    if suffix == ".json":
        samples.rename(samples.with_suffix(".json"))
    else:
        with samples.open("rb") as raw, gzip.open(samples.with_suffix(".jsonl.gz"), "wb") as packed:
            shutil.copyfileobj(raw, packed)
        samples.unlink()
    theirs = {s["doc_id"]: s for s in plain["samples"][SOURCE]}
    cut = {d for d, s in theirs.items()
           if len(smollm2_tokenizer(s["resps"][0][0], add_special_tokens=False)["input_ids"]) >= BUDGET}
    assert cut, "no saved answer ran into its budget: the test proves nothing"

    meta = {**NO_JUDGE, "answers_from": str(tmp_path / "out")}
    planned = make_plan([f"uta:{SOURCE}"], metadata=meta, limit=LIMIT,
                        flags=Flags({"pretrained": str(smollm2_dir)}, str(own))).saved
    write(tmp_path / "wrap", plan([SOURCE], (str(own),)), {})
    probed = evaluate(lm, TASKS, metadata={**meta, "pretrained": str(smollm2_dir)}, include=(own, tmp_path / "wrap"),
                      limit=LIMIT, gen_kwargs=None)
    every = [r for task in TASKS for r in _records(probed, task).values()]
    assert planned is not None and planned.checked and len(every) == 3 * LIMIT
    kinds = Counter(r.answer_source["completion"] for r in every)
    assert (planned.as_saved, planned.after_stop, planned.after_budget) == (
        kinds["as_saved"], kinds["after_stop"], kinds["after_budget"])
    assert planned.completions == hook.LAST_RUN["completion"].generated
    assert planned.largest == max(r.generation["completion"]["max_gen_toks"] for r in every if r.generation["completion"])

    for doc_id, record in _records(probed, TASKS[0]).items():
        saved = theirs[doc_id]
        assert record.overlong is None and record.pass1_prompt == saved_prompt(saved)
        assert record.pass1_prompt.count("<|im_start|>assistant") == (4 if multiturn else 1)
        assert record.a.startswith(saved["resps"][0][0])
        assert record.generation["saved"]["max_gen_toks"] == BUDGET
        source = record.answer_source
        if doc_id in cut:
            assert source["completion"] == "after_budget" and source["tokens_added"] > 0
        else:  # the task stops at "Question:": continued, adding nothing where the model had ended
            assert source["completion"] == "after_stop"
        if source["tokens_added"] == 0:  # the text lm-eval scored: the same score
            sample = next(s for s in probed["samples"][TASKS[0]] if s["doc_id"] == doc_id)
            assert sample["exact_match"] == saved["exact_match"]
    assert probed["n-shot"][TASKS[0]] == 3

    flagged = evaluate(lm, [TASKS[0]], metadata={**meta, "pretrained": str(smollm2_dir)},
                       include=(own, tmp_path / "wrap"), limit=LIMIT, gen_kwargs={"max_gen_toks": BUDGET})
    for doc_id, record in _records(flagged, TASKS[0]).items():
        source, sent = record.answer_source, record.generation["completion"]
        if doc_id in cut:  # a full run with this budget would have stopped there too
            assert record.answer_incomplete and record.a == theirs[doc_id]["resps"][0][0]
            assert source["completion"] == "as_saved" and sent is None
        else:  # cut at "Question:": continued with what the budget leaves, flagged where that ran out
            assert source["completion"] == "after_stop"
            assert record.answer_incomplete == (source["tokens_added"] >= sent["max_gen_toks"])
