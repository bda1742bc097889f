"""judge_start_wait: the check before generation waits for a judge server that is still
starting (connection refused, then a slow first completion) instead of failing, bounded by
that one setting, and says what it waits for."""

from __future__ import annotations

import importlib
import logging
import threading
import time
from pathlib import Path

import pytest
from fault_server import MODEL as FAULT_MODEL
from fault_server import FaultConfig, FaultServer

from uta_tasks.judge import JudgeConfigError, JudgeSettings, preflight
from uta_tasks.servers.llama_server import MODEL_ALIAS, free_port, llama_server

preflight_module = importlib.import_module("uta_tasks.judge.preflight")  # the package exports the function


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


def _slow_first_completion(release: threading.Event) -> FaultServer:
    """A real HTTP server on 127.0.0.1 that lists its model at once but holds its first chat
    completion until ``release`` is set (a cold judge on a busy machine)."""

    def hold(count: int) -> None:
        if count == 1:
            release.wait(timeout=600)

    return FaultServer(FaultConfig(on_chat=hold))


def _check_in_thread(settings: JudgeSettings) -> tuple[threading.Thread, list[BaseException]]:
    failure: list[BaseException] = []

    def check() -> None:
        try:
            preflight(settings)
        except BaseException as exc:  # handed to the test thread
            failure.append(exc)

    thread = threading.Thread(target=check)
    thread.start()
    return thread, failure


def _fault_settings(server: FaultServer, tmp_path: Path, **extra: object) -> JudgeSettings:
    metadata = {"judge_base_url": server.base_url, "judge_model": FAULT_MODEL,
                "judge_cache": str(tmp_path / "judge.sqlite"), "judge_timeout": 0.5}
    metadata.update({f"judge_{key}": value for key, value in extra.items()})
    return JudgeSettings.from_metadata(metadata)


def test_a_started_judge_is_waited_for_until_it_answers_its_first_completion(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    # the per-request bound made short, so that holding the answer 4x longer shows it is not applied
    monkeypatch.setattr(preflight_module, "PREFLIGHT_TIMEOUT", 0.5)
    caplog.set_level(logging.INFO, logger="uta_tasks.judge.preflight")
    release = threading.Event()
    with _slow_first_completion(release) as server:
        checking, failure = _check_in_thread(_fault_settings(server, tmp_path, start_wait=300))
        while "waiting up to" not in caplog.text and checking.is_alive():
            time.sleep(0.05)
        time.sleep(2.0)  # the completion is held 4x the request bound of a server not being waited for
        assert checking.is_alive(), failure
        release.set()
        checking.join()
    assert failure == []
    assert "for the first completion of judge" in caplog.text and "judge_start_wait=300" in caplog.text
    assert "answered a completion after" in caplog.text


def test_without_a_start_wait_a_slow_first_completion_still_fails_at_the_request_bound(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(preflight_module, "PREFLIGHT_TIMEOUT", 0.5)
    release = threading.Event()
    with _slow_first_completion(release) as server:
        try:
            with pytest.raises(JudgeConfigError, match=r"timed out within 0\.5s"):
                preflight(_fault_settings(server, tmp_path))
        finally:
            release.set()
