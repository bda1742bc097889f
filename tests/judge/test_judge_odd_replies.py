"""Item 1: an odd HTTP-200 reply is a failed attempt for that item only; nothing escapes
the run, usage is read tolerantly, and every other item keeps its verdict."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fault_server import FaultServer, expected_verdict

from uta_tasks.judge import JudgeItem, JudgeSettings, judge_all
from uta_tasks.judge.client import JudgeClient

ODD_200 = ["choices_object", "no_message", "html", "empty_object", "badbody"]


def test_unreadable_200_replies_fail_only_their_item(fault_server: FaultServer,
                                                    fault_settings: Callable[..., JudgeSettings],
                                                    items: Callable[..., list[JudgeItem]]) -> None:
    batch = items(len(ODD_200) + 3)
    fault_server.config.faults = {batch[i].user_turn: (kind, None) for i, kind in enumerate(ODD_200)}
    fault_server.config.faults[batch[-1].user_turn] = ("usage_na", None)  # odd usage, valid verdict
    run = judge_all(batch, fault_settings(max_retries=1))
    for index, kind in enumerate(ODD_200):
        verdict = run.verdicts[index]
        assert not verdict.judged and verdict.genuine is None, kind
        assert "unreadable" in verdict.reason, (kind, verdict.reason)
        assert run.per_item_usage[index].calls == 2, kind
    for item, verdict in zip(batch[len(ODD_200):], run.verdicts[len(ODD_200):]):
        assert verdict.judged and verdict.genuine == expected_verdict(item.user_turn)["genuine"]
    # an unreadable reply is not a judge's answer: not cached, the next run asks again
    fault_server.config.faults = {}
    fault_server.reset_counts()
    rerun = judge_all(batch, fault_settings(max_retries=1))
    assert rerun.calls == len(ODD_200) and rerun.unjudged == 0


def test_odd_usage_with_a_valid_verdict_is_judged(fault_server: FaultServer,
                                                  fault_settings: Callable[..., JudgeSettings],
                                                  items: Callable[..., list[JudgeItem]]) -> None:
    batch = items(2)
    fault_server.config.sequences = {batch[0].user_turn: ["usage_na"], batch[1].user_turn: ["usage_list"]}
    run = judge_all(batch, fault_settings(cache="none", max_retries=0))
    # the verdict in the message is valid; only the token counts are unreadable (counted as 0)
    assert [v.judged for v in run.verdicts] == [True, True]
    assert run.per_item_usage[0].input_tokens == 0 and run.per_item_usage[0].output_tokens > 0
    assert run.per_item_usage[1].input_tokens == 0 and run.per_item_usage[1].output_tokens == 0


def test_one_items_crash_never_cancels_the_others(fault_server: FaultServer,
                                                  fault_settings: Callable[..., JudgeSettings],
                                                  items: Callable[..., list[JudgeItem]],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    batch = items(6)
    real = JudgeClient.judge
    doomed = batch[2].user_turn

    async def judge(self: JudgeClient, messages: list[dict[str, str]], key: str):  # type: ignore[no-untyped-def]
        if doomed in messages[-1]["content"]:
            raise RuntimeError("boom in one item")
        return await real(self, messages, key)

    monkeypatch.setattr(JudgeClient, "judge", judge)
    run = judge_all(batch, fault_settings())
    assert [v.judged for v in run.verdicts] == [True, True, False, True, True, True]
    assert "boom in one item" in run.verdicts[2].reason
    assert len(fault_server.chat_requests()) == 5
