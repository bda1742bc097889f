"""``uta-eval --plan`` for every task form (issue 52 item 2): ``uta:NAME``, a task of the user's
``--include_path``, each with and without ``answers_from``; the plan's counts equal what the run
then does (lm-eval's evaluator, the scripted greedy model, its records and backend counts).

The saved run is lm-eval's own gsm8k, 3-shot, whose answers ran into a budget of 64 tokens on some
documents: the plan must say which answers are used as saved, which are completed after the
budget, and the most tokens those completions can take.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from pipeline_run import NO_JUDGE, evaluate, records
from saved_lm_eval_runs import GSM8K, TOKENIZER, GreedyLM, save, short_or_long

from uta_tasks.apps.plan.built import Flags
from uta_tasks.apps.plan.counts import make_plan
from uta_tasks.probe import hook

ROOT = Path(__file__).resolve().parents[2]
TASK = "uta_wrap_gsm8k"
LIMIT = 4
MAX_LENGTH = 4096
MODEL_ARGS = {"pretrained": str(TOKENIZER), "max_length": MAX_LENGTH}


@pytest.fixture()
def model(tokenizer):
    return GreedyLM(tokenizer, short_or_long, max_length=MAX_LENGTH)


def _saved_run(model, folders) -> None:
    plain = evaluate(model, ["gsm8k"], include=(folders["plain"],), limit=LIMIT, apply_chat_template=True,
                     num_fewshot=3, gen_kwargs={"max_gen_toks": 64})
    save(plain, folders["out"], model_args=f"pretrained={TOKENIZER}")


def test_the_plan_of_a_saved_run_equals_what_the_run_does(model, folders):
    _saved_run(model, folders)
    meta = {**NO_JUDGE, "gsm8k_data_files": str(GSM8K), "answers_from": str(folders["out"])}
    plan = make_plan(["uta:gsm8k"], metadata=meta, limit=LIMIT, flags=Flags(MODEL_ARGS))
    saved = plan.saved
    assert saved is not None and saved.checked and saved.max_length == MAX_LENGTH
    assert saved.files and all("samples_gsm8k_" in f for f in saved.files)

    model.calls.clear()
    run = evaluate(model, [TASK, f"{TASK}_trunc", f"{TASK}_question"], include=(folders["wrap"],), limit=LIMIT,
                   metadata={**meta, **MODEL_ARGS}, gen_kwargs=None)
    mine = [r for task in (TASK, f"{TASK}_trunc", f"{TASK}_question") for r in records(run, task)]
    kinds = Counter(r.answer_source["completion"] for r in mine)
    assert (saved.as_saved, saved.after_stop, saved.after_budget) == (
        kinds["as_saved"], kinds["after_stop"], kinds["after_budget"])
    assert saved.after_budget > 0 and saved.after_stop > 0  # the budget cut some answers, not all
    assert saved.answers == len(mine) and saved.incomplete == sum(r.answer_incomplete for r in mine) == 0
    assert saved.completions == hook.LAST_RUN["completion"].generated
    sent = [r.generation["completion"]["max_gen_toks"] for r in mine if r.generation["completion"]]
    assert saved.largest == max(sent)
    assert saved.total_tokens == sum({r.answer_source["doc_id"]: n for r, n in zip(
        [r for r in mine if r.generation["completion"]], sent, strict=True)}.values())
    assert plan.pass1 == 0 and "assistant" not in hook.LAST_RUN
    assert plan.pass2 == hook.LAST_RUN["user"].generated
    (bench,) = plan.benchmarks
    assert bench.docs.n == LIMIT and len(bench.tasks) == 3


def test_a_probe_budget_no_larger_than_the_saved_one_plans_no_completion_after_the_budget(model, folders):
    """--gen_kwargs max_gen_toks equal to the saved run's: budget-cut answers are used as saved and flagged;
    only the answers under it are still continued after gsm8k's stop string."""
    _saved_run(model, folders)
    meta = {**NO_JUDGE, "gsm8k_data_files": str(GSM8K), "answers_from": str(folders["out"])}
    plan = make_plan(["uta:gsm8k"], metadata=meta, limit=LIMIT, gen_kwargs={"max_gen_toks": 64},
                     flags=Flags(MODEL_ARGS))
    saved = plan.saved
    assert saved is not None and saved.after_budget == 0 and saved.after_stop > 0
    model.calls.clear()
    run = evaluate(model, [TASK, f"{TASK}_trunc", f"{TASK}_question"], include=(folders["wrap"],), limit=LIMIT,
                   metadata={**meta, **MODEL_ARGS}, gen_kwargs={"max_gen_toks": 64})
    mine = [r for task in (TASK, f"{TASK}_trunc", f"{TASK}_question") for r in records(run, task)]
    assert saved.incomplete == sum(r.answer_incomplete for r in mine) > 0
    assert saved.completions == hook.LAST_RUN["completion"].generated
    assert saved.largest == max(r.generation["completion"]["max_gen_toks"] for r in mine if r.generation["completion"])


