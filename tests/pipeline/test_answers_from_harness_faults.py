"""``answers_from`` on other harnesses' logs as users met them: a lighteval run batched with its
padding in the logged prompt ids, damaged or incomplete files, and what a refusal says.

The logs are derived from the real ones of tests/fixtures/harness_logs (written by lighteval 0.13
and inspect_ai 0.3.285, make_logs.py) in the schema those libraries write, changed only where said.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from harness_logs import INSPECT, LIGHTEVAL, LOGS, LOGS_A_SAMPLES_RUN, TASK, lighteval_rows, probe
from pipeline_run import records
from saved_lm_eval_runs import uta_eval_until_the_model

from uta_tasks.lm_eval_task import UTATaskError
from uta_tasks.probe.hook import ProbeError


def _lighteval_copy(tmp_path: Path, rows: list[dict], schema=None, batch_size: int = 1) -> Path:
    """A lighteval run in lighteval's own layout (details and results of one date) holding ``rows``;
    its results file records ``batch_size``. Returns the details file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    details = tmp_path / "lighteval" / LIGHTEVAL.relative_to(LOGS / "lighteval")
    details.parent.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), details)
    (results,) = (LOGS / "lighteval" / "results").rglob("results_*.json")
    data = json.loads(results.read_text())
    data["config_general"]["model_config"]["batch_size"] = batch_size
    copy = tmp_path / "lighteval" / results.relative_to(LOGS / "lighteval")
    copy.parent.mkdir(parents=True)
    copy.write_text(json.dumps(data, indent=2))
    return details


def _batched(tmp_path: Path, pad_id: int, miscount: dict[int, int] | None = None) -> Path:
    """The fixture's lighteval run as lighteval 0.13's transformers backend logs it with
    ``batch_size=3`` (``_padded_greedy_until``): the three prompts padded on the left to the longest
    with the pad token, each row's ``input_tokens`` the padded row whole and ``padded_tokens_count``
    the padding (``Batch.padded``). ``miscount``: doc id -> a count off by that many."""
    import pyarrow.parquet as pq

    table = pq.read_table(LIGHTEVAL)
    rows = table.to_pylist()
    longest = max(len(row["model_response"]["input_tokens"]) for row in rows)
    for row in rows:
        response = row["model_response"]
        padding = longest - len(response["input_tokens"])
        response["input_tokens"] = [pad_id] * padding + response["input_tokens"]
        response["padded_tokens_count"] = padding + (miscount or {}).get(int(row["doc"]["id"]), 0)
    return _lighteval_copy(tmp_path, rows, table.schema, batch_size=3)


def _one_line_naming_the_task(message: str) -> str:
    assert "\n" not in message and message.count(TASK) == 1, message
    return message


# ---- lighteval's padding ----------------------------------------------------------------


@LOGS_A_SAMPLES_RUN
def test_a_batched_lighteval_run_is_pass_1_without_its_padding(ended, tokenizer, wrap, tmp_path):
    details = _batched(tmp_path, tokenizer.pad_token_id)
    rows = lighteval_rows(details)
    assert sorted(row["model_response"]["padded_tokens_count"] for row in rows.values()) == [0, 10, 11]
    probed = probe(ended, wrap, details, samples={TASK: [1, 2]})
    for record, doc_id in zip(records(probed, TASK), [1, 2], strict=True):
        # the prompt lighteval sent, without the batch's padding: its query through the model's chat template
        assert record.pass1_prompt == tokenizer.apply_chat_template(
            [{"role": "user", "content": rows[doc_id]["doc"]["query"]}], tokenize=False, add_generation_prompt=True)
        assert record.answer_source["prompt_check"]["rendered"] == "equal"


