"""Fixtures of the benchmark tests: data files in each benchmark's real schema."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "fixtures" / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """tests/fixtures/data."""
    return DATA


@pytest.fixture
def closed_hub(monkeypatch: pytest.MonkeyPatch) -> str:
    """Point the Hugging Face Hub client at a closed loopback port: a machine with no network."""
    import huggingface_hub.constants

    endpoint = "http://127.0.0.1:9"
    monkeypatch.setattr(huggingface_hub.constants, "ENDPOINT", endpoint)
    return endpoint
