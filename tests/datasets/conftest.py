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
    """Point the Hugging Face Hub client at a closed loopback port: a machine with no network
    (online mode, although the suite runs with HF_HUB_OFFLINE=1)."""
    import datasets
    import huggingface_hub.constants

    endpoint = "http://127.0.0.1:9"
    monkeypatch.setattr(huggingface_hub.constants, "ENDPOINT", endpoint)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("HF_DATASETS_OFFLINE", raising=False)
    return endpoint
