"""A run killed with SIGKILL loses nothing paid for; the API key lands nowhere."""

from __future__ import annotations

import json
import logging
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from fault_server import MODEL, FaultServer, expected_verdict
from sample_items import REPO_ROOT, make_items

from uta_tasks.judge import (
    JudgeConfigError,
    JudgeItem,
    JudgeSettings,
    judge_all,
    preflight,
)

pytestmark = pytest.mark.slow

_RUNNER = """
import json, logging, sys
sys.path.insert(0, sys.argv[3])
logging.basicConfig(level=logging.DEBUG)
from sample_items import make_items
from uta_tasks.judge import JudgeSettings, judge_all
run = judge_all(make_items(int(sys.argv[2])), JudgeSettings.from_metadata(json.loads(sys.argv[1])))
print(json.dumps(run.usage()))
"""


def _spawn(metadata: dict, count: int, env: dict[str, str] | None = None) -> subprocess.Popen:
    full_env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), **(env or {})}
    return subprocess.Popen(
        [sys.executable, "-c", _RUNNER, json.dumps(metadata), str(count), str(Path(__file__).parent)],
        cwd=REPO_ROOT, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def _rows(path: Path) -> int:
    if not path.exists():
        return 0
    with sqlite3.connect(path, timeout=30) as conn:
        try:
            return int(conn.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0])
        except sqlite3.OperationalError:
            return 0


def test_sigkill_mid_run_then_rerun_pays_only_for_the_rest(fault_server: FaultServer, tmp_path: Path) -> None:
    count, concurrency = 40, 2
    cache = tmp_path / "judge.sqlite"
    metadata = {"judge_base_url": fault_server.base_url, "judge_model": MODEL, "judge_cache": str(cache),
                "judge_concurrency": concurrency, "judge_concurrency_max": concurrency, "judge_max_retries": 0}
    fault_server.config.delay = 0.1
    process = _spawn(metadata, count)
    deadline = time.monotonic() + 60
    while _rows(cache) < 10 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.communicate(timeout=30)
    assert process.returncode == -signal.SIGKILL
    saved = _rows(cache)
    paid_before = len(fault_server.chat_requests())
    assert 10 <= saved < count
    assert paid_before - saved <= concurrency  # at most the requests in flight were lost

    fault_server.config.delay = 0.0
    fault_server.reset_counts()
    settings = JudgeSettings.from_metadata(metadata)
    rerun = judge_all(make_items(count), settings)
    assert rerun.calls == count - saved == len(fault_server.chat_requests())
    assert rerun.cache_hits == saved and rerun.unjudged == 0
    for item, verdict in zip(make_items(count), rerun.verdicts):
        assert verdict.genuine == expected_verdict(item.user_turn)["genuine"]
    assert judge_all(make_items(count), settings).calls == 0


SECRET = "sk-test-NEVER-LOG-THIS-7f3a9c2e1b"


def test_api_key_never_lands_in_cache_logs_results_or_errors(
        fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings], items: Callable[..., list[JudgeItem]],
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    caplog.set_level(logging.DEBUG)  # everything, including openai's and httpx's debug logs
    batch = items(6)
    fault_server.config.faults = {batch[0].user_turn: ("401", None), batch[1].user_turn: ("429", 1),
                                  batch[2].user_turn: ("500", None)}
    settings = fault_settings(max_retries=1, api_key_env="OPENAI_API_KEY")  # named: sent to this endpoint
    preflight(settings)
    run = judge_all(batch, settings)
    assert fault_server.chat_requests()[0].authorization == f"Bearer {SECRET}"  # the key was really sent
    assert run.verdicts[0].reason and "Incorrect API key provided" in run.verdicts[0].reason
    assert run.unjudged == 2

    fault_server.config.reject_all_with_401 = True
    with pytest.raises(JudgeConfigError) as refused:
        preflight(settings)
    assert "OPENAI_API_KEY" in str(refused.value)

    process = _spawn({"judge_base_url": fault_server.base_url, "judge_model": MODEL,
                      "judge_api_key_env": "OPENAI_API_KEY", "judge_cache": str(tmp_path / "sub.sqlite"),
                      "judge_max_retries": 0}, 3,
                     env={"OPENAI_API_KEY": SECRET})
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert "DEBUG" in err  # the subprocess really logged at debug level

    places = {
        "cache file": b"".join(p.read_bytes() for p in tmp_path.glob("judge.sqlite*")),
        "subprocess cache": b"".join(p.read_bytes() for p in tmp_path.glob("sub.sqlite*")),
        "logs": caplog.text.encode(),
        "subprocess output": (out + err).encode(),
        "verdicts": json.dumps([v.to_dict() for v in run.verdicts]).encode(),
        "settings": json.dumps(settings.describe()).encode(),
        "preflight error": str(refused.value).encode() + repr(refused.value.__cause__).encode(),
    }
    for where, data in places.items():
        assert SECRET.encode() not in data, where
        assert b"NEVER-LOG-THIS" not in data, where
    assert len(places["cache file"]) > 0


def test_preflight_catches_setup_errors_in_seconds(fault_server: FaultServer,
                                                    fault_settings: Callable[..., JudgeSettings],
                                                    waits: list[float]) -> None:
    preflight(fault_settings())
    with pytest.raises(JudgeConfigError, match="judge_model='gpt-nope'.*fault-judge"):
        preflight(fault_settings(model="gpt-nope"))
    fault_server.config.list_models = False  # a server that does not list models: probe with a completion
    preflight(fault_settings())
    with pytest.raises(JudgeConfigError, match="judge_model"):
        preflight(fault_settings(model="gpt-nope"))

    from uta_tasks.servers.llama_server import free_port

    with pytest.raises(JudgeConfigError, match="judge_base_url='http://127.0.0.1:.*cannot be reached"):
        preflight(fault_settings(base_url=f"http://127.0.0.1:{free_port()}/v1"))
    assert waits == []  # refused at once: no retry, no wait for a server to start

    with pytest.raises(JudgeConfigError, match=r"\$OPENAI_API_KEY is not set"):
        preflight(JudgeSettings.from_metadata({"judge_cache": "none"}))  # OpenAI API, no key: no request made
    with pytest.raises(JudgeConfigError, match="judge_cache"):
        preflight(fault_settings(cache="/proc/no-such-dir/judge.sqlite"))
    preflight(JudgeSettings.from_metadata({"judge": "none"}))  # nothing to check
