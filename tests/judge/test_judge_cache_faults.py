"""Item 2: a cache that cannot be written never aborts a run. The faults are real sqlite
errors: a lock held by another connection (with a tiny busy timeout), a full database
(``max_page_count``, sqlite's own SQLITE_FULL) and a read-only connection
(``query_only``, SQLITE_READONLY; root ignores file permissions, so chmod cannot)."""

from __future__ import annotations

import logging
import sqlite3
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fault_server import FaultServer, expected_verdict

from uta_tasks.judge import (
    JudgeConfigError,
    JudgeItem,
    JudgeSettings,
    judge_all,
    preflight,
)
from uta_tasks.judge import cache as cache_module
from uta_tasks.judge.cache import VerdictCache


@pytest.fixture
def tiny_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_module, "_BUSY_TIMEOUT_S", 0.05)


@pytest.fixture
def locked_cache(tmp_path: Path, tiny_busy_timeout: None) -> Iterator[Path]:
    """A cache file on which another connection holds an exclusive transaction."""
    path = tmp_path / "judge.sqlite"
    VerdictCache(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    yield path
    holder.execute("ROLLBACK")
    holder.close()


def _patched_connect(monkeypatch: pytest.MonkeyPatch, pragma: str) -> None:
    """Every new sqlite connection gets ``pragma`` after the cache created its table."""
    real_connect = sqlite3.connect

    class Connection(sqlite3.Connection):
        def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
            cursor = super().execute(sql, *args)
            if sql.strip().startswith("CREATE TABLE"):
                super().execute(pragma)
            return cursor

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        return real_connect(*args, factory=Connection, **kwargs)

    monkeypatch.setattr(cache_module.sqlite3, "connect", connect)


def _check_finished_run(run: Any, batch: list[JudgeItem], caplog: pytest.LogCaptureFixture, what: str) -> None:
    assert run.unjudged == 0 and run.not_persisted == len(batch)
    for item, verdict in zip(batch, run.verdicts):
        assert verdict.genuine == expected_verdict(item.user_turn)["genuine"]
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING and "judge_cache" in r.getMessage()]
    assert len(warnings) == 2, [r.getMessage() for r in warnings]  # once at the failure, once at the end
    assert what in warnings[0].getMessage()
    assert f"{len(batch)} verdict(s) were not persisted" in warnings[1].getMessage()


def test_locked_cache_warns_once_and_keeps_the_verdicts(locked_cache: Path, fault_server: FaultServer,
                                                        fault_settings: Callable[..., JudgeSettings],
                                                        items: Callable[..., list[JudgeItem]],
                                                        caplog: pytest.LogCaptureFixture) -> None:
    batch = items(6)
    run = judge_all(batch, fault_settings(cache=str(locked_cache)))
    _check_finished_run(run, batch, caplog, "database is locked")


def test_full_disk_warns_once_and_keeps_the_verdicts(fault_server: FaultServer,
                                                     fault_settings: Callable[..., JudgeSettings],
                                                     items: Callable[..., list[JudgeItem]],
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    _patched_connect(monkeypatch, "PRAGMA max_page_count=3")
    batch = items(5)
    run = judge_all(batch, fault_settings())
    _check_finished_run(run, batch, caplog, "full")


def test_read_only_cache_warns_once_and_keeps_the_verdicts(fault_server: FaultServer,
                                                           fault_settings: Callable[..., JudgeSettings],
                                                           items: Callable[..., list[JudgeItem]],
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    _patched_connect(monkeypatch, "PRAGMA query_only=ON")
    batch = items(4)
    run = judge_all(batch, fault_settings())
    _check_finished_run(run, batch, caplog, "readonly")


def test_cache_that_cannot_open_at_run_time_does_not_abort(fault_server: FaultServer,
                                                           fault_settings: Callable[..., JudgeSettings],
                                                           items: Callable[..., list[JudgeItem]],
                                                           tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache directory should be")
    batch = items(3)
    run = judge_all(batch, fault_settings(cache=str(blocker / "judge.sqlite")))
    assert run.unjudged == 0 and run.not_persisted == 3


def test_preflight_fails_on_an_unwritable_cache(locked_cache: Path, fault_server: FaultServer,
                                                fault_settings: Callable[..., JudgeSettings],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.modules["uta_tasks.judge.preflight"], "PREFLIGHT_TIMEOUT", 0.2)  # its busy timeout
    with pytest.raises(JudgeConfigError, match=r"judge_cache=.*not writable.*database is locked"):
        preflight(fault_settings(cache=str(locked_cache)))


def test_preflight_warns_about_a_cache_on_nfs(fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings],
                                             monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                             caplog: pytest.LogCaptureFixture) -> None:
    shared = tmp_path / "shared"
    mounts = tmp_path / "mounts"
    mounts.write_text(f"/dev/sda1 / ext4 rw 0 0\nfiler:/export {shared} nfs4 rw,vers=4.2 0 0\n")
    monkeypatch.setattr(cache_module, "MOUNTS", str(mounts))
    assert cache_module.filesystem_type(shared / "judge.sqlite") == "nfs4"
    assert cache_module.filesystem_type(tmp_path / "judge.sqlite") == "ext4"
    caplog.set_level(logging.WARNING)
    preflight(fault_settings(cache=str(tmp_path / "local.sqlite")))
    assert "nfs4" not in caplog.text
    preflight(fault_settings(cache=str(shared / "judge.sqlite")))
    assert "nfs4 file system" in caplog.text and "local disk" in caplog.text


def test_preflight_fails_on_a_read_only_cache_and_leaves_no_probe_row(fault_server: FaultServer,
                                                                      fault_settings: Callable[..., JudgeSettings],
                                                                      monkeypatch: pytest.MonkeyPatch,
                                                                      tmp_path: Path) -> None:
    settings = fault_settings()
    preflight(settings)
    with VerdictCache(settings.cache) as cache:
        assert cache.count() == 0  # the probe row was written and deleted
    _patched_connect(monkeypatch, "PRAGMA query_only=ON")
    with pytest.raises(JudgeConfigError, match=r"judge_cache=.*not writable"):
        preflight(settings)
