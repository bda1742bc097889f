"""Settings that would waste a paid run are refused before any generation."""

from __future__ import annotations

import pytest
from pipeline_run import evaluate


@pytest.mark.parametrize(
    ("metadata", "limit", "message"),
    [
        ({"judge": "none", "ifbench_unverifiable": "drop", "user_max_gen_toks": 0}, 2, "user_max_gen_toks"),
        ({"judge": "none", "ifbench_unverifiable": "drop", "user_max_gen_toks": "many"}, 2, "user_max_gen_toks"),
        ({"judge": "none", "ifbench_unverifiable": "drop", "role_swich": "harmony"}, 2, "did you mean 'role_switch'"),
        ({"jduge_model": "x", "judge": "none", "ifbench_unverifiable": "drop"}, 2, "judge_model"),
        ({"judge": "none", "ifbench_unverifiable": "drop"}, 0, "--limit 0"),
    ],
)
def test_refused_before_generation(scripted, metadata, limit, message):
    with pytest.raises(Exception, match=message):
        evaluate(scripted, ["uta_ifbench"], limit=limit, metadata=metadata)
    assert scripted.calls == []


@pytest.mark.parametrize("off", ["none", "off", "false", "no", "0"])
def test_every_off_word_turns_the_follow_up_metrics_off(scripted, off):
    results = evaluate(scripted, ["uta_ifbench"], limit=1, metadata={"judge": off, "ifbench_unverifiable": "drop"})
    reported = results["results"]["uta_ifbench"]
    assert "genuine_followup,none" not in reported and "unjudged,none" not in reported
    assert "prompt_level_strict_acc,none" in reported


def test_task_settings_are_parsed_once_per_task_not_per_doc(scripted, monkeypatch):
    from uta_tasks.probe import task_settings

    calls = []
    original = task_settings.TaskSettings.from_metadata.__func__

    def counting(cls, task, meta):
        calls.append(task)
        return original(cls, task, meta)

    monkeypatch.setattr(task_settings.TaskSettings, "from_metadata", classmethod(counting))
    evaluate(scripted, ["uta_ifbench", "uta_ifbench_trunc"], limit=3)
    assert sorted(calls) == ["uta_ifbench", "uta_ifbench_trunc"], "once per task, at construction"
