"""``answers_from``: the probe on the answers of a run already made (issue 35).

The real evaluator throughout. A plain lm-eval ``gsm8k`` run (its own YAML on the local
fixture, ``--apply_chat_template``, zero-shot) is saved as lm-eval's CLI saves it; the
probe then runs ``uta:gsm8k`` from those samples and must write what a full ``uta:gsm8k``
run writes. The scripted model is a reasoning model whose ``<think>`` trace holds gsm8k's
stop string ``Question:``, so lm-eval saved every answer cut inside its reasoning: the
probe completes each from its saved prefix.
"""

from __future__ import annotations

import pytest
from pipeline_run import NO_JUDGE, evaluate, records
from saved_runs import GSM8K, GreedyLM, greedy_script, plain_gsm8k_folder, save, thinking_answer

from uta_tasks.wrap.check import plan
from uta_tasks.wrap.yamls import write

TASK = "uta_wrap_gsm8k"
LIMIT = 3


@pytest.fixture()
def greedy(tokenizer):
    return GreedyLM(tokenizer, greedy_script)


@pytest.fixture()
def folders(tmp_path):
    write(tmp_path / "wrap", plan(["gsm8k"]), {})
    return {"plain": plain_gsm8k_folder(tmp_path / "plain"), "wrap": tmp_path / "wrap", "out": tmp_path / "out"}


def _plain_run(lm, folders, **kwargs) -> dict:
    kwargs.setdefault("apply_chat_template", True)
    kwargs.setdefault("num_fewshot", 0)
    return evaluate(lm, ["gsm8k"], include=(folders["plain"],), limit=LIMIT, **kwargs)


def _probe(lm, folders, tasks=(TASK,), **meta) -> dict:
    metadata = {**NO_JUDGE, "gsm8k_data_files": str(GSM8K), **meta}
    if "judge_base_url" in meta:
        metadata.pop("judge")
    return evaluate(lm, list(tasks), metadata=metadata, include=(folders["wrap"],), limit=LIMIT)


def test_probe_from_plain_lm_eval_samples_equals_a_full_run(greedy, folders, judge_server):
    judge = {"judge_base_url": judge_server.base_url, "judge_model": "fault-judge", "judge_cache": "none"}
    saved = save(_plain_run(greedy, folders), folders["out"])
    cut = [s["resps"][0][0] for s in _read(saved) if s["filter"] == "flexible-extract"]
    assert cut and all(text.endswith("\n\n") and "</think>" not in text for text in cut)  # lm-eval cut inside the trace

    full = _probe(greedy, folders, **judge)
    greedy.calls.clear()
    from_saved = _probe(greedy, folders, answers_from=str(folders["out"]), **judge)

    prompts = [prompt for batch in greedy.calls for prompt, _ in batch]
    assert len(prompts) == 2 * LIMIT  # one continuation and one user turn per document, no answer generated
    assert sum(p.endswith("<|im_start|>assistant\n") for p in prompts) == 0
    mine, theirs = records(from_saved, TASK), records(full, TASK)
    for a, b, text in zip(mine, theirs, cut, strict=True):
        assert a.a == b.a == thinking_answer(a.q) and a.a.startswith(text)
        assert (a.pass1_prompt, a.answer, a.u, a.pass2_prompt) == (b.pass1_prompt, b.answer, b.u, b.pass2_prompt)
        assert a.verdict is not None and a.verdict.to_dict() == b.verdict.to_dict()
        assert a.answer_source["tokens_added"] > 0 and a.answer_source["samples"].startswith("samples_gsm8k_")
        assert a.answer_source["model"] == "scripted" and a.answer_source["config_digest"]
        assert b.answer_source is None
    plain = {s["doc_id"]: s for s in _read(saved) if s["filter"] == "flexible-extract"}
    for sample in from_saved["samples"][TASK]:
        assert sample["exact_match_flexible-extract"] == plain[sample["doc_id"]]["exact_match"]
    assert from_saved["results"][TASK] == full["results"][TASK]


def _read(folder) -> list[dict]:
    import json

    (path,) = folder.glob("samples_gsm8k_*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]
