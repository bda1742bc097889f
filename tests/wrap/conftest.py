"""The wrap tests use the pipeline tests' scripted model (tests/pipeline/scripted_lm.py)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pipeline"))

from scripted_lm import ScriptedLM, load_tokenizer  # noqa: E402


@pytest.fixture()
def scripted() -> Any:
    return ScriptedLM(load_tokenizer("smollm2"))
