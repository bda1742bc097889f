"""Fast pipeline tests: real lm-eval evaluator, real tokenizer, scripted model."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "judge"))

from scripted_lm import ScriptedLM, load_tokenizer  # noqa: E402


@pytest.fixture(scope="session")
def tokenizer() -> Any:
    return load_tokenizer("smollm2")


@pytest.fixture()
def scripted(tokenizer: Any) -> ScriptedLM:
    return ScriptedLM(tokenizer)


@pytest.fixture()
def judge_server() -> Iterator[Any]:
    """The scripted OpenAI-compatible judge on 127.0.0.1 (genuine iff u contains '?')."""
    from fault_server import FaultServer

    with FaultServer() as server:
        yield server
