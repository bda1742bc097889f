"""Fixtures for the judge tests: items, settings, the fault double, the real llama-server."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fault_server import MODEL, FaultConfig, FaultServer  # noqa: E402
from sample_items import make_items  # noqa: E402

from uta_tasks.judge import JudgeItem, JudgeSettings  # noqa: E402


@pytest.fixture
def items() -> Callable[..., list[JudgeItem]]:
    return make_items




@pytest.fixture
def fault_server() -> Iterator[FaultServer]:
    with FaultServer(FaultConfig()) as server:
        yield server


@pytest.fixture
def fault_settings(fault_server: FaultServer, tmp_path: Path) -> Callable[..., JudgeSettings]:
    """Settings pointing at the double, with fast backoff; override any key."""

    def build(**overrides: Any) -> JudgeSettings:
        metadata: dict[str, Any] = {
            "judge_base_url": fault_server.base_url,
            "judge_model": MODEL,
            "judge_cache": str(tmp_path / "judge.sqlite"),
            "judge_concurrency": 4,
            "judge_timeout": 5,
            "judge_max_retries": 3,
            "judge_backoff_base": 0.01,
            "judge_backoff_max": 0.05,
            "judge_max_tokens": 256,
            "judge_rate_limit_wait": 0,  # 429s count as failures here; tests of rate limiting set it
        }
        metadata.update({key if key.startswith("judge") else f"judge_{key}": value for key, value in overrides.items()})
        return JudgeSettings.from_metadata(metadata)

    return build
