"""``uta_ifeval`` through lm-eval's evaluator on a machine without NLTK data: with a reachable
NLTK index it downloads ``punkt_tab`` and runs; offline it refuses before generating."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from pipeline_run import DATA, evaluate

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "datasets"))

from nltk_index import nltk_home_fixture  # noqa: E402, F401  (the nltk_home fixture)

META = {"judge": "none", "user_max_gen_toks": 16, "ifeval_data_files": str(DATA / "ifeval_sample.jsonl")}


def test_uta_ifeval_downloads_the_nltk_data_and_runs(scripted, nltk_home):
    results = evaluate(scripted, ["uta_ifeval"], limit=3, metadata=META)
    assert (nltk_home / "tokenizers" / "punkt_tab" / "english").is_dir()
    assert results["results"]["uta_ifeval"]["prompt_level_strict_acc,none"] is not None
    assert len(results["samples"]["uta_ifeval"]) == 3 and scripted.calls


def test_uta_ifeval_offline_refuses_before_generating(scripted, nltk_home):
    with pytest.raises(Exception, match="punkt_tab.*nltk_download: off"):
        evaluate(scripted, ["uta_ifeval"], limit=3, metadata={**META, "nltk_download": "off"})
    assert scripted.calls == []
    assert not (nltk_home / "tokenizers").exists()
