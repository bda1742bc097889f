"""Fixtures of the batch-mode tests: the fake Files/Batches API and settings pointing at it."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "judge"))

from fake_batch_api import FakeBatchAPI, FakeConfig  # noqa: E402
from fault_server import MODEL  # noqa: E402

from uta_tasks.judge import JudgeSettings  # noqa: E402


@pytest.fixture
def fake_api() -> Iterator[FakeBatchAPI]:
    with FakeBatchAPI(FakeConfig()) as api:
        yield api


@pytest.fixture
def batch_metadata(fake_api: FakeBatchAPI, tmp_path: Path) -> Callable[..., dict[str, Any]]:
    """Judge metadata pointing at the fake, with a fresh cache; override any key."""

    def build(**overrides: Any) -> dict[str, Any]:
        metadata: dict[str, Any] = {
            "judge_base_url": fake_api.base_url,
            "judge_model": MODEL,
            "judge_cache": str(tmp_path / "judge.sqlite"),
            "judge_timeout": 10,
            "judge_max_retries": 1,
            "judge_backoff_base": 0.01,
            "judge_backoff_max": 0.05,
            "judge_max_tokens": 256,
        }
        metadata.update(overrides)
        return metadata

    return build


@pytest.fixture
def batch_settings(batch_metadata: Callable[..., dict[str, Any]]) -> Callable[..., JudgeSettings]:
    def build(**overrides: Any) -> JudgeSettings:
        return JudgeSettings.from_metadata(batch_metadata(**overrides))

    return build
