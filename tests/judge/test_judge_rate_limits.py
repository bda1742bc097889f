"""Rate limiting is the normal state of a large judge run: no verdict may be lost to it."""

from __future__ import annotations

from collections.abc import Callable

from fault_server import FaultServer, expected_verdict

from uta_tasks.judge import JudgeItem, JudgeSettings, format_summary, judge_all


def test_many_429s_lose_no_verdict_and_use_up_no_retry(
    fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings], items: Callable[..., list[JudgeItem]]
) -> None:
    batch = items(60)
    config = fault_server.config
    config.capacity, config.delay, config.retry_after = 3, 0.05, "0.05"
    settings = fault_settings(cache="none", concurrency=16, concurrency_max=64, max_retries=0,
                              rate_limit_wait=600)
    run = judge_all(batch, settings)
    rejected = fault_server.served["capacity_429"]
    assert rejected >= 16 - 3, "the scenario must really rate-limit: the first window alone is 13 over"
    assert run.unjudged == 0
    assert run.rate_limited == rejected and run.calls == len(batch) + rejected
    for item, verdict in zip(batch, run.verdicts, strict=True):
        assert verdict.label == expected_verdict(item.user_turn)["label"]
    assert fault_server.max_in_flight <= 3
    assert f"{rejected} rate-limited answer(s)" in format_summary(run.summary())


def test_rate_limit_budget_is_bounded_then_429s_count_as_failures(
    fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings], items: Callable[..., list[JudgeItem]]
) -> None:
    batch = items(2)
    fault_server.config.retry_after = "0.01"
    fault_server.config.faults = {batch[0].user_turn: ("429", None)}
    run = judge_all(batch, fault_settings(cache="none", max_retries=2, rate_limit_wait=3))
    # each free retry is charged at least 1 s: 3 free ones, then 3 counted attempts
    assert run.per_item_usage[0].calls == 6 and run.per_item_usage[0].rate_limited == 6
    assert not run.verdicts[0].judged and "judge_rate_limit_wait" in run.verdicts[0].reason
    assert run.verdicts[0].reason_code == "rate_limited" and run.verdicts[1].judged


def test_503_with_retry_after_is_rate_limiting_without_it_a_failure(
    fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings], items: Callable[..., list[JudgeItem]]
) -> None:
    batch = items(2)
    config = fault_server.config
    config.faults = {batch[0].user_turn: ("503_retry", 3), batch[1].user_turn: ("503", 3)}
    config.retry_after = "0.01"
    run = judge_all(batch, fault_settings(cache="none", max_retries=1, rate_limit_wait=600))
    assert run.verdicts[0].judged and run.per_item_usage[0].rate_limited == 3
    assert not run.verdicts[1].judged and run.per_item_usage[1].calls == 2


def test_429s_without_retry_after_lose_no_verdict_and_use_up_no_retry(
    fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings], items: Callable[..., list[JudgeItem]]
) -> None:
    # Some APIs send no Retry-After: each rate-limited answer then waits the exponential backoff.
    batch = items(40)
    config = fault_server.config
    config.capacity, config.delay, config.retry_after = 3, 0.05, None
    settings = fault_settings(cache="none", concurrency=16, concurrency_max=64, max_retries=0,
                              rate_limit_wait=600, backoff_base=0.02, backoff_max=0.2)
    run = judge_all(batch, settings)
    rejected = fault_server.served["capacity_429"]
    assert rejected >= 13, "the scenario must really rate-limit"
    assert run.unjudged == 0
    assert run.rate_limited == rejected and run.calls == len(batch) + rejected
    assert fault_server.max_in_flight <= 3


def test_a_rate_limited_request_is_sent_again_before_items_still_waiting(
    fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings], items: Callable[..., list[JudgeItem]]
) -> None:
    # Near the end of a run, a retry queued behind the last items would be the run's last answer.
    batch = items(4)
    config = fault_server.config
    config.delay, config.retry_after = 0.5, "0.01"
    config.faults = {batch[0].user_turn: ("429", 1)}
    run = judge_all(batch, fault_settings(cache="none", concurrency=1, concurrency_max=1))
    assert run.unjudged == 0 and run.rate_limited == 1
    sent = [request.user_turn for request in fault_server.chat_requests()]
    assert sent == [batch[0].user_turn, batch[1].user_turn, batch[0].user_turn, batch[2].user_turn,
                    batch[3].user_turn]
