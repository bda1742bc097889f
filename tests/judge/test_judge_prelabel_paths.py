"""Pre-labels through every judge path: live calls, the cache, batch mode, settings and metrics."""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from fault_server import MODEL, FaultServer, expected_verdict

from uta_tasks.judge import JudgeConfigError, JudgeItem, JudgeSettings, format_summary, judge_all

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "judge_batch"))

from fake_batch_api import FakeBatchAPI, FakeConfig  # noqa: E402

Q = "How many legs does a spider have?"
A = "A spider has eight legs."


def mixed() -> list[JudgeItem]:
    """Two turns the judge must see, three a rule labels (one of them twice)."""
    context = (("user", Q), ("assistant", A))
    return [
        JudgeItem(context, "Why eight and not six?"),
        JudgeItem(context, Q),  # restates q
        JudgeItem(context, "   "),  # empty
        JudgeItem(context, "Do all spiders have eight legs?"),
        JudgeItem(context, Q),  # the same restatement again
        JudgeItem(context, "A spider has eight legs."),  # copies a'
    ]


def test_prelabelled_items_are_never_sent_nor_cached_and_are_marked(
    fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings], tmp_path: Path
) -> None:
    items = mixed()
    run = judge_all(items, fault_settings(prelabel="on"))
    sent = [request.user_turn for request in fault_server.chat_requests()]
    assert sorted(sent) == sorted(["Why eight and not six?", "Do all spiders have eight legs?"])
    rules = [v.prelabel_rule for v in run.verdicts]
    assert rules == [None, "restates_prompt", "empty", None, "restates_prompt", "copies_answer"]
    for index in (0, 3):
        assert run.verdicts[index].label == expected_verdict(items[index].user_turn)["label"]
        assert run.verdicts[index].judge_model == MODEL
    for index in (1, 2, 4, 5):
        verdict = run.verdicts[index]
        assert verdict.judged and verdict.genuine is False and verdict.judge_model == "prelabel"
    assert [v.label for v in run.verdicts[1:3]] == ["previous_turn_restate", "degenerate_short"]
    usage = run.per_item_usage
    assert [u.prelabelled for u in usage] == [False, True, True, False, False, True]
    assert usage[4].duplicate_of == 1 and usage[0].calls == usage[3].calls == 1
    assert run.prelabelled == 3 and run.calls == 2 and run.unique_items == 5
    assert "3 distinct item(s) pre-labelled" in format_summary(run.summary())
    with sqlite3.connect(tmp_path / "judge.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0] == 2


def test_prelabel_is_off_by_default_and_every_item_goes_to_the_judge(
    fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings]
) -> None:
    settings = fault_settings(cache="none")
    assert settings.prelabel is False and JudgeSettings().prelabel is False
    run = judge_all(mixed(), settings)
    assert run.calls == 5 and run.prelabelled == 0 and all(v.prelabel_rule is None for v in run.verdicts)


def test_all_items_prelabelled_makes_no_call(
    fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings]
) -> None:
    run = judge_all([mixed()[2]], fault_settings(prelabel=True))
    assert run.calls == 0 and run.verdicts[0].label == "degenerate_short" and not fault_server.chat_requests()


@pytest.mark.parametrize("raw, expected", [("on", True), ("true", True), ("1", True), (1, True), ("off", False),
                                           ("none", False), (False, False)])
def test_prelabel_setting_is_a_switch(raw: object, expected: bool) -> None:
    assert JudgeSettings.from_metadata({"judge_prelabel": raw}, environ={}).prelabel is expected


def test_prelabel_setting_rejects_other_words() -> None:
    with pytest.raises(JudgeConfigError, match="judge_prelabel"):
        JudgeSettings.from_metadata({"judge_prelabel": "sometimes"}, environ={})
    assert JudgeSettings.from_metadata({}, environ={"UTA_JUDGE_PRELABEL": "on"}).prelabel is True


def test_batch_mode_submits_only_the_items_no_rule_labels(tmp_path: Path) -> None:
    from uta_tasks.apps.batch import BatchOptions, judge_batch

    with FakeBatchAPI(FakeConfig()) as api:
        settings = JudgeSettings.from_metadata({
            "judge_base_url": api.base_url, "judge_model": MODEL, "judge_cache": str(tmp_path / "judge.sqlite"),
            "judge_prelabel": "on", "judge_timeout": 10,
        }, environ={})
        items = mixed()
        run = judge_batch(items, settings, BatchOptions(poll_interval=0.01, max_wait=20.0, quiet=True))
        assert run.submitted == 2 and run.prelabelled == 4 and run.summary()["prelabelled"] == 4
    assert [v.prelabel_rule for v in run.verdicts] == [
        None, "restates_prompt", "empty", None, "restates_prompt", "copies_answer"
    ]
    assert run.verdicts[0].judged and run.verdicts[0].label == expected_verdict(items[0].user_turn)["label"]


def test_judge_calls_saved_is_a_metric_summed_over_the_doc() -> None:
    from uta_tasks.metrics.results import measure
    from uta_tasks.metrics.table import PROBE_METRICS
    from uta_tasks.schema.probe import ProbeRecord
    from uta_tasks.schema.verdict import Verdict

    spec = {m.name: m for m in PROBE_METRICS}["judge_calls_saved"]
    assert spec.aggregation([1.0, 2.0]) == 3.0
    judge = Verdict.from_dict({"status": "judged", "label": "plausible_followup", "genuine": True, "prelabel_rule": None})
    rule = Verdict.from_dict({"status": "judged", "label": "previous_turn_restate", "genuine": False,
                              "prelabel_rule": "restates_prompt"})
    base = dict(task="t", benchmark="b", perturbation="trunc", q="q", messages=[], a="a", answer="a",
                reasoning_form="plain", history="a", a_prime="a", role_switch={}, generation={}, given_answer=False)
    records = [ProbeRecord(**base, verdict=rule, verdict_ref=rule),
               ProbeRecord(**base, verdict=judge, verdict_ref=rule)]
    values = measure(records, [{}, {}], list(PROBE_METRICS), None).values
    assert values["judge_calls_saved"] == 3.0
    assert values["genuine_followup"] == 0.5  # a pre-labelled turn is a judged, non-genuine turn
