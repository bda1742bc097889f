"""A machine with no NLTK data and a reachable NLTK index, without network.

NLTK's real ``Downloader`` reads a local index (``index.xml`` in the format of nltk_data's
gh-pages) of the real resource zips: ``punkt_tab.zip`` and ``stopwords.zip`` as
``llama-index-core`` ships them from nltk_data. NLTK's own ``NLTK_DOWNLOAD_URL`` names the
index. NLTK refuses loopback HTTP, so the index is a ``file://`` URL under NLTK's data
folder, which NLTK accepts. The bundled copy is hidden, so the data starts out missing.
"""

from __future__ import annotations

import hashlib
import shutil
import zipfile
from pathlib import Path
from xml.sax.saxutils import quoteattr

import pytest

from uta_tasks.datasets import nltk_data
from uta_tasks.datasets.nltk_data import RESOURCE_PATHS, bundle_dir, is_available

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
            "sha256_checksum": hashlib.sha256(data).hexdigest(),
        }
        entries.append("<package " + " ".join(f"{k}={quoteattr(v)}" for k, v in attributes.items()) + " />")
    index = server / "index.xml"
    index.write_text(
        '<?xml version="1.0"?>\n<nltk_data>\n<packages>\n' + "\n".join(entries) + "\n</packages>\n"
        "<collections>\n</collections>\n</nltk_data>\n",
        encoding="utf-8",
    )
    return index


@pytest.fixture(name="nltk_home")
def nltk_home_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
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