@pytest.mark.parametrize(("off", "said"), [
    (1, r"recorded 11 tokens of left padding \(padded_tokens_count\), but input_tokens\[10\] is id 1 "
        r"\('<\|im_start\|>'\), not the tokenizer's pad token \{2: '<\|im_end\|>'\}"),
    (-1, r"records 9 tokens of padding, but input_tokens\[9\] is the pad token too"),
], ids=["count-above-the-padding", "count-below-the-padding"])
def test_a_padding_count_the_ids_disagree_with_is_refused_in_one_line(ended, tokenizer, wrap, tmp_path, off, said):
    details = _batched(tmp_path, tokenizer.pad_token_id, miscount={1: off})
    with pytest.raises(ProbeError, match=said) as refused:
        probe(ended, wrap, details, samples={TASK: [1]})
    message = _one_line_naming_the_task(str(refused.value))
    assert f"document 1 of the lighteval details {details}" in message and "batch_size=1" in message


# ---- a damaged inspect log --------------------------------------------------------------


def _inspect_copy(tmp_path: Path, member: str, change: Callable[[bytes], bytes]) -> Path:
    """The fixture's inspect log with one member changed, its zip index intact (every member
    rewritten as inspect_ai writes them, zstd)."""
    import zipfile

    pytest.importorskip("inspect_ai.log", reason="the inspect extra (uta-tasks[inspect])")
    import zipfile_zstd  # noqa: F401  (inspect_ai's own dependency: zipfile reads and writes zstd members)

    copy = tmp_path / INSPECT.name
    with zipfile.ZipFile(INSPECT) as source, zipfile.ZipFile(copy, "w") as written:
        for info in source.infolist():
            data = source.read(info)
            written.writestr(info, change(data) if info.filename == member else data, compress_type=info.compress_type)
    return copy


