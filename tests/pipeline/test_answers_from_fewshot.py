"""``answers_from`` on few-shot runs (issue 43): the saved prompt is pass 1, character for character.

A plain lm-eval ``gsm8k`` run, 5-shot (the examples as one prompt, and as earlier chat turns with
``--fewshot_as_multiturn``), or with ``--system_instruction``, is a prompt the probe would not
have rendered itself. The model saw it, so it is the trace: every record's pass-1 prompt equals
the saved prompt, its answer starts with the saved response, and pass 2 is that prompt, the
whole turn, the end of turn and the user header. The probe's own rendering is a check whose
outcome each record keeps.
"""

from __future__ import annotations

import pytest
from pipeline_run import NO_JUDGE, evaluate, records
from saved_lm_eval_runs import (
    ASSISTANT,
    END,
    GSM8K,
    TOKENIZER,
    USER,
    plain_gsm8k_folder,
    save,
    saved_prompt,
)

from uta_tasks.schema.probe import PROMPT_DIFFERS, PROMPT_EQUAL
from uta_tasks.wrap.check import plan
from uta_tasks.wrap.yamls import write

TASK = "uta_wrap_gsm8k"
LIMIT = 3
GEN = {"max_gen_toks": 200}


def _saved_and_probed(lm, tmp_path, **plain_kwargs) -> tuple[dict[int, dict], dict]:
    write(tmp_path / "wrap", plan(["gsm8k"]), {})
    plain = evaluate(lm, ["gsm8k"], include=(plain_gsm8k_folder(tmp_path / "plain"),), limit=LIMIT,
                     apply_chat_template=True, gen_kwargs=GEN, **plain_kwargs)
    folder = save(plain, tmp_path / "out")
    saved = {s["doc_id"]: s for s in plain["samples"]["gsm8k"] if s["filter"] == "flexible-extract"}
    lm.calls.clear()
    probed = evaluate(lm, [TASK, f"{TASK}_trunc"], include=(tmp_path / "wrap",), limit=LIMIT, gen_kwargs=GEN,
                      metadata={**NO_JUDGE, "gsm8k_data_files": str(GSM8K), "answers_from": str(folder)})
    return saved, probed


@pytest.mark.parametrize("shots", [
    pytest.param({"num_fewshot": 5, "fewshot_as_multiturn": False}, id="5-shot-one-prompt"),
    pytest.param({"num_fewshot": 5, "fewshot_as_multiturn": True}, id="5-shot-multiturn"),
    pytest.param({"num_fewshot": 0, "system_instruction": "You are terse."}, id="system-instruction"),
])
def test_a_few_shot_run_is_probed_on_its_own_prompts(greedy, tmp_path, shots):
    saved, probed = _saved_and_probed(greedy, tmp_path, **shots)
    sent = [prompt for batch in greedy.calls for prompt, _ in batch]
    assert not any(p.endswith(ASSISTANT) for p in sent)  # no answer generated: continuations and user turns only
    for task in (TASK, f"{TASK}_trunc"):
        for record, sample in zip(records(probed, task), probed["samples"][task], strict=True):
            theirs = saved[sample["doc_id"]]
            assert record.pass1_prompt == saved_prompt(theirs)
            assert record.a.startswith(theirs["resps"][0][0]) and record.a.endswith("The answer is 12.")
            if task == TASK:
                assert record.pass2_prompt == f"{record.pass1_prompt}{record.a}{END}\n{USER}"
            check = record.answer_source["prompt_check"]
            assert check["rendered"] == PROMPT_DIFFERS and check["first_difference"] > 0
    first = records(probed, TASK)[0]
    assert probed["n-shot"][TASK] == shots["num_fewshot"]  # what pass 1 came from (issue 52)
    if shots.get("num_fewshot"):
        assert first.pass1_prompt.count("Question:") == 6  # five examples, then the document
        assert "few-shot" in first.answer_source["prompt_check"]["likely_cause"]
        # five examples as earlier turns, or all in the one user turn
        assert first.pass1_prompt.count(ASSISTANT) == (6 if shots.get("fewshot_as_multiturn") else 1)
    else:
        assert "You are terse." in first.pass1_prompt


def test_a_zero_shot_run_records_that_the_probe_renders_the_same_prompt(greedy, tmp_path):
    saved, probed = _saved_and_probed(greedy, tmp_path, num_fewshot=0)
    for record in records(probed, TASK):
        assert record.answer_source["prompt_check"] == {"rendered": PROMPT_EQUAL, "first_difference": None,
                                                         "likely_cause": None}


