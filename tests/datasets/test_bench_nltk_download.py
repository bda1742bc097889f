"""NLTK data as lm-eval's ifeval gets it: downloaded on first use when it may be, checked
and refused (or dropped) before generation when it may not.

The downloads go through NLTK's real ``Downloader`` reading a local index of the real
resource zips (``punkt_tab.zip`` and ``stopwords.zip`` as ``llama-index-core`` ships them
from nltk_data), named by NLTK's own ``NLTK_DOWNLOAD_URL``: no network. NLTK refuses
loopback HTTP, so the index is a ``file://`` URL under NLTK's data folder, which NLTK
accepts. The bundled copy is hidden, so the data starts out missing.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
import zipfile
from pathlib import Path
from xml.sax.saxutils import quoteattr

import pytest

from uta_tasks.datasets import BENCHMARKS, BenchmarkDataError, BenchmarkScorerError, nltk_data
from uta_tasks.datasets.ifbench import packaged_file
from uta_tasks.datasets.nltk_data import RESOURCE_PATHS, bundle_dir, is_available

IFEVAL = BENCHMARKS["ifeval"]
IFBENCH = BENCHMARKS["ifbench"]
# NLTK package id -> its subdir in nltk_data; the real zips the bundle carries.
SHIPPED = {"punkt_tab": "tokenizers", "stopwords": "corpora"}


def write_index(server: Path, packages: dict[str, str]) -> Path:
    """An NLTK index (index.xml, the format of nltk_data's gh-pages) listing real zips.

    Args:
        server: folder for index.xml and packages/<subdir>/<id>.zip.
        packages: package id -> subdir, each copied from the bundled nltk_data.
    """
    source = bundle_dir()
    assert source is not None, "llama-index-core (the real nltk_data zips) is not installed"
    entries = []
    for package, subdir in packages.items():
        archive = server / "packages" / subdir / f"{package}.zip"
        archive.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / subdir / f"{package}.zip", archive)
        data = archive.read_bytes()
        with zipfile.ZipFile(archive) as zipped:
            unzipped = sum(info.file_size for info in zipped.infolist())
        attributes = {
            "id": package, "name": package, "subdir": subdir, "unzip": "1", "url": archive.as_uri(),
            "size": str(len(data)), "unzipped_size": str(unzipped), "checksum": hashlib.md5(data).hexdigest(),
        }
        entries.append("<package " + " ".join(f"{k}={quoteattr(v)}" for k, v in attributes.items()) + " />")
    index = server / "index.xml"
    index.write_text(
        '<?xml version="1.0"?>\n<nltk_data>\n<packages>\n' + "\n".join(entries) + "\n</packages>\n"
        "<collections>\n</collections>\n</nltk_data>\n",
        encoding="utf-8",
    )
    return index


@pytest.fixture
def nltk_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An online machine with no NLTK data: NLTK's only data folder is empty, the bundled
    copy is hidden, HF_HUB_OFFLINE is unset, and NLTK_DOWNLOAD_URL names a local index
    (inside the data folder, where NLTK allows file:// reads) of punkt_tab and stopwords."""
    import datasets
    import nltk

    home = tmp_path / "nltk_data"
    home.mkdir()
    monkeypatch.setattr(nltk.data, "path", [str(home)])
    monkeypatch.setenv("NLTK_DATA", str(home))
    index = write_index(home / "_index", SHIPPED)  # copied while the bundle is still visible
    monkeypatch.setattr(nltk_data, "BUNDLE_DISTRIBUTION", "no-such-distribution")
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv(nltk_data.INDEX_URL_ENV, index.as_uri())
    assert not any(is_available(name) for name in RESOURCE_PATHS)
    return home


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
    assert "Not downloaded: downloading 'punkt_tab' from file://" in message and "missing.xml" in message
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
