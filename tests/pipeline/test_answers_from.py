"""``answers_from``: the probe on the answers of a run already made (issue 35).

The real evaluator throughout. A plain lm-eval ``gsm8k`` run (its own YAML on the local
fixture, ``--apply_chat_template``, zero-shot) is saved as lm-eval's CLI saves it; the
probe then runs ``uta:gsm8k`` from those samples and must write what a full ``uta:gsm8k``
run writes. The scripted model is a reasoning model whose ``<think>`` trace holds gsm8k's
stop string ``Question:``, so lm-eval saved every answer cut inside its reasoning: the
probe completes each from its saved prefix.
"""

from __future__ import annotations

import json
import re
from functools import partial

import pytest
from pipeline_run import NO_JUDGE, evaluate, records
from saved_lm_eval_runs import (
    GSM8K,
    GreedyLM,
    ModelCreated,
    greedy_script,
    save,
    thinking_answer,
    uta_eval_until_the_model,
)

TASK = "uta_wrap_gsm8k"
LIMIT = 3
GEN = {"max_gen_toks": 200}


def _plain_run(lm, folders, **kwargs) -> dict:
    kwargs.setdefault("apply_chat_template", True)
    kwargs.setdefault("num_fewshot", 0)
    kwargs.setdefault("gen_kwargs", GEN)
    kwargs.setdefault("limit", LIMIT)
    return evaluate(lm, ["gsm8k"], include=(folders["plain"],), **kwargs)


def _probe(lm, folders, tasks=(TASK,), **meta) -> dict:
    metadata = {**NO_JUDGE, "gsm8k_data_files": str(GSM8K), **meta}
    if "judge_base_url" in meta:
        metadata.pop("judge")
    return evaluate(lm, list(tasks), metadata=metadata, include=(folders["wrap"],), limit=LIMIT, gen_kwargs=GEN)


def test_probe_from_plain_lm_eval_samples_equals_a_full_run(greedy, folders, judge_server, caplog):
    judge = {"judge_base_url": judge_server.base_url, "judge_model": "fault-judge", "judge_cache": "none"}
    saved = save(_plain_run(greedy, folders), folders["out"])
    cut = [s["resps"][0][0] for s in _read(saved) if s["filter"] == "flexible-extract"]
    assert cut and all(text.endswith("\n\n") and "</think>" not in text for text in cut)  # lm-eval cut inside the trace

    full = _probe(greedy, folders, **judge)
    greedy.calls.clear()
    caplog.clear()
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
    assert from_saved["results"][TASK] == full["results"][TASK]
    # accuracy: each document's score against the saved run's own; a difference is reported per document.
    # lm-eval scored the trace cut at "Question:" inside the reasoning (no answer in it); the probe scores the
    # final answer (reasoning removed, cut at the task's stop strings), right for the first document only.
    plain = {s["doc_id"]: s for s in _read(saved) if s["filter"] == "flexible-extract"}
    differ = {s["doc_id"] for s in from_saved["samples"][TASK]
              if s["exact_match_flexible-extract"] != plain[s["doc_id"]]["exact_match"]}
    warned = {int(m.split("document ")[1].split(":")[0]) for m in caplog.messages if "in the saved run" in m}
    assert warned == differ == {0}


