"""Which lm-eval tasks wrap, the refusals (named, with the reason, before any model loads),
groups, the YAML written for plain lm_eval, and uta-eval's ``uta:NAME``."""

from __future__ import annotations

import sys

import pytest

from uta_tasks.probe import perturbations
from uta_tasks.wrap import WrapError
from uta_tasks.wrap.check import plan
from uta_tasks.wrap.command import expand_argv, main
from uta_tasks.wrap.yamls import files


def test_a_generation_task_wraps_into_a_family():
    wrapped = files(plan(["gsm8k"]), {})
    # one task per registered perturbation (the paper's three first) and the family group
    tasks = ["gsm8k/uta_wrap_gsm8k.yaml"] + [f"gsm8k/uta_wrap_gsm8k_{p}.yaml" for p in perturbations.names()[1:]]
    assert sorted(wrapped) == sorted(["gsm8k/_uta_wrap_gsm8k_all.yaml", *tasks])
    assert {"gsm8k/uta_wrap_gsm8k_question.yaml", "gsm8k/uta_wrap_gsm8k_trunc.yaml"} <= set(wrapped)
    text = wrapped["gsm8k/uta_wrap_gsm8k_trunc.yaml"]
    assert 'uta_benchmark: "lm-eval:gsm8k"' in text and 'uta_perturbation: "trunc"' in text
    assert "class: !function uta_tasks.lm_eval_task.UTATask" in text and "unsafe_code" not in text
    assert "uta_num_fewshot: 0\n" in text and "uta_fewshot_as_multiturn: true\n" in text  # the choice, recorded


def test_a_tag_wraps_as_a_group_of_families():
    wrap_plan = plan(["mgsm_direct"])
    assert "mgsm_direct_de" in wrap_plan.tasks and len(wrap_plan.tasks) >= 10
    group = files(wrap_plan, {})["_groups/uta_wrap_mgsm_direct.yaml"]
    assert "group: uta_wrap_mgsm_direct" in group and "  - uta_wrap_mgsm_direct_de_all" in group


@pytest.mark.parametrize(("task", "reason"), [
    ("hellaswag", "output_type multiple_choice"),
    ("arc_easy", "output_type multiple_choice"),
    ("wikitext", "output_type loglikelihood_rolling"),
    ("no_such_task_anywhere", "not a task, group or tag"),
])
def test_what_cannot_be_wrapped_is_refused_with_the_reason(task, reason):
    with pytest.raises(WrapError, match=reason) as caught:
        plan(["gsm8k", task])
    assert task in str(caught.value)


def test_a_python_task_is_refused():
    with pytest.raises(WrapError, match="Python-defined"):
        plan(["squadv2"])


def test_wrap_command_writes_yaml_and_says_how_to_run(tmp_path, capsys):
    assert main(["bbh_cot_zeroshot_date_understanding", "--out", str(tmp_path), "--num_fewshot", "0",
                 "--data_files", "bbh_cot_zeroshot_date_understanding=some.jsonl"]) == 0
    text = (tmp_path / "bbh_cot_zeroshot_date_understanding" / "uta_wrap_bbh_cot_zeroshot_date_understanding.yaml"
            ).read_text()
    assert "uta_num_fewshot: 0" in text and "bbh_cot_zeroshot_date_understanding_data_files" in text
    assert "lm_eval --include_path" in capsys.readouterr().err
    assert main(["hellaswag", "--out", str(tmp_path / "x")]) == 2
    assert "hellaswag: output_type multiple_choice" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_uta_eval_expands_uta_names_into_wrapped_groups():
    argv, folder = expand_argv(["run", "--model", "hf", "--tasks", "uta_gsm8k,uta:gsm8k,uta:mgsm_direct"])
    assert argv[-1] == "uta_gsm8k,uta_wrap_gsm8k_all,uta_wrap_mgsm_direct"
    assert folder is not None and (folder / "gsm8k" / "uta_wrap_gsm8k.yaml").is_file()
    same, none = expand_argv(["run", "--tasks=uta_gsm8k"])
    assert none is None and same == ["run", "--tasks=uta_gsm8k"]


@pytest.mark.parametrize("task", ["humaneval", "mbpp", "cruxeval_output"])
def test_a_code_task_needs_lm_evals_confirmation(task):
    from uta_tasks.lm_eval_compat.source_tasks import lookup

    if lookup(task) is None:
        pytest.skip(f"the installed lm-eval ships no {task} (0.5.0.dev1 has no cruxeval_output)")
    with pytest.raises(WrapError, match="--confirm_run_unsafe_code"):
        expand_argv(["run", "--tasks", f"uta:{task}"])
    argv, folder = expand_argv(["run", "--tasks", f"uta:{task}", "--confirm_run_unsafe_code"])
    assert folder is not None
    assert "unsafe_code: true" in (folder / task / f"uta_wrap_{task}.yaml").read_text()


def test_uta_eval_refuses_before_lm_eval_starts(monkeypatch):
    from uta_tasks import cli

    monkeypatch.setattr(sys, "argv", ["uta-eval", "run", "--model", "hf", "--tasks", "uta:hellaswag"])
    monkeypatch.setattr(cli.compat, "cli_main", lambda: pytest.fail("lm-eval must not start"))
    with pytest.raises(SystemExit, match="hellaswag: output_type multiple_choice"):
        cli.main()


def test_few_shot_examples_come_from_the_tasks_own_sampler():
    import json
    from pathlib import Path

    from uta_tasks.wrap.benchmark import benchmark

    data = Path(__file__).resolve().parents[1] / "fixtures" / "data" / "gsm8k_test.jsonl"
    doc = json.loads(data.read_text().splitlines()[0])
    meta = {"gsm8k_data_files": str(data), "uta_num_fewshot": 2}
    turns = benchmark("t", "lm-eval:gsm8k", meta).doc_to_messages(doc)
    assert [m["role"] for m in turns] == ["user", "assistant", "user", "assistant", "user"]
    assert turns[-1]["content"] == f"Question: {doc['question']}\nAnswer:"
    assert doc["question"] not in turns[0]["content"] + turns[2]["content"]  # the doc itself is left out
    assert "#### " in turns[1]["content"]  # an example's answer is its target
    (one,) = benchmark("t", "lm-eval:gsm8k", {**meta, "uta_fewshot_as_multiturn": False}).doc_to_messages(doc)
    assert one["role"] == "user" and one["content"].count("Question: ") == 3
