"""Items 11-12: a per-run summary, a ceiling on the unjudged share, and the bookkeeping
fixes (dedup vs cache hits, Retry-After dates in -0000)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from email.utils import formatdate

import pytest
from fault_server import FaultServer

from uta_tasks.judge import JudgeItem, JudgeSettings, judge_all
from uta_tasks.judge.backoff import retry_after_seconds
from uta_tasks.judge.cache import VerdictCache

PERSISTENT = {0: "500", 1: "schema", 2: "length", 3: "hang", 4: "429", 5: "reset", 6: "400", 7: "html"}
REASONS = {"http_5xx": 1, "invalid_reply": 1, "length": 1, "timeout": 1, "rate_limited": 1, "connection": 1,
           "http_4xx": 1, "unreadable_reply": 1}


def faulty_run(fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings],
               batch: list[JudgeItem], **overrides: object):  # type: ignore[no-untyped-def]
    fault_server.config.hang_seconds = 2.0
    fault_server.config.faults = {batch[i].user_turn: (kind, None) for i, kind in PERSISTENT.items()}
    settings = fault_settings(max_retries=1, timeout=0.5, **overrides)
    return settings, judge_all(batch, settings)


def test_summary_counts_judged_unjudged_by_reason_calls_and_tokens(
        fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings],
        items: Callable[..., list[JudgeItem]]) -> None:
    from uta_tasks.judge import format_summary

    batch = items(12)
    _, run = faulty_run(fault_server, fault_settings, batch + [batch[9]])  # one duplicate
    summary = run.summary()
    assert summary["items"] == 13 and summary["judged"] == 5 and summary["unjudged"] == 8
    assert summary["unjudged_by_reason"] == REASONS
    assert summary["calls"] == run.calls == len(fault_server.chat_requests())
    assert summary["cache_hits"] == 0 and summary["not_persisted"] == 0
    assert summary["input_tokens"] == run.input_tokens > 0 and summary["output_tokens"] == run.output_tokens > 0
    text = format_summary(summary)
    lines = text.splitlines()
    assert summary["rate_limited"] == 2  # the persistent 429, answered on both attempts
    assert len(lines) == 1 + len(REASONS) + 1
    assert lines[-1] == "judge: 2 rate-limited answer(s) (429, or 503 with Retry-After)"
    assert "13 items" in lines[0] and "5 judged" in lines[0] and "8 unjudged" in lines[0]
    assert f"{run.calls} calls" in lines[0]
    for reason, count in REASONS.items():
        assert any(reason in line and str(count) in line for line in lines[1:]), reason


def test_too_many_unjudged_fails_after_every_verdict_is_cached(
        fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings],
        items: Callable[..., list[JudgeItem]]) -> None:
    from uta_tasks.judge import JudgeUnjudgedError, enforce_unjudged_share

    batch = items(10)
    settings, run = faulty_run(fault_server, fault_settings, batch, max_unjudged_share=0.5)
    assert run.unjudged == 8
    with pytest.raises(JudgeUnjudgedError, match="judge_max_unjudged_share") as info:
        enforce_unjudged_share(run, settings)
    assert isinstance(info.value, RuntimeError)
    assert "8 of 10" in str(info.value) and "http_5xx" in str(info.value)
    with VerdictCache(settings.cache) as cache:
        assert cache.count() == 2 + 1  # the judged items and the paid invalid reply are already stored
    enforce_unjudged_share(run, fault_settings(max_unjudged_share=0.8))  # at the limit: accepted
    enforce_unjudged_share(run, fault_settings(max_unjudged_share=1))


def test_share_check_ignores_empty_and_disabled_runs(fault_settings: Callable[..., JudgeSettings],
                                                    items: Callable[..., list[JudgeItem]]) -> None:
    from uta_tasks.judge import enforce_unjudged_share

    settings = fault_settings(max_unjudged_share=0)
    enforce_unjudged_share(judge_all([], settings), settings)
    off = fault_settings(judge="none", max_unjudged_share=0)
    enforce_unjudged_share(judge_all(items(3), off), off)


def test_duplicates_are_not_counted_as_cache_hits(fault_server: FaultServer,
                                                  fault_settings: Callable[..., JudgeSettings],
                                                  items: Callable[..., list[JudgeItem]]) -> None:
    unique = items(3)
    batch = [unique[0], unique[1], unique[0], unique[2], unique[0]]
    settings = fault_settings()
    judge_all(batch, settings)
    again = judge_all(batch, settings)
    assert again.cache_hits == 3
    assert sum(int(u.cache_hit) for u in again.per_item_usage) == 3
    assert [u.cache_hit for u in again.per_item_usage] == [True, True, False, True, False]
    assert all(v.cached for v in again.verdicts)  # the verdict itself still says where it came from


@pytest.fixture
def new_york_time(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "EST+5")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_retry_after_date_in_minus_0000_is_utc(new_york_time: None) -> None:
    now = time.time()
    value = formatdate(now + 30)  # RFC 2822 form with "-0000", as some servers send it
    assert value.endswith("-0000")
    assert retry_after_seconds({"retry-after": value}, now=now) == pytest.approx(30, abs=1)
    gmt = formatdate(now + 30, usegmt=True)
    assert retry_after_seconds({"retry-after": gmt}, now=now) == pytest.approx(30, abs=1)