def test_the_plan_of_a_wrapped_task_without_saved_answers_equals_the_run(model, folders):
    meta = {**NO_JUDGE, "gsm8k_data_files": str(GSM8K)}
    plan = make_plan(["uta:gsm8k"], metadata=meta, limit=LIMIT, gen_kwargs={"max_gen_toks": 64})
    evaluate(model, [TASK, f"{TASK}_trunc", f"{TASK}_question"], include=(folders["wrap"],), limit=LIMIT,
             metadata=meta, gen_kwargs={"max_gen_toks": 64})
    assert plan.saved is None and plan.max_gen_toks == 64
    assert plan.pass1 == hook.LAST_RUN["assistant"].generated == LIMIT
    assert plan.pass2 == hook.LAST_RUN["user"].generated


def test_the_plan_of_a_task_from_include_path_reads_its_documents(folders, tmp_path):
    """A task of the user's own folder, wrapped as uta:NAME, with --include_path relative or absolute."""
    own = tmp_path / "own"
    own.mkdir()
    yaml = (folders["plain"] / "gsm8k.yaml").read_text().replace("task: gsm8k", "task: my_gsm8k")
    (own / "my_gsm8k.yaml").write_text(yaml)
    meta = {**NO_JUDGE, "my_gsm8k_data_files": str(GSM8K)}
    for include in (str(own), "own"):
        with pytest.MonkeyPatch.context() as mp:
            mp.chdir(tmp_path)
            plan = make_plan(["uta:my_gsm8k"], metadata=meta, limit=2, flags=Flags({}, include))
        (bench,) = plan.benchmarks
        assert bench.docs.n == 2 and bench.tasks[0].startswith("uta_wrap_my_gsm8k")
        assert plan.pass1 == 2 and plan.pass2 == 2 * 3


def test_plan_command_prints_the_saved_answers_and_their_completions(model, folders, capsys):
    from uta_tasks.cli import main

    _saved_run(model, folders)
    meta = {**NO_JUDGE, "gsm8k_data_files": str(GSM8K), "answers_from": str(folders["out"])}
    argv = ["uta-eval", "--model", "hf", "--model_args", f"pretrained={TOKENIZER},max_length={MAX_LENGTH}",
            "--tasks", "uta:gsm8k", "--limit", str(LIMIT), "--metadata", json.dumps(meta), "--plan"]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("sys.argv", argv)
        with pytest.raises(SystemExit) as done:
            main()
    out, err = capsys.readouterr()
    assert done.value.code == 0, err[-2000:]
    plan = make_plan(["uta:gsm8k"], metadata=meta, limit=LIMIT, flags=Flags(MODEL_ARGS))
    saved = plan.saved
    assert done.value.code == 0 and saved is not None
    assert f"{saved.answers:,} read from {folders['out']}" in out
    assert (f"{saved.after_budget:,} completed after the saved run's token budget" in out
            and f"Completions: {saved.completions:,} generations" in out)
    assert f"at most {saved.largest:,} tokens each" in out and f"maximum length {MAX_LENGTH:,}" in out


def test_a_wrapped_task_whose_data_cannot_load_is_refused_in_one_line(tmp_path):
    from uta_tasks.apps.plan.documents import PlanError

    missing = tmp_path / "missing.jsonl"
    with pytest.raises(PlanError) as refused:
        make_plan(["uta:gsm8k"], metadata={**NO_JUDGE, "gsm8k_data_files": str(missing)}, limit=2)
    message = str(refused.value)
    assert "\n" not in message and "lm-eval cannot build --tasks uta:gsm8k" in message
    assert "missing.jsonl" in message and "_data_files" in message


def _plan_offline(tmp_path, answers_from: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGINGFACE_"))}
    env.update(HF_HOME=str(tmp_path / "hf"), HF_HUB_OFFLINE="1", PYTHONPATH=os.pathsep.join([str(ROOT), env.get(
        "PYTHONPATH", "")]))
    meta = {**NO_JUDGE, "gsm8k_data_files": str(GSM8K), "answers_from": answers_from}
    return subprocess.run([sys.executable, "-m", "uta_tasks.cli", "--model", "hf", "--model_args",
                           f"pretrained={TOKENIZER}", "--tasks", "uta_gsm8k", "--limit", "3", "--metadata",
                           json.dumps(meta), "--plan"], env=env, capture_output=True, text=True, check=False)


def test_a_saved_run_on_the_hub_that_cannot_be_read_now_is_planned_without_its_answers(tmp_path):
    """Offline, with nothing cached: the plan still counts the run (no answer generated, the user turns, the
    judge), and says the saved answers were not read, so their completions are not counted."""
    done = _plan_offline(tmp_path, "hf://datasets/org/model-details/org__model")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Answers: 0 generated; 3 read from hf://datasets/org/model-details/org__model." in done.stdout
    assert "Not read before the run (" in done.stdout and "Completions: not counted." in done.stdout
    lines = {line.split()[0]: line.split() for line in done.stdout.splitlines() if line.startswith(("gsm8k", "total"))}
    assert lines["total"][1:6] == ["1", "3", "0", "3", "0"]


def test_a_saved_folder_the_run_would_refuse_is_refused_by_the_plan(tmp_path):
    done = _plan_offline(tmp_path, str(tmp_path / "missing"))
    assert done.returncode != 0 and "the run will refuse it" in done.stderr and "missing" in done.stderr
