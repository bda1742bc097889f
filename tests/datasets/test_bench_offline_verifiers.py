"""The offline handling of the verifiers changes nothing but the network access."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import nltk
import pytest

from uta_tasks.datasets import nltk_data
from uta_tasks.datasets.nltk_data import RESOURCE_PATHS, bundle_dir, offline_nltk, required_resources
from uta_tasks.datasets.verifiers import ifbench_evaluation_lib, ifbench_registry, ifeval_registry


def ifbench_source(name: str) -> str:
    spec = importlib.util.find_spec("ifbench")
    return (Path(next(iter(spec.submodule_search_locations))) / name).read_text()


def test_spacy_is_only_imported_and_downloaded_never_used():
    lines = [line.strip() for line in ifbench_source("instructions.py").splitlines() if "spacy" in line or "download(" in line and "nltk" not in line]
    assert lines == ["from spacy.cli import download", "download('en_core_web_sm')"]


def test_ifbench_import_leaves_no_fake_spacy_behind():
    ifbench_evaluation_lib()
    spacy = sys.modules.get("spacy")
    assert spacy is None or getattr(spacy, "__file__", None) is not None


def test_nltk_download_is_offline_only_inside_the_context():
    original = nltk.download
    with offline_nltk():
        assert nltk.download is not original
        assert nltk.download("punkt_tab", quiet=True) is True
        assert nltk.download("no_such_package", quiet=True) is False
    assert nltk.download is original


@pytest.mark.skipif(bundle_dir() is None, reason="llama-index-core is not installed")
def test_bundled_data_is_found_after_nltk_own_paths():
    nltk_data.add_data_path()
    assert nltk.data.path[-1] == str(bundle_dir()) or str(bundle_dir()) in nltk.data.path
    assert nltk_data.is_available("punkt_tab") and nltk_data.is_available("stopwords")
    assert nltk_data.is_available("punkt")  # served from punkt_tab by NLTK >= 3.9
    assert len(nltk.corpus.stopwords.words("english")) > 100


def test_required_resources_read_from_verifier_source():
    ifbench = ifbench_registry()
    assert required_resources(ifbench["words:start_verb"]) >= {"averaged_perceptron_tagger_eng"}
    assert required_resources(ifbench["ratio:stop_words"]) == {"stopwords"}
    assert required_resources(ifbench["format:emoji"]) == set()
    ifeval = ifeval_registry()
    assert required_resources(ifeval["length_constraints:number_sentences"]) == {"punkt_tab"}
    assert required_resources(ifeval["punctuation:no_comma"]) == set()


def test_every_resource_a_verifier_downloads_is_known():
    """Each nltk.download(...) in the verifiers names a resource this module can check."""
    names = set(re.findall(r"nltk\.download\(['\"]([a-z_]+)['\"]", ifbench_source("instructions.py") + ifbench_source("instructions_util.py")))
    known = set(RESOURCE_PATHS) | {"punkt"}
    assert names and names <= known
