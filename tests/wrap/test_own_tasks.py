"""A task of the user's own (a folder that lives only in this test) wraps and runs: found through
``--include_path`` as lm-eval finds it, the folder written by ``wrap`` runs under plain lm-eval
given only that folder, the wrapped group keeps the group's ``aggregate_metric_list``, the
n-shot column says how many examples q holds, each answer is scored as lm-eval would have cut
it at the task's stop strings while the trace keeps the whole turn, and ``--system_instruction``
joins the task's description in one system message. Real lm-eval evaluator, scripted model."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from own_tasks import DESCRIPTION, PROBLEMS, write_tasks

from uta_tasks.wrap import WrapError
from uta_tasks.wrap.check import plan
from uta_tasks.wrap.command import expand_argv, main
from uta_tasks.wrap.yamls import files

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pipeline"))

from pipeline_run import NO_JUDGE, evaluate, records  # noqa: E402


def _first_paragraph_wrong_on_what_is(prompt: str, gen_kwargs: dict) -> str:
    """Pass 1: a first paragraph with a number (the gold one, except for "What is" questions),
    then a second paragraph with another; pass 2: a user turn."""
    if prompt.endswith("<|im_start|>assistant\n"):
        q = prompt.rsplit("<|im_start|>user\n", 1)[1].split("<|im_end|>", 1)[0]
        question = q.removeprefix("Question: ").removesuffix("\nAnswer:")
        gold = dict(PROBLEMS)[question]
        first = "0" if question.startswith("What is") else gold
        other = gold if question.startswith("What is") else "99"
        return f"It is {first}.\n\nQuestion: and with {other} more?"
    return "Thanks, and what about 3 more?"


@pytest.fixture()
def own(tmp_path):
    return write_tasks(tmp_path / "my_tasks")


def test_a_task_of_your_own_is_found_in_the_include_path_only(own):
    with pytest.raises(WrapError, match="my_task: not a task.*give its folder with --include_path"):
        plan(["my_task"])
    assert plan(["my_task"], [str(own)]).tasks == ("my_task",)
    with pytest.raises(WrapError, match="no_such_folder: no such folder"):
        plan(["my_task"], [str(own / "no_such_folder")])


def test_the_later_include_path_wins_as_in_lm_eval(own, tmp_path):
    other = write_tasks(tmp_path / "other", split=3)  # another my_task of the same name
    wrap_plan = plan(["my_task"], [str(own), str(other)])
    text = files(wrap_plan, {})["my_task/uta_wrap_my_task.yaml"]
    assert f'uta_include_path: ["{own.resolve()}", "{other.resolve()}"]' in text


def test_wrap_takes_include_path_and_records_it_with_the_groups_aggregate(own, tmp_path, capsys):
    out = tmp_path / "wrapped"
    assert main(["my_group", "--include_path", str(own), "--out", str(out)]) == 0
    task = (out / "my_task" / "uta_wrap_my_task.yaml").read_text()
    assert f'uta_include_path: ["{own.resolve()}"]' in task and 'uta_source_version: 2.0' in task
    group = (out / "_groups" / "uta_wrap_my_group.yaml").read_text()
    assert ('aggregate_metric_list:\n  - metric: "exact_match_last-number"\n    filter_list: ["none"]\n'
            '    aggregation: "mean"\n    weight_by_size: true\n') in group
    assert f"lm_eval --include_path {out} --tasks uta_wrap_my_group" in capsys.readouterr().err


def test_uta_eval_finds_uta_names_in_its_include_path(own, tmp_path):
    (tmp_path / "my_tasks_empty").mkdir()
    argv, folder = expand_argv(["run", "--include_path", str(own), "--tasks", "uta:my_task"])
    assert argv == ["run", "--include_path", str(own), "--tasks", "uta_wrap_my_task_all"]
    assert f'uta_include_path: ["{own.resolve()}"]' in (folder / "my_task" / "uta_wrap_my_task.yaml").read_text()
    with pytest.raises(WrapError, match="my_task: not a task"):  # lm-eval keeps the last --include_path
        expand_argv(["run", "--include_path", str(own), f"--include_path={tmp_path / 'my_tasks_empty'}",
                     "--tasks", "uta:my_task"])


def test_the_wrapped_folder_alone_runs_under_lm_eval(own, tmp_path):
    """Plain lm-eval given only the wrapped folder: the source tasks are found through the
    recorded include path; scores cut at the stop strings; the group's aggregate; n-shot; one
    system message."""
    from scripted_lm import ScriptedLM, load_tokenizer

    out = tmp_path / "wrapped"
    assert main(["my_group", "--include_path", str(own), "--out", str(out), "--num_fewshot", "2"]) == 0
    lm = ScriptedLM(load_tokenizer("smollm2"), _first_paragraph_wrong_on_what_is)
    results = evaluate(lm, ["uta_wrap_my_group"], include=(out,), metadata=dict(NO_JUDGE),
                       system_instruction="Be brief.")

    metric = "exact_match_last-number,none"
    per_task = {}
    for name, size in (("my_task", 7), ("my_task_b", 5)):
        # lm-eval 0.5 names a task inside a group "group::task"
        task = next(k for k in results["samples"] if k.split("::")[-1] == f"uta_wrap_{name}")
        samples = results["samples"][task]
        assert len(samples) == size
        for sample, record in zip(samples, records(results, task), strict=True):
            question = record.q.rsplit("Question: ", 1)[1].removesuffix("\nAnswer:")
            assert sample["exact_match_last-number"] == (0.0 if question.startswith("What is") else 1.0)
            assert "\n\nQuestion: and with" in record.answer  # the trace keeps the whole turn
            system = [m for m in record.messages if m["role"] == "system"]
            assert system == [{"role": "system", "content": f"Be brief.\n\n{DESCRIPTION}"}]
            assert [m["role"] for m in record.messages] == ["system", "user", "assistant", "user", "assistant", "user"]
        per_task[name] = results["results"][task][metric]
        assert results["n-shot"][task] == 2
    assert per_task == {"my_task": pytest.approx(5 / 7), "my_task_b": pytest.approx(4 / 5)}
    group = results["groups"]["uta_wrap_my_group"]
    assert group[metric] == pytest.approx(9 / 12)  # weighted by size, as the source group


def test_an_answer_scores_as_lm_evals_own_run_of_the_source_task(tmp_path):
    """The wrapped score of an answer is the source task's score of it in lm-eval's own run, on
    either lm-eval: with a bare ``exact_match`` and digit-only targets too (lm-eval 0.5 reads such
    a target as an int and scores every answer 0; 0.4.13 compares the strings)."""
    from scripted_lm import ScriptedLM, load_tokenizer

    from uta_tasks.lm_eval_compat import source_tasks

    bare = write_tasks(tmp_path / "bare", regexes_to_ignore=())
    answer = "It is 7."
    plain = evaluate(ScriptedLM(load_tokenizer("smollm2"), lambda prompt, gen_kwargs: answer), ["my_task"],
                     include=(bare,))
    theirs = [float(sample["exact_match"]) for sample in plain["samples"]["my_task"]]
    task = source_tasks.build("my_task", {}, (str(bare),))
    ours = [float(source_tasks.score(task, doc, answer)[("exact_match", "last-number")])
            for doc in source_tasks.eval_docs(task)]
    assert ours == theirs and len(ours) == 7
