"""judge_start_wait: the check before generation waits for a judge server that is still
starting (connection refused) instead of failing, bounded, and says so."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

import pytest

from uta_tasks.judge import JudgeConfigError, JudgeSettings, preflight
from uta_tasks.servers.llama_server import MODEL_ALIAS, free_port, llama_server


def _settings(port: int, tmp_path: Path, **extra: object) -> JudgeSettings:
    metadata = {"judge_base_url": f"http://127.0.0.1:{port}/v1", "judge_model": MODEL_ALIAS,
                "judge_cache": str(tmp_path / "judge.sqlite"), "judge_timeout": 60}
    metadata.update({f"judge_{key}": value for key, value in extra.items()})
    return JudgeSettings.from_metadata(metadata)


def test_without_a_wait_a_refused_connection_fails_at_once_and_names_the_setting(
        tmp_path: Path, waits: list[float]) -> None:
    with pytest.raises(JudgeConfigError, match="cannot be reached") as info:
        preflight(_settings(free_port(), tmp_path))
    assert "judge_start_wait=<seconds>" in str(info.value)
    assert waits == []


def test_the_wait_is_bounded_and_the_error_says_how_long_it_tried(tmp_path: Path, waits: list[float]) -> None:
    with pytest.raises(JudgeConfigError, match=r"after trying for \d+s \(judge_start_wait=2\.5\)") as info:
        preflight(_settings(free_port(), tmp_path, start_wait=2.5))
    assert "raise judge_start_wait" in str(info.value)
    assert waits and sum(waits) <= 2.5


@pytest.mark.slow
def test_a_real_server_started_during_the_wait_passes_the_check(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    port = free_port()
    failure: list[BaseException] = []

    def check() -> None:
        try:
            preflight(_settings(port, tmp_path, start_wait=300))
        except BaseException as exc:  # handed to the test thread
            failure.append(exc)

    caplog.set_level(logging.INFO, logger="uta_tasks.judge.preflight")
    checking = threading.Thread(target=check)
    checking.start()
    while "does not accept connections yet" not in caplog.text and checking.is_alive():
        time.sleep(0.1)
    assert checking.is_alive(), failure  # still waiting: nothing listens on the port yet
    with llama_server(port=port, parallel=1, ctx_size=2048):
        checking.join()
    assert failure == []
    assert "answers after" in caplog.text
