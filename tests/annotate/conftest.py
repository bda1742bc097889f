"""Fixtures of the annotation tests: saved runs judged through the real judge path."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "judge"))

from fault_server import MODEL, FaultConfig, FaultServer  # noqa: E402


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for name in list(os.environ):
        if name.startswith("UTA_JUDGE") or name in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
            monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def judge_double() -> Iterator[FaultServer]:
    with FaultServer(FaultConfig()) as server:
        yield server


@pytest.fixture(scope="session")
def judge_meta(judge_double: FaultServer, tmp_path_factory: pytest.TempPathFactory) -> Callable[..., dict[str, Any]]:
    """Judge metadata for the fault double; the verdict cache is shared by the session (deterministic replies)."""
    cache = tmp_path_factory.mktemp("judge") / "judge.sqlite"

    def build(**overrides: Any) -> dict[str, Any]:
        return {"judge_base_url": judge_double.base_url, "judge_model": MODEL,
                "judge_cache": str(cache), "judge_max_retries": 0, **overrides}

    return build
