"""``answers_from`` on other harnesses' logs as users met them: a lighteval run batched with its
padding in the logged prompt ids, damaged or incomplete files, and what a refusal says.

The logs are derived from the real ones of tests/fixtures/harness_logs (written by lighteval 0.13
and inspect_ai 0.3.285, make_logs.py) in the schema those libraries write, changed only where said.
"""

from __future__ import annotations

import json
import shutil
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


def _damaged_inspect(tmp_path: Path, member: str = "samples/2_epoch_1.json") -> Path:
    """The fixture's inspect log with one sample member cut in half, its zip index intact (every
    member rewritten as inspect_ai writes them, zstd)."""
    import zipfile

    pytest.importorskip("inspect_ai.log", reason="the inspect extra (uta-tasks[inspect])")
    import zipfile_zstd  # noqa: F401  (inspect_ai's own dependency: zipfile reads and writes zstd members)

    damaged = tmp_path / INSPECT.name
    with zipfile.ZipFile(INSPECT) as source, zipfile.ZipFile(damaged, "w") as copy:
        for info in source.infolist():
            data = source.read(info)
            copy.writestr(info, data[: len(data) // 2] if info.filename == member else data,
                          compress_type=info.compress_type)
    return damaged


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
