"""Retries, timeouts, Retry-After, parameter dropping, dedup and the cache, against the
controllable fault double (real openai client, real HTTP on 127.0.0.1)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

import pytest
from fault_server import FaultServer, expected_verdict

from uta_tasks.judge import JudgeItem, JudgeRun, JudgeSettings, judge_all

pytestmark = pytest.mark.slow

TRANSIENT = ["429", "500", "hang", "badbody", "malformed", "schema", "length"]


def decisions(run: JudgeRun) -> list[tuple]:
    return [(v.status, v.label, v.genuine, v.rationale) for v in run.verdicts]


def test_fault_free_run_matches_the_double(fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings],
                                           items: Callable[..., list[JudgeItem]]) -> None:
    batch = items(10)
    run = judge_all(batch, fault_settings(cache="none"))
    for item, verdict in zip(batch, run.verdicts):
        assert verdict.judged and verdict.reason is None
        expected = expected_verdict(item.user_turn)
        assert (verdict.label, verdict.genuine, verdict.rationale) == (
            expected["label"], expected["genuine"], expected["rationale"])
        assert verdict.prompt_version == "followupeval-v4" and verdict.judge_model == "fault-judge"
        assert verdict.raw_reply and verdict.prompt[1]["content"].count(item.user_turn) >= 1
    assert run.calls == 10 and run.cache_hits == 0
    assert run.input_tokens > 0 and run.output_tokens > 0
    assert sum(u.input_tokens for u in run.per_item_usage) == run.input_tokens
    body = fault_server.chat_requests()[0].body
    assert body["response_format"]["json_schema"]["strict"] is True
    assert body["temperature"] == 0.0 and body["max_completion_tokens"] == 256


def test_transient_faults_give_the_fault_free_verdicts(fault_server: FaultServer,
                                                       fault_settings: Callable[..., JudgeSettings],
                                                       items: Callable[..., list[JudgeItem]]) -> None:
    batch = items(12)
    baseline = judge_all(batch, fault_settings(cache="none"))
    fault_server.reset_counts()
    fault_server.config.hang_seconds = 3.0
    counts = {kind: (1 if kind == "hang" else 2) for kind in TRANSIENT}
    fault_server.config.faults = {batch[i].user_turn: (kind, counts[kind]) for i, kind in enumerate(TRANSIENT)}
    # sampling (T > 0), so a reply cut at the token limit is retried too (at T = 0 it is not)
    faulty = judge_all(batch, fault_settings(cache="none", timeout=1.0, max_retries=3, temperature=0.7))
    assert decisions(faulty) == decisions(baseline)
    assert faulty.unjudged == 0
    assert faulty.calls == len(batch) + sum(counts.values())
    for index, kind in enumerate(TRANSIENT):
        assert faulty.per_item_usage[index].calls == counts[kind] + 1, kind
    for index in range(len(TRANSIENT), len(batch)):
        assert faulty.per_item_usage[index].calls == 1


def test_persistent_faults_unjudge_exactly_those_items(fault_server: FaultServer,
                                                       fault_settings: Callable[..., JudgeSettings],
                                                       items: Callable[..., list[JudgeItem]]) -> None:
    batch = items(14)
    baseline = judge_all(batch, fault_settings(cache="none"))
    fault_server.reset_counts()
    fault_server.config.hang_seconds = 3.0
    persistent = {0: "429", 1: "500", 2: "hang", 3: "malformed", 4: "schema", 5: "length", 6: "badbody", 7: "400"}
    fault_server.config.faults = {batch[i].user_turn: (kind, None) for i, kind in persistent.items()}
    run = judge_all(batch, fault_settings(cache="none", timeout=1.0, max_retries=2))
    unjudged = {i for i, v in enumerate(run.verdicts) if not v.judged}
    assert unjudged == set(persistent)
    expected_reason = {"429": "HTTP 429", "500": "HTTP 500", "hang": "timeout", "malformed": "invalid JSON",
                       "schema": "schema", "length": "finish_reason=length", "badbody": "unreadable response",
                       "400": "HTTP 400"}
    for index, kind in persistent.items():
        verdict = run.verdicts[index]
        assert verdict.label is None and verdict.genuine is None and verdict.rationale is None
        assert expected_reason[kind] in verdict.reason, (kind, verdict.reason)
        # a 400 is not retried, nor is a cut reply at temperature 0 (the same limit cuts it again)
        assert run.per_item_usage[index].calls == (1 if kind in ("400", "length") else 3), kind
        assert verdict.prompt == baseline.verdicts[index].prompt
    assert "not retried" in run.verdicts[7].reason
    assert run.verdicts[5].raw_reply is not None  # the cut reply is kept
    others = [i for i in range(len(batch)) if i not in persistent]
    assert [decisions(run)[i] for i in others] == [decisions(baseline)[i] for i in others]


def test_retry_after_is_honoured(fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings],
                                 items: Callable[..., list[JudgeItem]]) -> None:
    batch = items(2)
    fault_server.config.retry_after = "1"
    fault_server.config.faults = {batch[0].user_turn: ("429", 1)}
    run = judge_all(batch, fault_settings(cache="none", backoff_base=0.01, backoff_max=0.02))
    assert run.unjudged == 0
    times = [r.at for r in fault_server.chat_requests() if r.user_turn == batch[0].user_turn]
    assert len(times) == 2 and times[1] - times[0] >= 0.95


def test_rejected_temperature_is_dropped(fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings],
                                         items: Callable[..., list[JudgeItem]]) -> None:
    fault_server.config.reject_param = "temperature"
    run = judge_all(items(6), fault_settings(cache="none", concurrency=1, max_retries=0))
    assert run.unjudged == 0
    bodies = [r.body for r in fault_server.chat_requests()]
    assert "temperature" in bodies[0]
    assert all("temperature" not in body for body in bodies[1:])
    assert len(bodies) == 7  # one rejected request, then one per item


def test_rejected_max_completion_tokens_switches_to_max_tokens(
        fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings],
        items: Callable[..., list[JudgeItem]]) -> None:
    fault_server.config.reject_param = "max_completion_tokens"
    run = judge_all(items(3), fault_settings(cache="none", concurrency=1, max_retries=0))
    assert run.unjudged == 0
    assert fault_server.chat_requests()[-1].body["max_tokens"] == 256


def test_identical_items_are_judged_once(fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings],
                                         items: Callable[..., list[JudgeItem]]) -> None:
    unique = items(4)
    batch = [unique[0], unique[1], unique[0], unique[2], unique[0], unique[3], unique[1]]
    run = judge_all(batch, fault_settings(cache="none"))
    assert run.calls == 4 and run.unique_items == 4 and len(fault_server.chat_requests()) == 4
    assert [u.duplicate_of for u in run.per_item_usage] == [None, None, 0, None, 0, None, 1]
    assert [u.calls for u in run.per_item_usage] == [1, 1, 0, 1, 0, 1, 0]
    assert decisions(run)[2] == decisions(run)[0] and run.verdicts[2] is not run.verdicts[0]


def test_cache_makes_reruns_free_and_retries_unjudged(fault_server: FaultServer,
                                                      fault_settings: Callable[..., JudgeSettings],
                                                      items: Callable[..., list[JudgeItem]]) -> None:
    batch = items(8)
    fault_server.config.faults = {batch[3].user_turn: ("500", None)}
    first = judge_all(batch, fault_settings(max_retries=1))
    assert first.unjudged == 1 and first.calls == 7 + 2
    fault_server.reset_counts()
    fault_server.config.faults = {}
    second = judge_all(batch, fault_settings(max_retries=1))
    assert second.calls == 1 and second.cache_hits == 7 and second.unjudged == 0
    assert [v.cached for v in second.verdicts] == [i != 3 for i in range(8)]
    third = judge_all(batch, fault_settings(max_retries=1))
    assert third.calls == 0 and third.cache_hits == 8 and third.input_tokens == 0
    assert decisions(third) == decisions(second)
    assert all(u.cache_hit for u in third.per_item_usage)
    # a different prompt version, model or temperature does not reuse the verdicts
    assert judge_all(batch, fault_settings(temperature=0.5)).calls == 8


def test_concurrency_limit_is_respected(fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings],
                                        items: Callable[..., list[JudgeItem]]) -> None:
    fault_server.config.delay = 0.15
    run = judge_all(items(12), fault_settings(cache="none", concurrency=3, concurrency_max=3))
    assert run.unjudged == 0 and fault_server.max_in_flight == 3


def test_judge_none_skips_without_requests(fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings],
                                           items: Callable[..., list[JudgeItem]]) -> None:
    run = judge_all(items(3), fault_settings(judge="none"))
    assert run.calls == 0 and run.unjudged == 3 and fault_server.requests == []
    assert all("judge=none" in v.reason and v.prompt for v in run.verdicts)


def test_works_inside_a_running_loop_and_from_a_plain_thread(
        fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings],
        items: Callable[..., list[JudgeItem]]) -> None:
    batch = items(3)
    settings = fault_settings(cache="none")

    async def inside_loop() -> JudgeRun:
        return judge_all(batch, settings)

    in_loop = asyncio.run(inside_loop())
    box: list[JudgeRun] = []
    thread = threading.Thread(target=lambda: box.append(judge_all(batch, settings)))
    thread.start()
    thread.join(timeout=60)
    assert in_loop.unjudged == 0 and box and decisions(box[0]) == decisions(in_loop)


def test_verdict_to_dict_is_json_serialisable(fault_settings: Callable[..., JudgeSettings],
                                              items: Callable[..., list[JudgeItem]]) -> None:
    import json

    run = judge_all(items(2), fault_settings(cache="none"))
    data = json.loads(json.dumps(run.verdicts[0].to_dict()))
    assert set(data) >= {"status", "label", "genuine", "rationale", "reason", "raw_reply", "prompt",
                         "judge_model", "prompt_version", "cached"}
    assert json.loads(json.dumps([u.to_dict() for u in run.per_item_usage]))[0]["calls"] == 1


def test_paid_replies_that_stay_invalid_are_cached_as_unjudged(fault_server: FaultServer,
                                                               fault_settings: Callable[..., JudgeSettings],
                                                               items: Callable[..., list[JudgeItem]]) -> None:
    batch = items(4)
    fault_server.config.faults = {batch[0].user_turn: ("schema", None), batch[1].user_turn: ("500", None)}
    first = judge_all(batch, fault_settings(max_retries=1))
    assert first.unjudged == 2 and first.calls == 2 + 2 + 2
    fault_server.reset_counts()
    second = judge_all(batch, fault_settings(max_retries=1))
    # the schema-invalid replies were paid for: reused with their reason, never 0 or 1;
    # the HTTP 500 got no reply: retried (and fails again).
    assert second.calls == 2 and len(fault_server.chat_requests()) == 2
    assert not second.verdicts[0].judged and second.verdicts[0].cached
    assert "schema" in second.verdicts[0].reason and second.verdicts[0].genuine is None
    assert not second.verdicts[1].judged and not second.verdicts[1].cached
