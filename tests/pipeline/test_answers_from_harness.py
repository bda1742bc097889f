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
from pipeline_run import NO_JUDGE, evaluate, records
from saved_lm_eval_runs import ASSISTANT, END, GSM8K, USER, GreedyLM

from uta_tasks.lm_eval_task import UTATaskError
from uta_tasks.wrap.check import plan
from uta_tasks.wrap.yamls import write

LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "harness_logs"
INSPECT, INSPECT_DEFAULTS = LOGS / "inspect_gsm8k.eval", LOGS / "inspect_gsm8k_defaults.eval"
TASK = "uta_wrap_gsm8k"
GEN = {"max_gen_toks": 200}
MODEL = "smollm2-135m-instruct"  # the served alias the inspect log names, the folder lighteval loaded

inspect_log = pytest.importorskip("inspect_ai.log", reason="the inspect extra (uta-tasks[inspect])")


def ended_script(prompt: str, gen_kwargs: dict) -> str:
    """A model that had ended every saved answer (a continuation adds nothing) and asks a user turn."""
    if prompt.endswith(USER):
        shown = prompt.rsplit(ASSISTANT, 1)[1].split(END, 1)[0]
        return f"Why {shown[-10:]!r}?"
    assert not prompt.endswith(ASSISTANT), "pass 1 was generated instead of read from the log"
    return ""


@pytest.fixture()
def ended(tokenizer):
    return GreedyLM(tokenizer, ended_script)


@pytest.fixture()
def wrap(tmp_path):
    write(tmp_path / "wrap", plan(["gsm8k"]), {})
    return tmp_path / "wrap"


def _probe(lm, wrap, answers_from, limit=3, **meta) -> dict:
    metadata = {**NO_JUDGE, "gsm8k_data_files": str(GSM8K), "answers_from": str(answers_from), **meta}
    return evaluate(lm, [TASK], metadata=metadata, include=(wrap,), limit=limit, gen_kwargs=GEN)


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
    shifted = tmp_path / "shifted.jsonl"  # the same documents, another order: document 0 is not sample 1
    lines = GSM8K.read_text().splitlines()
    shifted.write_text("\n".join(lines[1:] + lines[:1]) + "\n")
    with pytest.raises(UTATaskError, match=r"document 0: the prompt the inspect log .* does not hold the probe's"):
        _probe(ended, wrap, INSPECT, gsm8k_data_files=str(shifted))


def test_an_inspect_log_is_found_in_its_folder(ended, wrap, tmp_path):
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copyfile(INSPECT, folder / INSPECT.name)
    probed = _probe(ended, wrap, folder, limit=1)
    assert records(probed, TASK)[0].answer_source["samples"] == INSPECT.name
