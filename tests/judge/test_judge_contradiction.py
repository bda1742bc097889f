"""A judge reply whose label contradicts its genuine decision, through the real client
against the OpenAI-compatible double: every prompt version asks for the schema that
forbids it, a contradiction is retried, and one that persists leaves the item unjudged
(never counted as genuine or not), cached with its reason like any paid invalid reply."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fault_server import FaultServer, expected_verdict

from uta_tasks.judge import JudgeItem, JudgeSettings, judge_all
from uta_tasks.judge.labels import VERDICT_SCHEMA

VERSIONS = ["followupeval-v1", "followupeval-v2", "followupeval-v3", "followupeval-v4"]


@pytest.mark.parametrize("version", VERSIONS)
def test_every_version_asks_for_the_schema_that_forbids_contradictions(
        version: str, fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings],
        items: Callable[..., list[JudgeItem]]) -> None:
    run = judge_all(items(1), fault_settings(cache="none", prompt=version))
    assert run.verdicts[0].judged and run.verdicts[0].prompt_version == version
    sent = fault_server.chat_requests()[0].body["response_format"]["json_schema"]
    assert sent["strict"] is True and sent["schema"] == VERDICT_SCHEMA
    assert len(sent["schema"]["properties"]["decision"]["anyOf"]) == 3


@pytest.mark.parametrize("version", VERSIONS)
def test_a_contradiction_is_retried(version: str, fault_server: FaultServer,
                                    fault_settings: Callable[..., JudgeSettings],
                                    items: Callable[..., list[JudgeItem]]) -> None:
    batch = items(3)
    fault_server.config.sequences = {batch[0].user_turn: ["contradiction", "ok"]}
    run = judge_all(batch, fault_settings(cache="none", prompt=version, max_retries=2))
    first = run.verdicts[0]
    assert first.judged and first.attempts == 2
    assert (first.label, first.genuine) == (expected_verdict(batch[0].user_turn)["label"],
                                            expected_verdict(batch[0].user_turn)["genuine"])
    assert fault_server.served["contradiction"] == 1 and run.unjudged == 0


@pytest.mark.parametrize("version", VERSIONS)
def test_a_persistent_contradiction_is_unjudged_and_cached_with_its_reason(
        version: str, fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings],
        items: Callable[..., list[JudgeItem]]) -> None:
    batch = items(4)
    fault_server.config.faults = {batch[1].user_turn: ("contradiction", None)}
    settings = fault_settings(prompt=version, max_retries=2)
    run = judge_all(batch, settings)
    bad = run.verdicts[1]
    assert bad.status == "unjudged" and bad.label is None and bad.genuine is None
    assert bad.reason_code == "invalid_reply"
    assert "contradiction: label previous_turn_restate with genuine true" in bad.reason
    assert bad.attempts == 3 and run.unjudged == 1
    assert all(v.judged for i, v in enumerate(run.verdicts) if i != 1)
    # the contradicting reply was paid for: the rerun reuses the unjudged verdict, no call
    fault_server.config.faults = {}
    fault_server.reset_counts()
    again = judge_all(batch, settings)
    assert again.calls == 0 and again.verdicts[1].status == "unjudged" and "contradiction" in again.verdicts[1].reason