def _read(folder) -> list[dict]:
    import json

    (path,) = folder.glob("samples_gsm8k_*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_probe_from_an_earlier_uta_run_generates_no_answer(greedy, folders):
    """Re-probing a uta run (other pass-2 settings): the records' whole turns are pass 1 as they are."""
    tasks = (TASK, f"{TASK}_trunc")
    first = _probe(greedy, folders, tasks=tasks)
    save(first, folders["out"])
    greedy.calls.clear()
    again = _probe(greedy, folders, tasks=tasks, answers_from=str(folders["out"]), user_max_gen_toks=8)
    prompts = [prompt for batch in greedy.calls for prompt, _ in batch]
    assert prompts and not any(p.endswith("<|im_start|>assistant\n") for p in prompts)  # user turns only
    assert all(kwargs["max_gen_toks"] == 8 for batch in greedy.calls for _, kwargs in batch)
    for task in tasks:
        for a, b in zip(records(again, task), records(first, task), strict=True):
            assert (a.a, a.a_prime, a.pass1_prompt) == (b.a, b.a_prime, b.pass1_prompt)
            assert a.answer_source["tokens_added"] == 0 and a.answer_source["task"] == task
    config = again["configs"][TASK]["metadata"]
    assert config["answers_from"] == str(folders["out"])
    assert config["uta_answers_source"]["config_digest"] == records(again, TASK)[0].answer_source["config_digest"]
    _provenance_names_the_saved_run(again, folders)


def _provenance_names_the_saved_run(results: dict, folders) -> None:
    from uta_tasks.runs import load_run
    from uta_tasks.runs.provenance import run_provenance

    folder = save(results, folders["out"].parent / "reprobed")
    tasks = run_provenance(load_run(folder))["tasks"]
    source = tasks[TASK]["answers_from"]
    assert source["path"] == str(folders["out"]) and source["model"] == "scripted"
    assert source["lm_eval_version"] and source["samples"].startswith(f"samples_{TASK}_")


# ---- refusals: each names the task, the document or file, and the fix ----------------


def _refused(lm, folders, match: str, **kwargs) -> str:
    with pytest.raises(Exception, match=match) as err:
        _probe(lm, folders, answers_from=str(folders["out"]), **kwargs)
    assert TASK in str(err.value)
    return str(err.value)


def test_a_run_without_samples_is_refused(greedy, folders):
    results = _plain_run(greedy, folders)
    results["samples"] = {}
    save(results, folders["out"])
    _refused(greedy, folders, "--log_samples")


def test_a_document_the_run_lacks_is_refused(greedy, folders):
    save(_plain_run(greedy, folders, limit=2), folders["out"])
    _refused(greedy, folders, "document 2 is not in the saved run")


def test_another_model_is_refused_before_any_request(greedy, folders):
    save(_plain_run(greedy, folders), folders["out"])
    greedy.calls.clear()
    message = _refused(greedy, folders, "answered with scripted, but --model_args names other-model",
                       pretrained="other-model")
    assert "pretrained=scripted" in message and greedy.calls == []


def test_another_temperature_is_refused(greedy, folders):
    save(_plain_run(greedy, folders), folders["out"])
    greedy.calls.clear()
    with pytest.raises(Exception, match=r"document 0: the saved run sampled at temperature 0.0, the probe at 0.7"):
        evaluate(greedy, [TASK], metadata={**NO_JUDGE, "gsm8k_data_files": str(GSM8K),
                                           "answers_from": str(folders["out"])},
                 include=(folders["wrap"],), limit=LIMIT, gen_kwargs={**GEN, "temperature": 0.7, "do_sample": True})
    assert greedy.calls == []


def test_an_answer_cut_by_its_saved_budget_is_continued_as_a_full_run_writes_it(greedy, folders):
    """Issue 52: a saved answer that ran into its max_gen_toks is continued from its text with the
    rest of the probe's pass-1 budget, not refused: the whole turn equals a full run's."""
    saved = save(_plain_run(greedy, folders, gen_kwargs={"max_gen_toks": 4}), folders["out"])
    cut = {s["doc_id"]: s["resps"][0][0] for s in _read(saved) if s["filter"] == "flexible-extract"}
    full = records(_probe(greedy, folders), TASK)
    greedy.calls.clear()
    mine = records(_probe(greedy, folders, answers_from=str(folders["out"])), TASK)
    completions = [kwargs for batch in greedy.calls for prompt, kwargs in batch if not prompt.endswith("user\n")]
    assert len(completions) == LIMIT
    for a, b, doc_id in zip(mine, full, sorted(cut), strict=True):
        assert a.a == b.a and a.a.startswith(cut[doc_id]) and not a.answer_incomplete
        source = a.answer_source
        assert source["completion"] == "after_budget" and source["saved_tokens"] == 4 and source["tokens_added"] > 0
        assert a.generation["saved"]["max_gen_toks"] == 4
        assert a.generation["completion"]["max_gen_toks"] == a.budget["assistant"] - 4


def test_with_no_larger_budget_a_budget_cut_answer_is_used_as_saved_and_flagged(greedy, folders):
    """--gen_kwargs max_gen_toks no larger than the saved run's: a full run would have stopped the answer
    there too, so it is used as saved, flagged incomplete, and nothing is generated for it."""
    save(_plain_run(greedy, folders, gen_kwargs={"max_gen_toks": 4}), folders["out"])
    greedy.calls.clear()
    probed = evaluate(greedy, [TASK], metadata={**NO_JUDGE, "gsm8k_data_files": str(GSM8K),
                                                "answers_from": str(folders["out"])},
                      include=(folders["wrap"],), limit=LIMIT, gen_kwargs={"max_gen_toks": 4})
    assert all(prompt.endswith("user\n") for batch in greedy.calls for prompt, _ in batch)  # user turns only
    for record in records(probed, TASK):
        assert record.answer_incomplete and record.overlong is None
        assert record.answer_source["completion"] == "as_saved" and record.answer_source["tokens_added"] == 0
        assert record.generation["completion"] is None


def test_overlong_drop_still_drops_a_budget_cut_answer(greedy, folders):
    save(_plain_run(greedy, folders, gen_kwargs={"max_gen_toks": 4}), folders["out"])
    dropped = _probe(greedy, folders, answers_from=str(folders["out"]), overlong="drop")
    assert [r.overlong for r in records(dropped, TASK)] == ["pass1"] * LIMIT


def test_a_prompt_without_the_chat_template_is_refused(greedy, folders):
    save(_plain_run(greedy, folders, apply_chat_template=False), folders["out"])
    greedy.calls.clear()
    message = _refused(greedy, folders, "document 0: the saved prompt")
    assert "--apply_chat_template" in message and "'<|im_start|>assistant'" in message and "Answer:" in message
    assert greedy.calls == []


def test_a_prompt_the_probe_would_not_write_is_refused_under_prompt_mismatch_refuse(greedy, folders):
    save(_plain_run(greedy, folders, num_fewshot=1), folders["out"])
    message = _refused(greedy, folders, "document 0: the saved prompt", prompt_mismatch="refuse")
    assert "uta_num_fewshot" in message and "prompt_mismatch=record" in message


STRIPPED = "pretrained=scripted,think_end_token=</think>"


def _stripped_run(tokenizer, folders) -> list[str]:
    """A plain gsm8k run of the scripted reasoning model made with ``think_end_token``: lm-eval
    logs each ``<think>`` turn with its reasoning cut out. Returns the logged responses. (The
    trace holds no stop string: lm-eval 0.4.13 strips the reasoning before it applies ``until``,
    0.5 after.)"""
    stripping = GreedyLM(tokenizer, partial(greedy_script, stop="Consider:"))
    stripping.think_end_token = "</think>"
    saved = save(_plain_run(stripping, folders), folders["out"], model_args=STRIPPED)
    return [s["resps"][0][0] for s in _read(saved) if s["filter"] == "flexible-extract"]


def test_reasoning_stripped_before_logging_runs_as_the_rendered_history_ablation(tokenizer, greedy, folders, caplog):
    from uta_tasks.paper.cells import load_reference
    from uta_tasks.paper.reference import settings_differ
    from uta_tasks.runs import load_run

    logged = _stripped_run(tokenizer, folders)
    assert logged == ["The answer is 12."] * LIMIT  # the whole turn had a <think> trace; none of it was logged
    greedy.calls.clear()
    result = _probe(greedy, folders, answers_from=str(folders["out"]))

    prompts = [prompt for batch in greedy.calls for prompt, _ in batch]
    assert len(prompts) == LIMIT and all(p.endswith("<|im_start|>user\n") for p in prompts)  # user turns only
    for record in records(result, TASK):
        assert record.a == "The answer is 12." and record.pass2_context == "template" and record.join is None
        assert record.answer_source["reasoning_stripped"] is True and record.answer_source["tokens_added"] == 0
        assert "<think>" not in record.pass2_prompt and record.pass2_prompt.endswith("The answer is 12.<|im_end|>\n"
                                                                                      "<|im_start|>user\n")
    meta = result["configs"][TASK]["metadata"]
    assert meta["pass2_context"] == "template" and meta["uta_answers_source"]["reasoning_stripped"] is True
    assert any("think_end_token" in m and "rendered-history ablation (pass2_context=template)" in m
               for m in caplog.messages)
    # the paper check: not comparable with any published follow-up cell, the setting named
    run = load_run(save(result, folders["out"].parent / "ablation"))
    assert "pass2_context template, the paper's trace" in settings_differ(run.tasks[TASK], load_reference())


def test_the_papers_trace_asked_of_stripped_reasoning_is_refused(tokenizer, greedy, folders):
    _stripped_run(tokenizer, folders)
    greedy.calls.clear()
    message = _refused(greedy, folders, "think_end_token=</think>", pass2_context="trace")
    assert "pass2_context=trace" in message and "Leave pass2_context out of --metadata" in message
    assert greedy.calls == []


def test_plan_counts_no_answer_and_names_the_saved_files(greedy, folders, capsys):
    from uta_tasks.apps.plan import main as plan_main
    from uta_tasks.apps.plan.counts import make_plan
    from uta_tasks.probe import hook

    meta = {**NO_JUDGE, "gsm8k_data_files": str(GSM8K)}
    saved = save(evaluate(greedy, ["uta_gsm8k"], metadata=meta, limit=LIMIT, gen_kwargs=GEN), folders["out"])
    meta["answers_from"] = str(folders["out"])
    plan = make_plan(["uta_gsm8k"], metadata=meta, gen_kwargs=GEN, limit=LIMIT)
    evaluate(greedy, ["uta_gsm8k"], metadata=meta, limit=LIMIT, gen_kwargs=GEN)
    assert plan.pass1 == 0 and "assistant" not in hook.LAST_RUN  # pass 1 sent nothing to the model
    assert plan.pass2 == hook.LAST_RUN["user"].generated == LIMIT
    assert plan_main(["--tasks", "uta_gsm8k", "--limit", str(LIMIT), "--metadata", json.dumps(meta), "--plan"]) == 0
    out = capsys.readouterr().out
    (samples,) = saved.glob("samples_uta_gsm8k_*.jsonl")
    assert f"Answers: 0 generated; {LIMIT} read from {folders['out']}" in out and str(samples) in out
    assert "Completions: not counted: the model's tokenizer" in out  # no --model_args: measured after it loads


@pytest.mark.parametrize(("model", "gen_kwargs", "saved_at", "match"), [
    ("other-model", "max_gen_toks=200", "", "answered with scripted, but --model_args names other-model"),
    ("scripted", "max_gen_toks=200,temperature=0.7,do_sample=True", "", "sampled at temperature 0.0, the probe at 0.7"),
    ("scripted", "max_gen_toks=200", "missing", "does not exist"),
    ("scripted", "max_gen_toks=200", "trace", "pass2_context=trace .*Leave pass2_context out"),
])
def test_uta_eval_refuses_before_lm_eval_loads_the_model(greedy, folders, monkeypatch, capsys, model, gen_kwargs,
                                                         saved_at, match):
    """The refusals that need no model come from the tasks lm-eval builds at the top of
    simple_evaluate, before it creates the model: get_model is never called."""
    model_args = STRIPPED if saved_at == "trace" else "pretrained=scripted"
    save(_plain_run(greedy, folders), folders["out"], model_args=model_args)
    meta: dict = {"answers_from": str(folders["out"] / saved_at.replace("trace", ""))}
    if saved_at == "trace":
        meta["pass2_context"] = "trace"
    capsys.readouterr()
    with pytest.raises(SystemExit) as done:
        uta_eval_until_the_model(folders, monkeypatch, TASK, LIMIT, model=model, gen_kwargs=gen_kwargs, **meta)
    err = capsys.readouterr().err.splitlines()[-1]
    assert done.value.code == 2 and err.startswith("uta-eval: ") and re.search(match, err)


@pytest.mark.parametrize(("saved_run", "match", "fix"), [
    ({"limit": 2}, "document 2 is not in the saved run", "run the probe with the saved run's --limit"),
    ({"task": "arc_easy"}, r"logged samples of \['arc_easy'\], not of", "point answers_from at a run of that task"),
    ({"apply_chat_template": False}, "document 0: the saved prompt", "Save the run again with --apply_chat_template"),
])
def test_uta_eval_refuses_a_saved_answer_before_the_model_is_created(greedy, folders, monkeypatch, capsys, saved_run,
                                                                    match, fix):
    """lm-eval's own command line runs up to simple_evaluate, which would create the model first:
    the check at its top builds the tasks and renders the prompts with the tokenizer alone."""
    saved_run = dict(saved_run)
    task = saved_run.pop("task", None)
    folder = save(_plain_run(greedy, folders, **saved_run), folders["out"])
    if task:  # a run of another task only
        (samples,) = folder.glob("samples_gsm8k_*.jsonl")
        samples.rename(samples.with_name(samples.name.replace("gsm8k", task)))
    capsys.readouterr()
    with pytest.raises(SystemExit) as done:
        uta_eval_until_the_model(folders, monkeypatch, TASK, LIMIT)
    message = capsys.readouterr().err.splitlines()[-1]  # lm-eval's own log lines come first
    assert done.value.code == 2 and re.search(match, message)
    assert message.startswith(f"uta-eval: {TASK}: ") and fix in message


@pytest.mark.parametrize("saved_budget", [GEN["max_gen_toks"], 4], ids=["whole-answers", "budget-cut-answers"])
def test_uta_eval_lets_a_matching_saved_run_through_to_the_model(greedy, folders, monkeypatch, saved_budget):
    """Answers that ran into their saved budget are continued after the model loads, not refused before."""
    save(_plain_run(greedy, folders, gen_kwargs={"max_gen_toks": saved_budget}), folders["out"])
    with pytest.raises(ModelCreated):
        uta_eval_until_the_model(folders, monkeypatch, TASK, LIMIT)
