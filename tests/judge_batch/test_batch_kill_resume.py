"""Kill a batch run (SIGKILL) in the middle, rerun: the same batches are resumed, no item
is submitted twice, and every verdict lands in the cache."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from fake_batch_api import FakeBatchAPI
from fault_server import expected_verdict
from sample_items import REPO_ROOT, make_items

from uta_tasks.apps.batch import BatchOptions, judge_batch
from uta_tasks.judge import JudgeSettings, judge_all

_RUNNER = """
import json, sys
sys.path.insert(0, sys.argv[3])
from sample_items import make_items
from uta_tasks.judge import JudgeSettings
from uta_tasks.apps.batch import BatchOptions, judge_batch
options = BatchOptions(max_requests=4, poll_interval=0.02, max_wait=60, quiet=True)
judge_batch(make_items(int(sys.argv[2])), JudgeSettings.from_metadata(json.loads(sys.argv[1])), options)
"""
COUNT = 10  # three files of 4, 4 and 2 requests


def _spawn(metadata: dict) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    judge_tests = str(Path(__file__).resolve().parents[1] / "judge")
    return subprocess.Popen(
        [sys.executable, "-c", _RUNNER, json.dumps(metadata), str(COUNT), judge_tests],
        cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def _kill(process: subprocess.Popen) -> None:
    os.kill(process.pid, signal.SIGKILL)
    process.communicate(timeout=30)
    assert process.returncode == -signal.SIGKILL


def _chunk_states(cache: Path) -> list[tuple[str, str | None]]:
    with sqlite3.connect(cache, timeout=30) as conn:
        return conn.execute("SELECT state, batch_id FROM batch_chunks ORDER BY created, rowid").fetchall()


def _finish_and_check(fake_api: FakeBatchAPI, metadata: dict) -> None:
    settings = JudgeSettings.from_metadata(metadata)
    items = make_items(COUNT)
    rerun = judge_batch(items, settings, BatchOptions(max_requests=4, poll_interval=0.02, max_wait=60, quiet=True))
    assert len(fake_api.batches) == 3, "a batch was created twice"
    assert len(fake_api.submitted_ids) == len(set(fake_api.submitted_ids)) == COUNT, "an item was submitted twice"
    assert rerun.unjudged == 0 and fake_api.chat_calls == 0
    for item, verdict in zip(items, rerun.verdicts, strict=True):
        assert verdict.genuine == expected_verdict(item.user_turn)["genuine"]
    assert judge_all(items, settings).calls == 0  # every verdict is in the live judge's cache
    assert [state for state, _ in _chunk_states(Path(metadata["judge_cache"]))] == ["collected"] * 3


def test_killed_between_remote_create_and_local_record(fake_api: FakeBatchAPI, batch_metadata) -> None:
    """The second batch exists on the server but its id never reached the database."""
    metadata = batch_metadata()
    fake_api.config.hold_create_at = 2
    process = _spawn(metadata)
    try:
        assert fake_api.wait_holding(60), process.stderr.read() if process.poll() is not None else "no create"
    finally:
        _kill(process)
    fake_api.release()
    assert len(fake_api.batches) == 2
    assert _chunk_states(Path(metadata["judge_cache"])) == [("submitted", "batch_0001"), ("uploaded", None)]
    fake_api.config.hold_create_at = None
    _finish_and_check(fake_api, metadata)
    assert fake_api.create_calls == 3 and fake_api.uploads == 3


def test_killed_while_polling(fake_api: FakeBatchAPI, batch_metadata) -> None:
    metadata = batch_metadata()
    fake_api.config.step = 1  # slow batches: the run is still polling when killed
    process = _spawn(metadata)
    deadline = time.monotonic() + 60
    while len(fake_api.batches) < 3 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.02)
    time.sleep(0.2)
    _kill(process)
    states = _chunk_states(Path(metadata["judge_cache"]))
    assert len(states) == 3 and all(batch_id for _, batch_id in states)
    fake_api.config.step = 1000
    _finish_and_check(fake_api, metadata)
    assert fake_api.create_calls == 3
