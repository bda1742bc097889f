"""Loading: local files by setting, fast and clear failures without network."""

from __future__ import annotations

import json
import logging

import pytest

from uta_tasks.datasets import BenchmarkDataError, gpqa, gsm8k, healthbench
from uta_tasks.datasets.sources import DataSource, load_source


def test_gsm8k_loads_fixture_with_extra_metadata(data_dir):
    """lm-eval passes YAML metadata, --metadata and model_args together."""
    dd = gsm8k.load(gsm8k_data_files=str(data_dir / "gsm8k_test.jsonl"), version=1.0, pretrained="x", dtype="float32")
    assert list(dd) == ["test"]
    assert len(dd["test"]) == 6
    assert set(dd["test"].column_names) == {"question", "answer"}


def test_a_set_of_another_size_than_the_papers_is_warned_about(data_dir, caplog):
    with caplog.at_level(logging.WARNING, logger="uta_tasks.datasets.sources"):
        gsm8k.load(gsm8k_data_files=str(data_dir / "gsm8k_test.jsonl"))
    assert "gsm8k: N = 6 documents from gsm8k_data_files=" in caplog.text and "not the paper's 1319" in caplog.text


def test_list_of_files_and_parquet(tmp_path, data_dir):
    import datasets

    rows = [json.loads(line) for line in (data_dir / "gsm8k_test.jsonl").read_text().splitlines()]
    datasets.Dataset.from_list(rows[:2]).to_parquet(str(tmp_path / "a.parquet"))
    datasets.Dataset.from_list(rows[2:]).to_parquet(str(tmp_path / "b.parquet"))
    dd = gsm8k.load(gsm8k_data_files=[str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet")])
    assert dd["test"]["question"] == [r["question"] for r in rows]


def test_gsm8k_offline_fails_fast_naming_dataset_and_key(closed_hub, waits):
    with pytest.raises(BenchmarkDataError) as err:
        gsm8k.load(pretrained="x")
    assert waits == []  # no retry, no backoff: it failed at once
    message = str(err.value)
    assert "openai/gsm8k" in message and "gsm8k_data_files" in message and "--metadata" in message


def test_hub_offline_mode_without_cache_fails_fast(monkeypatch, tmp_path, waits):
    import datasets

    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path)
    with pytest.raises(BenchmarkDataError, match="gsm8k_data_files"):
        gsm8k.load()
    assert waits == []  # no retry, no backoff: it failed at once


def test_gpqa_offline_message_tells_how_to_get_access(closed_hub):
    with pytest.raises(BenchmarkDataError) as err:
        gpqa.load_main()
    message = str(err.value)
    assert "Idavidrein/gpqa" in message and "gpqa_main_data_files" in message
    assert "HF_TOKEN" in message and "huggingface-cli login" in message


def test_gated_answer_is_reported_as_access_problem(monkeypatch, closed_hub):
    """What the Hub answers a machine without access (the exception its client raises)."""
    from huggingface_hub import HfApi, errors, get_session

    url = "https://huggingface.co/api/datasets/Idavidrein/gpqa/auth-check"
    response = errors.Response(403, request=get_session().build_request("GET", url))

    def gated(*args, **kwargs):
        raise errors.GatedRepoError("Access to dataset Idavidrein/gpqa is restricted.", response=response)

    monkeypatch.setattr(HfApi, "dataset_info", lambda *a, **k: None)
    monkeypatch.setattr(HfApi, "auth_check", gated)
    with pytest.raises(BenchmarkDataError, match="is gated.*accept the terms"):
        gpqa.load_main()


def test_url_source_fails_fast_offline(monkeypatch, waits):
    monkeypatch.setattr(healthbench, "SOURCE", DataSource(benchmark="healthbench", url="http://127.0.0.1:9/hb.jsonl"))
    with pytest.raises(BenchmarkDataError) as err:
        healthbench.load()
    assert waits == []  # no retry, no backoff: it failed at once
    assert "healthbench_data_files" in str(err.value)


def test_missing_file_names_the_key(tmp_path):
    with pytest.raises(BenchmarkDataError, match="gsm8k_data_files=.*is not a file"):
        gsm8k.load(gsm8k_data_files=str(tmp_path / "nope.jsonl"))


def test_unsupported_extension(tmp_path):
    path = tmp_path / "data.txt"
    path.write_text("x")
    with pytest.raises(BenchmarkDataError, match="unsupported extension"):
        gsm8k.load(gsm8k_data_files=str(path))


def test_unreadable_file_is_a_data_error(tmp_path):
    path = tmp_path / "broken.jsonl"
    path.write_text('{"question": "a"\nnot json\n')
    with pytest.raises(BenchmarkDataError, match="cannot read"):
        gsm8k.load(gsm8k_data_files=str(path))


def test_source_without_any_origin_asks_for_the_key():
    with pytest.raises(BenchmarkDataError, match="conversations_data_files"):
        load_source(DataSource(benchmark="conversations"), {})
