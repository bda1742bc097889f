"""Items 3-5: what the cache may hold. Only a paid reply that stayed invalid is cached as
unjudged; outages and truncation are retried by the next run; verdicts record which
backend answered; a namespace separates caches of different backends."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

from fault_server import FaultServer

from uta_tasks.judge import JudgeItem, JudgeSettings, Verdict, judge_all
from uta_tasks.judge.cache import VerdictCache, cache_key


def cached_rows(path: str) -> int:
    with VerdictCache(path) as cache:
        return cache.count()


def test_outage_after_an_invalid_reply_is_not_cached(fault_server: FaultServer,
                                                     fault_settings: Callable[..., JudgeSettings],
                                                     items: Callable[..., list[JudgeItem]]) -> None:
    batch = items(3)
    fault_server.config.sequences = {batch[0].user_turn: ["malformed", "503", "503"]}
    settings = fault_settings(max_retries=2)
    first = judge_all(batch, settings)
    verdict = first.verdicts[0]
    assert not verdict.judged and "HTTP 503" in verdict.reason
    assert verdict.raw_reply is None  # the last attempt had no reply
    assert verdict.reason_code == "http_5xx"
    assert cached_rows(settings.cache) == 2
    fault_server.config.sequences = {}  # a healthy server
    fault_server.reset_counts()
    rerun = judge_all(batch, settings)
    assert rerun.calls == 1 and rerun.unjudged == 0


def test_invalid_reply_after_an_outage_is_cached(fault_server: FaultServer,
                                                 fault_settings: Callable[..., JudgeSettings],
                                                 items: Callable[..., list[JudgeItem]]) -> None:
    batch = items(2)
    fault_server.config.sequences = {batch[0].user_turn: ["503", "schema"]}
    settings = fault_settings(max_retries=1)
    first = judge_all(batch, settings)
    assert first.verdicts[0].reason_code == "invalid_reply" and first.verdicts[0].raw_reply
    fault_server.reset_counts()
    rerun = judge_all(batch, settings)
    assert rerun.calls == 0 and rerun.verdicts[0].cached and not rerun.verdicts[0].judged


def test_outages_cached_by_older_versions_are_judged_again(fault_server: FaultServer,
                                                           fault_settings: Callable[..., JudgeSettings],
                                                           items: Callable[..., list[JudgeItem]]) -> None:
    batch = items(2)
    settings = fault_settings()
    judge_all(batch, settings)
    first = judge_all(batch, settings)
    key = cache_key(settings.model, first.verdicts[0].prompt_version, first.verdicts[0].prompt_sha,
                    settings.temperature, settings.reasoning_effort, batch[0].fingerprint())
    legacy = first.verdicts[0].to_dict()
    for name in ("reason_code", "reply_model", "system_fingerprint"):
        legacy.pop(name, None)
    legacy.update(status="unjudged", label=None, genuine=None, rationale=None, raw_reply='{"rationale": "x',
                  reason="no valid reply after 3 attempt(s); last: HTTP 503: Service unavailable")
    with VerdictCache(settings.cache) as cache:
        cache.put(key, legacy)
    fault_server.reset_counts()
    rerun = judge_all(batch, settings)
    assert rerun.calls == 1 and rerun.verdicts[0].judged


def test_length_failure_is_not_retried_at_temperature_0_and_not_cached(
        fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings],
        items: Callable[..., list[JudgeItem]]) -> None:
    batch = items(2)
    fault_server.config.faults = {batch[0].user_turn: ("length", None)}
    settings = fault_settings(max_retries=3, max_tokens=64)
    first = judge_all(batch, settings)
    verdict = first.verdicts[0]
    assert not verdict.judged and verdict.reason_code == "length"
    assert "judge_max_tokens" in verdict.reason and "not retried" in verdict.reason
    assert first.per_item_usage[0].calls == 1
    # raising the limit, as the reason advises, asks again (nothing cached for the cut reply)
    fault_server.config.faults = {}
    fault_server.reset_counts()
    rerun = judge_all(batch, fault_settings(max_retries=3, max_tokens=512))
    assert rerun.calls == 1 and rerun.verdicts[0].judged


def test_length_failure_is_retried_when_sampling(fault_server: FaultServer,
                                                 fault_settings: Callable[..., JudgeSettings],
                                                 items: Callable[..., list[JudgeItem]]) -> None:
    batch = items(1)
    fault_server.config.faults = {batch[0].user_turn: ("length", None)}
    run = judge_all(batch, fault_settings(cache="none", max_retries=2, temperature=0.7))
    assert run.per_item_usage[0].calls == 3 and run.verdicts[0].reason_code == "length"


def test_verdicts_record_the_answering_model_and_fingerprint(fault_server: FaultServer,
                                                             fault_settings: Callable[..., JudgeSettings],
                                                             items: Callable[..., list[JudgeItem]]) -> None:
    fault_server.config.reply_model = "SmolLM2-1.7B-Instruct.Q8_0"
    fault_server.config.system_fingerprint = "b1234-cpu"
    settings = fault_settings()
    run = judge_all(items(2), settings)
    pairs = {(v.reply_model, v.system_fingerprint) for v in run.verdicts}
    assert pairs == {("SmolLM2-1.7B-Instruct.Q8_0", "b1234-cpu")}
    again = judge_all(items(2), settings)
    assert again.calls == 0 and again.verdicts[0].reply_model == "SmolLM2-1.7B-Instruct.Q8_0"
    old = {k: v for k, v in run.verdicts[0].to_dict().items() if k not in ("reply_model", "system_fingerprint")}
    assert Verdict.from_dict(old).reply_model is None  # verdicts written before still load


def test_cache_namespace_separates_backends(fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings],
                                            items: Callable[..., list[JudgeItem]], tmp_path: Path) -> None:
    batch = items(3)
    assert judge_all(batch, fault_settings(cache_namespace="llama-q4")).calls == 3
    assert judge_all(batch, fault_settings(cache_namespace="llama-q4")).calls == 0
    assert judge_all(batch, fault_settings(cache_namespace="vllm-fp16")).calls == 3
    assert judge_all(batch, fault_settings()).calls == 3  # no namespace: its own (pre-existing) keys
    key = cache_key("m", "v", "s", 0.0, None, batch[0].fingerprint())
    assert key == cache_key("m", "v", "s", 0.0, None, batch[0].fingerprint(), namespace=None)
    assert key != cache_key("m", "v", "s", 0.0, None, batch[0].fingerprint(), namespace="x")


def test_a_cache_file_written_by_the_previous_version_is_read_and_extended(tmp_path: Path) -> None:
    """Last round's file (its table, its WAL journal, its keys) is read as is by the sqlite store of this one."""
    key = cache_key("judge-m", "followupeval-v4", "abc123", 0.0, None, "f" * 64)
    # The keys of the previous version, for the same inputs: a changed key would make every cached verdict a miss.
    assert key == "3b0f90203a1e244963a5cb80471aa8d8dc789085b3892efff34da8266a0038d7"
    assert cache_key("judge-m", "followupeval-v4", "abc123", 0.0, None, "f" * 64, namespace="lab") == \
        "eb91bdf8220d37e96c664ee0d72578ec83fafed635e877497d50c172358bf032"
    old = {"judge_model": "judge-m", "prompt_version": "followupeval-v4", "prompt_sha": "abc123", "label": "other"}
    path = tmp_path / "judge.sqlite"
    with sqlite3.connect(path, isolation_level=None) as conn:  # as the previous version created and wrote it
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE verdicts (key TEXT PRIMARY KEY, judge_model TEXT NOT NULL, prompt_version TEXT "
                     "NOT NULL, prompt_sha TEXT NOT NULL, verdict TEXT NOT NULL, created REAL NOT NULL)")
        conn.execute("INSERT INTO verdicts VALUES (?, 'judge-m', 'followupeval-v4', 'abc123', ?, 1.0)",
                     (key, json.dumps(old)))
    conn.close()
    with VerdictCache(path) as cache:
        assert cache.get_many([key, "missing"]) == {key: old}
        cache.put("new", {**old, "cached": True})
        cache.check_writable()
        assert cache.count() == 2 and cache.get_many(["new"]) == {"new": old}