def _damaged_inspect(tmp_path: Path) -> Path:
    """The fixture's inspect log with its second sample's member cut in half."""
    return _inspect_copy(tmp_path, "samples/2_epoch_1.json", lambda data: data[: len(data) // 2])


def test_a_damaged_sample_of_an_inspect_log_is_refused_in_one_line_before_the_model(monkeypatch, capsys, wrap,
                                                                                   tmp_path):
    damaged = _damaged_inspect(tmp_path)
    with pytest.raises(SystemExit) as done:
        uta_eval_until_the_model({"out": damaged, "wrap": wrap}, monkeypatch, TASK, 3)
    message = capsys.readouterr().err.splitlines()[-1]
    assert done.value.code == 2 and message.startswith(f"uta-eval: {TASK}: ")
    assert f"{damaged}: its member samples/2_epoch_1.json, sample 2, cannot be read (" in message
    assert "the log is damaged; run the inspect task again" in message
    _one_line_naming_the_task(message)


# ---- a lighteval details file without a column the probe reads --------------------------------


def test_a_lighteval_details_file_without_model_response_is_refused_naming_the_column(ended, wrap, tmp_path):
    import pyarrow.parquet as pq

    table = pq.read_table(LIGHTEVAL).drop_columns(["model_response"])
    details = _lighteval_copy(tmp_path, table.to_pylist(), table.schema)
    with pytest.raises(UTATaskError) as refused:
        probe(ended, wrap, details, samples={TASK: [1]})
    message = _one_line_naming_the_task(str(refused.value))
    assert message == (f"{TASK}: {details}: no model_response column (it holds doc, metric): not the details of a "
                       "lighteval generative task; answers_from reads the parquet --save-details writes")


# ---- every refusal of the readers: one line, naming its task once, values whole ------------------

DATE = "2026-01-01T00-00-00.000000"
LONG = "a value longer than any cut, " * 6  # 174 characters: a message quotes it whole
QUESTION = "A baker makes 24 loaves of bread each day and sells them all."


def _sample(**changed) -> dict:
    """One line of lm-eval's --log_samples (0.4.13's keys), with ``changed`` keys replaced."""
    line = {"doc_id": 0, "doc": {"question": QUESTION, "answer": "#### 24"}, "target": "24",
            "arguments": {"gen_args_0": {"arg_0": f"<|im_start|>user\n{QUESTION}<|im_end|>\n<|im_start|>assistant\n",
                                         "arg_1": {"until": ["Question:"], "temperature": 0.0}}},
            "resps": [["The answer is 24."]], "filtered_resps": ["24"], "filter": "none", "metrics": ["exact_match"],
            "exact_match": 1.0}
    line.update(changed)
    return line


def _lm_eval_run(tmp_path: Path, lines: list, results: object = None, task: str = "gsm8k") -> Path:
    """An lm-eval output folder holding one run of ``task``: its samples lines (a JSON text each, or an
    object) and, unless None, its results file."""
    folder = tmp_path / "out" / "org__model"
    folder.mkdir(parents=True, exist_ok=True)
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    (folder / f"samples_{task}_{DATE}.jsonl").write_text(text)
    if results is not None:
        (folder / f"results_{DATE}.json").write_text(results if isinstance(results, str) else json.dumps(results))
    return tmp_path / "out"


def _results(model_args: str = "pretrained=org/model") -> dict:
    return {"results": {}, "config": {"model": "hf", "model_args": model_args}, "lm_eval_version": "0.4.13"}


def _lighteval_rows_changed(tmp_path: Path, change: Callable[[dict], None], with_results: bool = True) -> Path:
    import pyarrow.parquet as pq

    rows = pq.read_table(LIGHTEVAL).to_pylist()
    for row in rows:
        change(row)
    details = _lighteval_copy(tmp_path, rows)
    if not with_results:
        shutil.rmtree(tmp_path / "lighteval" / "results")
    return details


def _errored_sample(data: bytes) -> bytes:
    sample = json.loads(data)
    sample["error"] = {"message": f"RuntimeError: {LONG}\n  more of it", "traceback": "", "traceback_ansi": ""}
    return json.dumps(sample).encode()


def _loop(tmp_path: Path) -> Path:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    return tmp_path / "a"


def _dangling(tmp_path: Path) -> Path:
    (tmp_path / "gone").symlink_to(tmp_path / "nowhere")
    return tmp_path / "gone"


def _file(tmp_path: Path, name: str, text: str = "notes") -> Path:
    (tmp_path / name).write_text(text)
    return tmp_path / name


def _two_folders(tmp_path: Path) -> Path:
    for model in ("one", "two"):
        _lm_eval_run(tmp_path / model, [_sample()], _results())
        shutil.move(tmp_path / model / "out" / "org__model", tmp_path / model)
    return tmp_path


def _two_logs(tmp_path: Path) -> Path:
    for log in (INSPECT, LIGHTEVAL):
        shutil.copyfile(log, tmp_path / log.name)
    return tmp_path


def _empty(tmp_path: Path) -> Path:
    (tmp_path / "empty").mkdir()
    return tmp_path / "empty"


def _results_only(tmp_path: Path) -> Path:
    _file(tmp_path, f"results_{DATE}.json", json.dumps(_results()))
    return tmp_path


#: id -> (what answers_from is, made in tmp_path; the read's other arguments; what the message says whole)
REFUSALS: dict[str, tuple[Callable[[Path], Path | str], dict, str]] = {
    "missing": (lambda tmp: tmp / "nothing", {}, "does not exist"),
    "dangling-link": (_dangling, {}, "which does not exist"),
    "link-loop": (_loop, {}, "symbolic link loop"),
    "not-a-run-file": (lambda tmp: _file(tmp, "notes.txt"), {}, "not an lm-eval samples_<task>_<date>.jsonl"),
    "empty-folder": (_empty, {}, "holds no lm-eval run"),
    "results-without-samples": (_results_only, {}, "--log_samples"),
    "another-task": (lambda tmp: _lm_eval_run(tmp, [_sample()], _results(), task="arc_easy"), {},
                     "samples of ['arc_easy'], not of this task or gsm8k"),
    "runs-in-two-folders": (_two_folders, {}, "holds runs of gsm8k in 2 folders"),
    "two-harness-logs": (_two_logs, {}, "holds 2 inspect_ai or lighteval logs"),
    "lm-eval-0.4.2-without-samples": (lambda tmp: _file(tmp, "results.json", json.dumps(_results() | {"configs": {}}))
                                      .parent, {}, "the lm-eval 0.4.0 to 0.4.2 run"),
    "not-json": (lambda tmp: _lm_eval_run(tmp, ["{oops"], _results()), {}, "is not valid JSON"),
    "not-an-object": (lambda tmp: _lm_eval_run(tmp, ["[1]"], _results()), {}, "a JSON list, not an lm-eval sample"),
    "doc-id": (lambda tmp: _lm_eval_run(tmp, [_sample(doc_id=LONG)], _results()), {}, json.dumps(LONG)),
    "no-arguments": (lambda tmp: _lm_eval_run(tmp, [_sample(arguments={})], _results()), {}, "no request arguments"),
    "prompt-messages": (lambda tmp: _lm_eval_run(tmp, [_sample(arguments=[[[{"role": "user"}], {}]])], _results()),
                        {}, "--apply_chat_template"),
    "settings-not-object": (lambda tmp: _lm_eval_run(tmp, [_sample(arguments=[["p", "x"]])], _results()), {},
                            "generation settings (arguments) are str"),
    "no-resps": (lambda tmp: _lm_eval_run(tmp, [_sample(resps=[])], _results()), {}, "no response (resps)"),
    "resps-shape": (lambda tmp: _lm_eval_run(tmp, [_sample(resps=[[{"text": LONG}]])], _results()), {},
                    json.dumps([[{"text": LONG}]])),
    "no-samples": (lambda tmp: _lm_eval_run(tmp, [], _results()), {}, "holds no samples"),
    "results-not-object": (lambda tmp: _lm_eval_run(tmp, [_sample()], "[1]"), {}, "not lm-eval's results object"),
    "stated-for-lm-eval": (lambda tmp: _lm_eval_run(tmp, [_sample()], _results()), {"stated": {"temperature": 0}},
                           "records its own settings"),
    "document-not-in-run": (lambda tmp: _lm_eval_run(tmp, [_sample()], _results()),
                            {"doc_id": 5, "doc": {"question": LONG}},
                            "document 5 is not in the saved run"),
    "another-document": (lambda tmp: _lm_eval_run(tmp, [_sample()], _results()), {"doc": {"question": LONG}},
                         "is another document than the probe's"),
    "another-model": (lambda tmp: _lm_eval_run(tmp, [_sample()], _results()), {"model": "org/other"},
                      "answered with org/model, but --model_args names org/other"),
    "stripped-reasoning": (lambda tmp: _lm_eval_run(tmp, [_sample()], _results("pretrained=org/model,"
                                                                                "think_end_token=</think>")),
                           {"asked": "trace"}, "think_end_token=</think>"),
    "hub-model-repo": (lambda tmp: "hf://org/model", {}, "names a model repo"),
    "inspect-unreadable": (lambda tmp: _file(tmp, "log.eval", "not a zip"), {}, "not a readable inspect_ai log"),
    "inspect-damaged-sample": (_damaged_inspect, {}, "samples/2_epoch_1.json, sample 2, cannot be read"),
    "inspect-sample-error": (lambda tmp: _inspect_copy(tmp, "samples/1_epoch_1.json", _errored_sample), {},
                             f"ended in an error (RuntimeError: {LONG.strip()} more of it)"),
    "inspect-no-temperature": (lambda tmp: INSPECT.parent / "inspect_gsm8k_defaults.eval", {},
                               "does not record the temperature"),
    "inspect-stated-otherwise": (lambda tmp: INSPECT, {"stated": {"temperature": 0.7}},
                                 "states temperature=0.7, but the log records 0.0"),
    "inspect-other-documents": (lambda tmp: INSPECT, {"doc": {"question": LONG}}, repr(" ".join(LONG.split()))),
    "inspect-served-alias": (lambda tmp: INSPECT, {"model": "org/model"}, "answered with smollm2-135m-instruct"),
    "lighteval-no-temperature": (lambda tmp: _lighteval_rows_changed(tmp, lambda row: None, with_results=False), {},
                                 "does not record the temperature"),
    "lighteval-no-model": (lambda tmp: _lighteval_rows_changed(tmp, lambda row: None, with_results=False),
                           {"stated": {"temperature": 0.0}}, "does not name the model that wrote it"),
    "lighteval-no-model_response": (
        lambda tmp: _lighteval_rows_changed(tmp, lambda row: row.pop("model_response")), {},
        "no model_response column"),
    "lighteval-doc-id": (lambda tmp: _lighteval_rows_changed(tmp, lambda row: row["doc"].update(id=LONG)), {},
                         repr(LONG)),
    "lighteval-no-text": (lambda tmp: _lighteval_rows_changed(tmp, lambda row: row["model_response"].update(text=[])),
                          {}, "has no generated text"),
    "lighteval-padding-count": (
        lambda tmp: _lighteval_rows_changed(tmp, lambda row: row["model_response"].update(padded_tokens_count="3")),
        {}, 'padded_tokens_count is "3"'),
}


def _read(answers_from: Path | str, stated: dict | None = None, doc_id: int = 0, doc: dict | None = None,
          model: str | None = None, asked: str | None = None) -> None:
    """What a uta task does with ``answers_from``: read the saved run, check its model and its
    reasoning, and take a document's answer (lm_eval_task.UTATask)."""
    from uta_tasks.saved_answers import load as saved_answers

    saved = saved_answers.load(answers_from, [TASK, "gsm8k"], TASK, stated)
    saved_answers.check_model(TASK, saved, saved.config, {"pretrained": model} if model else {})
    saved_answers.stripped_context(TASK, saved.samples, saved.config, asked)
    saved.answer(TASK, doc_id, doc or {"question": QUESTION, "answer": "#### 24"})


@pytest.mark.parametrize("case", list(REFUSALS))
def test_every_refusal_of_the_readers_is_one_line_naming_its_task_once(tmp_path, case):
    from uta_tasks.saved_answers.task import SavedRunError

    if case.startswith("inspect-"):
        pytest.importorskip("inspect_ai.log", reason="the inspect extra (uta-tasks[inspect])")
    made, kwargs, said = REFUSALS[case]
    with pytest.raises(SavedRunError) as refused:
        _read(made(tmp_path), **kwargs)
    message = _one_line_naming_the_task(str(refused.value))
    assert message.startswith(f"{TASK}: ") and said in message, message


# ---- what a refusal suggests stating -------------------------------------------------------------


@pytest.mark.parametrize(("stated", "key"), [({}, "temperature"), ({"temperature": 1.0}, "max_gen_toks")])
def test_a_setting_the_log_does_not_record_is_asked_for_as_the_run_used_it_never_as_a_value(stated, key):
    """inspect_ai leaves both to the model's provider (its hf provider samples, at the model's own
    temperature): a suggested value would be one the run never used."""
    from uta_tasks.saved_answers.task import SavedRunError

    pytest.importorskip("inspect_ai.log", reason="the inspect extra (uta-tasks[inspect])")
    with pytest.raises(SavedRunError) as refused:
        _read(INSPECT.parent / "inspect_gsm8k_defaults.eval", stated=stated)
    message = _one_line_naming_the_task(str(refused.value))
    assert f"does not record the {key} the answers were generated with" in message
    assert f"""--metadata '{{"answers_from_settings": {{"{key}": <the {key} the run used>}}}}'""" in message
