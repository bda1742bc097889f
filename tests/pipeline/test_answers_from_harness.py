"""``answers_from`` on other harnesses' logs (issue 43 item 4): an inspect_ai eval log and a
lighteval details file, each written by its own library on SmolLM2-135M-Instruct
(tests/fixtures/harness_logs/make_logs.py), probed as ``uta:gsm8k`` with a scripted model.

Every record's pass-1 prompt is the log's prompt (lighteval: as sent; inspect: its messages
rendered with the model's chat template), its answer is the logged output (a continuation is
asked only where a stop string may have cut it, and this model adds nothing), and what a log does
not record is refused naming ``answers_from_settings``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from harness_logs import (
    INSPECT,
    INSPECT_DEFAULTS,
    LIGHTEVAL,
    LOGS,
    LOGS_A_SAMPLES_RUN,
    MODEL,
    TASK,
    lighteval_rows,
)
from harness_logs import probe as _probe
from pipeline_run import records
from saved_lm_eval_runs import END, GSM8K, USER, ModelCreated, uta_eval_until_the_model

from uta_tasks.lm_eval_task import UTATaskError

inspect_log = pytest.importorskip("inspect_ai.log", reason="the inspect extra (uta-tasks[inspect])")


def _inspect_samples(path: Path) -> dict[int, object]:
    return {s.id - 1: s for s in inspect_log.read_eval_log_samples(str(path), resolve_attachments=True)}


def test_an_inspect_log_is_pass_1_with_its_messages_rendered_by_the_model_template(ended, tokenizer, wrap):
    probed = _probe(ended, wrap, INSPECT)
    logged = _inspect_samples(INSPECT)
    assert len(records(probed, TASK)) == 3
    for record, sample in zip(records(probed, TASK), probed["samples"][TASK], strict=True):
        theirs = logged[sample["doc_id"]]
        (call,) = [e for e in theirs.events if e.event == "model"]
        messages = [{"role": m.role, "content": m.text} for m in call.input]
        assert record.pass1_prompt == tokenizer.apply_chat_template(messages, tokenize=False,
                                                                    add_generation_prompt=True)
        assert sample["doc"]["question"] in record.pass1_prompt
        assert record.a == theirs.output.completion
        assert record.pass2_prompt == f"{record.pass1_prompt}{record.a}{END}\n{USER}"
        source = record.answer_source
        assert source["harness"] == "inspect" and source["harness_log"]["logged_model"].endswith(MODEL)
        assert source["prompt_check"]["rendered"] == "differs"  # inspect's prompt template, not lm-eval's
    # the stop string the log records (Question:) may have cut an answer: each was continued, adding nothing
    continued = [p for batch in ended.calls for p, _ in batch if not p.endswith(USER)]
    assert len(continued) == 3


def test_an_inspect_log_without_a_temperature_is_refused_naming_the_setting(ended, wrap):
    with pytest.raises(UTATaskError, match=r"does not record the temperature.*answers_from_settings"):
        _probe(ended, wrap, INSPECT_DEFAULTS)


def test_an_inspect_log_at_a_stated_temperature_is_probed_at_it(ended, wrap):
    stated = {"answers_from_settings": {"temperature": 0.0, "max_gen_toks": 2048}}
    probed = _probe(ended, wrap, INSPECT_DEFAULTS, **stated)
    logged = _inspect_samples(INSPECT_DEFAULTS)
    for record, sample in zip(records(probed, TASK), probed["samples"][TASK], strict=True):
        assert record.a == logged[sample["doc_id"]].output.completion
        assert record.answer_source["harness_log"]["stated"] == stated["answers_from_settings"]


def test_a_stated_value_the_log_contradicts_is_refused(ended, wrap):
    with pytest.raises(UTATaskError, match=r"states temperature=0.7, but the log records 0.0"):
        _probe(ended, wrap, INSPECT, answers_from_settings={"temperature": 0.7})


def test_an_inspect_log_of_other_documents_is_refused(ended, wrap, tmp_path):
    other = tmp_path / "other.jsonl"  # the first document is one the log never asked about
    lines = GSM8K.read_text().splitlines()
    other.write_text("\n".join([lines[0].replace("A baker makes 24", "A cook bakes 25")] + lines[1:]) + "\n")
    with pytest.raises(UTATaskError, match=r"document 0 \('A cook bakes 25.*is in none of the prompts the inspect"):
        _probe(ended, wrap, INSPECT, gsm8k_data_files=str(other))


def test_documents_in_another_order_are_matched_by_their_text(ended, wrap, tmp_path):
    shifted = tmp_path / "shifted.jsonl"  # document 0 is the log's sample 2, document 1 its sample 3
    lines = GSM8K.read_text().splitlines()
    shifted.write_text("\n".join(lines[1:] + lines[:1]) + "\n")
    probed = _probe(ended, wrap, INSPECT, limit=2, gsm8k_data_files=str(shifted))
    logged = _inspect_samples(INSPECT)
    assert [r.a for r in records(probed, TASK)] == [logged[1].output.completion, logged[2].output.completion]


def test_an_inspect_log_is_found_in_its_folder(ended, wrap, tmp_path):
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copyfile(INSPECT, folder / INSPECT.name)
    probed = _probe(ended, wrap, folder, limit=1)
    assert records(probed, TASK)[0].answer_source["samples"] == INSPECT.name


def test_a_log_naming_a_served_alias_is_refused_before_the_model_until_the_model_is_stated(monkeypatch, capsys,
                                                                                          wrap):
    folders = {"out": INSPECT, "wrap": wrap}
    with pytest.raises(SystemExit) as done:
        uta_eval_until_the_model(folders, monkeypatch, TASK, 3)
    message = capsys.readouterr().err.splitlines()[-1]
    assert done.value.code == 2 and f"answered with {MODEL}, but --model_args names scripted" in message
    assert '"answers_from_settings": {"model": "scripted"}' in message
    with pytest.raises(ModelCreated):  # stated: the saved prompts pass the checks with the model's tokenizer
        uta_eval_until_the_model(folders, monkeypatch, TASK, 3, answers_from_settings={"model": "scripted"})


def test_an_inspect_log_without_the_inspect_extra_names_its_install(ended, wrap, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)  # import inspect_ai.log raises ImportError
    with pytest.raises(UTATaskError, match=r'reading it needs inspect_ai: pip install "uta-tasks\[inspect\]"'):
        _probe(ended, wrap, INSPECT)


@LOGS_A_SAMPLES_RUN
def test_a_lighteval_details_file_is_pass_1_with_the_prompt_as_sent(ended, tokenizer, wrap):
    rows = lighteval_rows(LIGHTEVAL)  # lighteval drew 3 documents at random (seed 42): 1, 2 and 3
    assert sorted(rows) == [1, 2, 3]
    whole = [1, 2]  # SmolLM2 ran into the 256 tokens on document 3 (below)
    probed = _probe(ended, wrap, LIGHTEVAL, samples={TASK: whole})
    for record, sample, doc_id in zip(records(probed, TASK), probed["samples"][TASK], whole, strict=True):
        row = rows[doc_id]  # lm-eval 0.4 hands the task the picked documents numbered 0, 1, ...: matched by text
        assert sample["doc"]["question"] in row["doc"]["query"]
        sent = tokenizer.decode(row["model_response"]["input_tokens"], skip_special_tokens=False)
        assert record.pass1_prompt == sent
        # what lighteval sent: its query as the user turn, through the model's chat template
        assert sent == tokenizer.apply_chat_template([{"role": "user", "content": row["doc"]["query"]}],
                                                     tokenize=False, add_generation_prompt=True)
        assert record.a == row["model_response"]["text"][0]
        assert record.pass2_prompt == f"{record.pass1_prompt}{record.a}{END}\n{USER}"
        source = record.answer_source
        assert source["harness"] == "lighteval" and source["model"] == MODEL
        assert source["prompt_check"]["rendered"] == "equal"  # lighteval's gsm8k prompt is lm-eval's zero-shot one
    # the task's stop string (Question:) may have cut an answer: each was continued, adding nothing
    assert len([p for batch in ended.calls for p, _ in batch if not p.endswith(USER)]) == 2


@LOGS_A_SAMPLES_RUN
def test_a_lighteval_answer_cut_by_its_recorded_budget_is_continued_with_the_probe_budget(ended, wrap):
    """Issue 52: document 3 ran into lighteval's 256 tokens. With the task's own budget (no --gen_kwargs) it is
    continued after its budget; with a probe budget no larger (200) it is used as saved and flagged incomplete."""
    (whole,) = records(_probe(ended, wrap, LIGHTEVAL, samples={TASK: [3]}, gen_kwargs=None), TASK)
    assert whole.answer_source["completion"] == "after_budget" and whole.answer_source["saved_tokens"] >= 256
    assert whole.generation["saved"]["max_gen_toks"] == 256 and not whole.answer_incomplete
    assert whole.generation["completion"]["max_gen_toks"] == whole.budget["assistant"] - whole.answer_source[
        "saved_tokens"]
    ended.calls.clear()
    (capped,) = records(_probe(ended, wrap, LIGHTEVAL, samples={TASK: [3]}), TASK)
    assert capped.answer_source["completion"] == "as_saved" and capped.answer_incomplete
    assert all(prompt.endswith(USER) for batch in ended.calls for prompt, _ in batch)


@LOGS_A_SAMPLES_RUN
def test_a_lighteval_details_file_without_its_results_is_refused_naming_the_setting(ended, wrap, tmp_path):
    alone = tmp_path / LIGHTEVAL.name
    shutil.copyfile(LIGHTEVAL, alone)
    with pytest.raises(UTATaskError, match=r"does not record the temperature.*answers_from_settings"):
        _probe(ended, wrap, alone, samples={TASK: [1]})
    with pytest.raises(UTATaskError, match=r"does not name the model that wrote it.*answers_from_settings"):
        _probe(ended, wrap, alone, samples={TASK: [1]}, answers_from_settings={"temperature": 0.0})
    probed = _probe(ended, wrap, alone, samples={TASK: [1]}, answers_from_settings={"temperature": 0.0,
                                                                                   "model": MODEL})
    assert records(probed, TASK)[0].a == lighteval_rows(LIGHTEVAL)[1]["model_response"]["text"][0]


@LOGS_A_SAMPLES_RUN
def test_a_lighteval_run_folder_is_read_through_its_details(ended, wrap):
    probed = _probe(ended, wrap, LOGS / "lighteval", samples={TASK: [2]})
    assert records(probed, TASK)[0].answer_source["samples"] == LIGHTEVAL.name


def test_a_folder_of_several_logs_names_them_and_asks_for_one(tmp_path):
    from uta_tasks.saved_answers import files as saved_files

    for log in (INSPECT, INSPECT_DEFAULTS):
        shutil.copyfile(log, tmp_path / log.name)
    with pytest.raises(saved_files.SavedFilesError, match=r"holds 2 inspect_ai or lighteval logs \(inspect_gsm8k"):
        saved_files.find(tmp_path, [TASK], TASK)


def test_settings_stated_for_an_lm_eval_run_are_refused(tmp_path):
    from uta_tasks.saved_answers import load as saved_answers

    samples = tmp_path / "samples_gsm8k_2026-01-01T00-00-00.jsonl"
    samples.write_text('{"doc_id": 0, "doc": {}, "arguments": [["p", {}]], "resps": [["a"]]}\n')
    with pytest.raises(saved_answers.SavedRunError, match=r"records its own settings: leave it out"):
        saved_answers.load(samples, ["gsm8k"], TASK, {"temperature": 0})
