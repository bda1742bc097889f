"""``answers_from`` on HELM's ``scenario_state.json`` (issue 54): a gsm run of SmolLM2 written in the
schema HELM writes (tests/fixtures/harness_logs/make_helm.py), probed as ``uta:gsm8k`` with a scripted
model through lm-eval's evaluator. HELM records the prompt as text, sent by its chat clients as the one
user message: the probe renders it with the model's chat template, as it renders inspect_ai's messages."""

from __future__ import annotations

import json
import shutil

import pytest
from harness_logs import LOGS, TASK
from harness_logs import probe as _probe
from pipeline_run import records
from saved_lm_eval_runs import END, GSM8K, USER

from uta_tasks.lm_eval_task import UTATaskError

(HELM,) = (LOGS / "helm").rglob("scenario_state.json")
STATES = json.loads(HELM.read_text(encoding="utf-8"))["request_states"]


def test_a_helm_scenario_state_is_pass_1_with_its_prompt_rendered_as_the_user_turn(ended, tokenizer, wrap):
    probed = _probe(ended, wrap, HELM)
    assert len(records(probed, TASK)) == 3
    for record, sample, state in zip(records(probed, TASK), probed["samples"][TASK], STATES, strict=True):
        request = state["request"]
        assert record.pass1_prompt == tokenizer.apply_chat_template(
            [{"role": "user", "content": request["prompt"]}], tokenize=False, add_generation_prompt=True)
        assert sample["doc"]["question"] in record.pass1_prompt
        assert record.a == state["result"]["completions"][0]["text"]
        assert record.pass2_prompt == f"{record.pass1_prompt}{record.a}{END}\n{USER}"
        assert record.generation["saved"] == {"temperature": 0.0, "max_gen_toks": 400, "until": ["\n\n"]}
        source = record.answer_source
        assert source["harness"] == "helm" and source["model"] == "HuggingFaceTB/SmolLM2-135M-Instruct"
        assert source["harness_log"]["harness_task"] == HELM.parent.name and source["samples"] == HELM.name


def test_documents_in_another_order_are_matched_by_their_text(ended, wrap, tmp_path):
    shifted = tmp_path / "shifted.jsonl"  # HELM draws its instances: document 0 is its request state 1
    lines = GSM8K.read_text().splitlines()
    shifted.write_text("\n".join(lines[1:3] + lines[:1]) + "\n")
    probed = _probe(ended, wrap, HELM, gsm8k_data_files=str(shifted))
    assert [r.a for r in records(probed, TASK)] == [STATES[i]["result"]["completions"][0]["text"] for i in (1, 2, 0)]


def test_a_request_without_its_temperature_is_refused_naming_the_setting_until_stated(ended, wrap, tmp_path):
    data = json.loads(HELM.read_text(encoding="utf-8"))
    for state in data["request_states"]:
        del state["request"]["temperature"]  # not what HELM writes: a writer that left it out
    alone = tmp_path / "run" / "scenario_state.json"
    alone.parent.mkdir()
    alone.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(UTATaskError, match=r"does not record the temperature.*answers_from_settings"):
        _probe(ended, wrap, alone)
    probed = _probe(ended, wrap, alone, answers_from_settings={"temperature": 0.0})
    assert records(probed, TASK)[0].answer_source["harness_log"]["stated"] == {"temperature": 0.0}


def test_a_folder_is_not_searched_for_scenario_states(ended, wrap, tmp_path):
    shutil.copytree(HELM.parent, tmp_path / HELM.parent.name)
    with pytest.raises(UTATaskError, match=r"holds no lm-eval run"):
        _probe(ended, wrap, tmp_path)
