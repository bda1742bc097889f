"""Backoff, Retry-After, redaction, parameter dropping and the sqlite cache (no servers)."""

from __future__ import annotations

import subprocess
import sys
import time
from email.utils import formatdate
from pathlib import Path

import pytest

from uta_tasks.judge import JudgeItem, JudgeSettings, Verdict
from uta_tasks.judge.backoff import RETRY_AFTER_CAP, backoff_delay, retry_after_seconds
from uta_tasks.judge.cache import VerdictCache, cache_key
from uta_tasks.judge.params import RequestParams
from uta_tasks.judge.redact import redact


def test_backoff_grows_is_capped_and_deterministic() -> None:
    delays = [backoff_delay(n, 1.0, 8.0, "item") for n in range(1, 7)]
    assert delays == [backoff_delay(n, 1.0, 8.0, "item") for n in range(1, 7)]
    for n, delay in enumerate(delays, start=1):
        nominal = min(8.0, 2 ** (n - 1))
        assert 0.5 * nominal <= delay < nominal
    assert backoff_delay(3, 1.0, 8.0, "a") != backoff_delay(3, 1.0, 8.0, "b")  # jitter spreads items


def test_retry_after_forms() -> None:
    assert retry_after_seconds({"retry-after": "2"}) == 2.0
    assert retry_after_seconds({"retry-after-ms": "250"}) == 0.25
    assert retry_after_seconds({"retry-after": "99999"}) == RETRY_AFTER_CAP
    now = time.time()
    assert retry_after_seconds({"retry-after": formatdate(now + 30, usegmt=True)}, now=now) == pytest.approx(30, abs=1)
    assert retry_after_seconds({"retry-after": "soon"}) is None
    assert retry_after_seconds({}) is None


def test_redact_removes_the_key_and_key_like_strings() -> None:
    key = "sk-test-abcdefghijklmnop1234"
    text = f"Incorrect API key provided: {key}; also sk-proj-****************wxyz and Bearer {key}"
    cleaned = redact(text, key)
    assert key not in cleaned and "wxyz" not in cleaned and "abcdefgh" not in cleaned
    assert redact("no secrets here", None) == "no secrets here"


def test_params_drop_rejected_temperature_and_switch_token_limit() -> None:
    params = RequestParams(JudgeSettings(temperature=0.0, reasoning_effort="low", max_tokens=99))
    first = params.build([{"role": "user", "content": "x"}])
    assert first["temperature"] == 0.0 and first["max_completion_tokens"] == 99
    assert first["reasoning_effort"] == "low" and first["response_format"]["type"] == "json_schema"
    assert not params.adjust(None, "Invalid request: messages too long", first)
    assert not params.adjust("top_p", "Unsupported parameter: 'top_p'", first)
    assert params.adjust("temperature", "Unsupported value: 'temperature' does not support 0 with this model.", first)
    assert params.adjust(None, "Unrecognized request argument supplied: max_completion_tokens", first)
    assert params.adjust(None, "reasoning_effort is not supported for this model", first)
    second = params.build([{"role": "user", "content": "x"}])
    assert "temperature" not in second and "reasoning_effort" not in second
    assert second["max_tokens"] == 99 and "max_completion_tokens" not in second
    # a late rejection of the old request (sent concurrently) still says "send again"
    assert params.adjust("temperature", "Unsupported value: 'temperature'", first)
    # a request without the parameter cannot have been rejected for it
    assert not params.adjust("temperature", "Unsupported value: 'temperature'", second)
    assert params.adjustments == ["dropped reasoning_effort", "dropped temperature", "token_param:max_completion_tokens"]
    # switching back once when the old name is rejected too, then no more
    assert params.adjust("max_tokens", "Unsupported parameter: 'max_tokens'", second)
    assert params.build([])["max_completion_tokens"] == 99
    assert not params.adjust("max_completion_tokens", "Unsupported parameter", params.build([]))


def _verdict(label: str = "plausible_followup") -> Verdict:
    return Verdict(status="judged", label=label, genuine=True, rationale="r", reason=None, raw_reply="{}",
                   prompt=[{"role": "user", "content": "p"}], judge_model="m", prompt_version="v", prompt_sha="s")


def test_cache_roundtrip_and_key_components(tmp_path: Path) -> None:
    item = JudgeItem(context=(("user", "q"), ("assistant", "a")), user_turn="u")
    key = cache_key("m", "v", "s", 0.0, None, item.fingerprint())
    assert key != cache_key("m2", "v", "s", 0.0, None, item.fingerprint())
    assert key != cache_key("m", "v2", "s", 0.0, None, item.fingerprint())
    assert key != cache_key("m", "v", "s2", 0.0, None, item.fingerprint())
    assert key != cache_key("m", "v", "s", None, None, item.fingerprint())
    other = JudgeItem(context=(("user", "q"), ("assistant", "a ")), user_turn="u")
    assert key != cache_key("m", "v", "s", 0.0, None, other.fingerprint())
    with VerdictCache(tmp_path / "sub" / "c.sqlite") as cache:
        cache.put(key, _verdict().to_dict())
        assert cache.count() == 1
    with VerdictCache(tmp_path / "sub" / "c.sqlite") as cache:
        stored = cache.get_many([key, "missing"])
    assert list(stored) == [key]
    assert Verdict.from_dict(stored[key]) == _verdict()


_WRITER = """
import sys
from uta_tasks.judge.cache import VerdictCache
from uta_tasks.judge import Verdict
path, who = sys.argv[1], sys.argv[2]
with VerdictCache(path) as cache:
    for n in range(150):
        v = Verdict(status="judged", label="other", genuine=False, rationale=who, reason=None, raw_reply=None,
                    prompt=[], judge_model="m", prompt_version="v")
        cache.put(f"{who}-{n}", v.to_dict())
        cache.put("shared", v.to_dict())
"""


def test_cache_is_safe_for_concurrent_writer_processes(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite"
    VerdictCache(path).close()
    root = str(Path(__file__).resolve().parents[2])
    writers = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(path), name], cwd=root,
                         stderr=subprocess.PIPE, text=True, env={"PYTHONPATH": root, "PATH": "/usr/bin:/bin"})
        for name in ("a", "b", "c")
    ]
    for writer in writers:
        _, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err
    with VerdictCache(path) as cache:
        assert cache.count() == 3 * 150 + 1