def test_user_turns_sampled_at_their_own_temperature_on_greedy_answers(greedy, tmp_path):
    """Leaderboard answers are greedy: user_temperature samples pass 2 alone at 0.7, recorded, and the
    run is not comparable with the paper's cells (one temperature for both passes)."""
    from uta_tasks.runs import load_run
    from uta_tasks.runs.comparability import not_comparable_to
    from uta_tasks.runs.provenance import task_provenance

    write(tmp_path / "wrap", plan(["gsm8k"]), {})
    plain = evaluate(greedy, ["gsm8k"], include=(plain_gsm8k_folder(tmp_path / "plain"),), limit=LIMIT,
                     apply_chat_template=True, num_fewshot=0, gen_kwargs=GEN)
    folder = save(plain, tmp_path / "out")
    meta = {**NO_JUDGE, "gsm8k_data_files": str(GSM8K), "answers_from": str(folder)}
    with pytest.raises(Exception, match="user_temperature"):  # the refusal names the setting
        evaluate(greedy, [TASK], include=(tmp_path / "wrap",), limit=LIMIT, metadata=meta,
                 gen_kwargs={**GEN, "temperature": 0.7, "do_sample": True})
    greedy.calls.clear()
    probed = evaluate(greedy, [TASK], include=(tmp_path / "wrap",), limit=LIMIT, gen_kwargs=GEN,
                      metadata={**meta, "user_temperature": 0.7})
    sent = {prompt.endswith(USER): kwargs for batch in greedy.calls for prompt, kwargs in batch}
    assert (sent[True]["temperature"], sent[True]["do_sample"]) == (0.7, True)  # the user turns
    assert "temperature" not in sent[False] or sent[False]["temperature"] == 0  # the completions stay greedy
    for record in records(probed, TASK):
        assert record.generation["user"]["temperature"] == 0.7
    task = load_run(save(probed, tmp_path / "probed")).tasks[TASK]
    assert task_provenance(task)["user_temperature"] == 0.7
    reasons = not_comparable_to(task_provenance(task), {}, "none")
    assert "user_temperature 0.7, the paper's the answer's" in reasons



def test_uta_eval_reads_the_saved_run_once_and_lm_eval_evaluates_the_tasks_it_checked(greedy, tmp_path, monkeypatch):
    """uta-eval's check at the top of simple_evaluate builds the tasks (each reads its saved run and
    refuses it there), puts every request through the probe's pass-1 checks with the tokenizer, and
    lm-eval then evaluates those same task objects: the saved run is read once per task."""
    import lm_eval

    import uta_tasks
    from uta_tasks import cli, lm_eval_compat
    from uta_tasks.probe import saved_precheck
    from uta_tasks.saved_answers import load as saved_answers

    write(tmp_path / "wrap", plan(["gsm8k"]), {})
    plain = evaluate(greedy, ["gsm8k"], include=(plain_gsm8k_folder(tmp_path / "plain"),), limit=LIMIT,
                     apply_chat_template=True, gen_kwargs=GEN, num_fewshot=5)
    folder = save(plain, tmp_path / "out")
    reads: list[str] = []
    load, check = saved_answers.load, saved_precheck.check
    monkeypatch.setattr(saved_answers, "load", lambda path, names, task, *a: reads.append(task) or load(
        path, names, task, *a))
    checked: list[int] = []
    monkeypatch.setattr(saved_precheck, "check", lambda arguments, *a: checked.append(len(arguments)) or check(
        arguments, *a))
    monkeypatch.setattr(cli, "refuse", lambda message: pytest.fail(message))
    monkeypatch.setitem(vars(lm_eval), "simple_evaluate", lm_eval.simple_evaluate)  # the check wraps it
    lm_eval_compat.check_before_model(cli.check_saved_requests)
    meta = {**NO_JUDGE, "gsm8k_data_files": str(GSM8K), "answers_from": str(folder)}
    manager = lm_eval_compat.task_manager_class()(include_path=[uta_tasks.include_path(), str(tmp_path / "wrap")],
                                                  metadata=meta)
    probed = lm_eval.simple_evaluate(model=greedy, model_args=f"pretrained=scripted,tokenizer={TOKENIZER}",
                                     tasks=[TASK], task_manager=manager, limit=LIMIT, gen_kwargs=GEN, num_fewshot=5,
                                     log_samples=True, bootstrap_iters=100, metadata=meta)
    assert checked == [LIMIT]  # every request checked before the model is used
    assert reads == [TASK]  # and the saved run read once: lm-eval evaluated the tasks the check built
    saved = {s["doc_id"]: s for s in plain["samples"]["gsm8k"] if s["filter"] == "flexible-extract"}
    for record, sample in zip(records(probed, TASK), probed["samples"][TASK], strict=True):
        assert record.pass1_prompt == saved_prompt(saved[sample["doc_id"]])
