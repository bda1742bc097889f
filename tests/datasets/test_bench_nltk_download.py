"""NLTK data as lm-eval's ifeval gets it: downloaded on first use when it may be, checked
and refused (or dropped) before generation when it may not.

The downloads go through NLTK's real ``Downloader`` reading a local index of the real
resource zips (``nltk_index.py``): no network, and the data starts out missing.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from nltk_index import nltk_home_fixture  # noqa: F401  (the nltk_home fixture)

from uta_tasks.datasets import BENCHMARKS, BenchmarkDataError, BenchmarkScorerError, nltk_data
from uta_tasks.datasets.ifbench import packaged_file
from uta_tasks.datasets.nltk_data import is_available

IFEVAL = BENCHMARKS["ifeval"]
IFBENCH = BENCHMARKS["ifbench"]
def ifeval_docs(data_dir: Path, **settings: str):
    return IFEVAL.load(ifeval_data_files=str(data_dir / "ifeval_sample.jsonl"), **settings)["test"]


def test_online_ifeval_downloads_punkt_tab_into_nltk_folder_and_scores(nltk_home, data_dir, caplog):
    caplog.set_level(logging.INFO, logger="uta_tasks.datasets")
    docs = ifeval_docs(data_dir)
    assert len(docs) == 8  # nothing dropped
    assert (nltk_home / "tokenizers" / "punkt_tab" / "english").is_dir()
    assert f"NLTK data 'punkt_tab' is missing; downloading it into {nltk_home}" in caplog.text
    # the verifier now reads the downloaded data: sentence counting needs punkt_tab
    scores = IFEVAL.score(docs[1], "One sentence here. And a second one, with a comma.")
    assert scores["inst_level_strict_acc"] == [True, False]


def test_data_already_present_is_not_downloaded_again(nltk_home, data_dir, caplog):
    ifeval_docs(data_dir)
    caplog.clear()
    caplog.set_level(logging.INFO, logger="uta_tasks.datasets")
    assert len(ifeval_docs(data_dir)) == 8
    assert "downloading" not in caplog.text


@pytest.mark.parametrize("offline", ["setting", "hf_hub_offline"])
def test_offline_refuses_before_generation_and_downloads_nothing(nltk_home, data_dir, monkeypatch, offline):
    import datasets

    settings = {}
    if offline == "setting":
        settings["nltk_download"] = "off"
    else:
        monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    with pytest.raises(BenchmarkScorerError) as err:
        ifeval_docs(data_dir, **settings)
    message = str(err.value)
    assert "punkt_tab" in message and "cannot be verified" in message
    assert ("nltk_download: off" if offline == "setting" else "HF_HUB_OFFLINE=1") in message
    assert "python -m nltk.downloader -d DIR punkt_tab" in message and "NLTK_DATA" in message
    assert "ifeval_unverifiable" in message and "llama-index" not in message
    assert not (nltk_home / "tokenizers").exists()


def test_offline_drop_policy_leaves_out_what_cannot_be_verified(nltk_home, data_dir, caplog):
    docs = ifeval_docs(data_dir, nltk_download="off", ifeval_unverifiable="drop")
    assert 0 < len(docs) < 8
    assert "not downloaded: downloads are off (nltk_download: off)" in caplog.text


def test_failed_download_gives_the_refusal_not_a_traceback(nltk_home, data_dir, monkeypatch):
    monkeypatch.setenv(nltk_data.INDEX_URL_ENV, (nltk_home / "_index" / "missing.xml").as_uri())
    with pytest.raises(BenchmarkScorerError) as err:
        ifeval_docs(data_dir)
    message = str(err.value)
    assert "Not downloaded: NLTK's index file://" in message and "missing.xml" in message
    assert "python -m nltk.downloader" in message


def test_ifbench_downloads_what_the_index_has_and_drops_the_rest(nltk_home, caplog):
    """The local index has no POS tagger: stopwords and punkt_tab arrive, the tagger's documents go."""
    caplog.set_level(logging.INFO, logger="uta_tasks.datasets")
    data = str(packaged_file())
    with pytest.raises(BenchmarkScorerError, match="averaged_perceptron_tagger_eng"):
        IFBENCH.load(ifbench_data_files=data)
    assert is_available("punkt_tab") and is_available("stopwords")
    assert not is_available("averaged_perceptron_tagger_eng")
    kept = IFBENCH.load(ifbench_data_files=data, ifbench_unverifiable="drop")["test"]
    assert 0 < len(kept) < 294
    assert "words:start_verb" in caplog.text


def test_a_bad_nltk_download_value_names_the_setting(data_dir):
    with pytest.raises(BenchmarkDataError, match="nltk_download='maybe'"):
        ifeval_docs(data_dir, nltk_download="maybe")
