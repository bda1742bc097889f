"""Metrics from scripted verdicts: the real judge client against a scripted judge server
on 127.0.0.1 (genuine iff the user turn contains '?')."""

from __future__ import annotations

import math

from pipeline_run import evaluate, records
from scripted_lm import chatml_script


def thanks_after_full_answers(prompt: str, kwargs: dict) -> str:
    """Pass 2: 'Thanks.' after a complete answer (not genuine), a question otherwise."""
    if prompt.endswith("<|im_start|>user\n"):
        shown = prompt.rsplit("<|im_start|>assistant\n", 1)[1].split("<|im_end|>", 1)[0]
        return "Thanks." if shown.endswith("The answer is 42.") else "Why did you stop there?"
    return chatml_script(prompt, kwargs)


def _item_calls(server) -> list:
    return [r for r in server.chat_requests() if r.user_turn is not None]


def test_rates_labels_and_usage_follow_the_verdicts(scripted, judge_server, tmp_path):
    scripted.script = thanks_after_full_answers
    meta = {
        "judge_base_url": judge_server.base_url, "judge_model": "fault-judge",
        "judge_cache": str(tmp_path / "judge.sqlite"), "ifbench_unverifiable": "drop", "user_max_gen_toks": 16,
        "metrics": "full",
    }
    tasks = ["uta_ifbench", "uta_ifbench_trunc"]
    results = evaluate(scripted, tasks, limit=3, metadata=meta)
    base, trunc = (results["results"][t] for t in tasks)
    assert base["genuine_followup,none"] == 0.0 and base["label_previous_turn_restate,none"] == 1.0
    assert trunc["genuine_followup,none"] == 1.0 and trunc["label_plausible_followup,none"] == 1.0
    assert trunc["genuine_followup_base,none"] == 0.0 and trunc["genuine_followup_diff,none"] == 1.0
    assert trunc["share_changed,none"] == 1.0 and trunc["unjudged,none"] == 0.0
    # 3 "Thanks." items (shared by both tasks) + 3 truncated ones: 6 distinct judge calls
    # (the preflight's one test completion carries no candidate turn).
    assert base["judge_calls,none"] + trunc["judge_calls,none"] == 6 == len(_item_calls(judge_server))
    from uta_tasks.probe.verdict_prompts import record_prompts

    for r in records(results, "uta_ifbench_trunc"):
        assert r.verdict is not None and r.verdict_ref is not None
        assert r.verdict.genuine is True and r.verdict_ref.genuine is False
        assert any("Why did you stop there?" in m["content"] for m in record_prompts(r)["verdict"])
    # the dumped metric_list names every metric reported; a rate that no doc has (here the
    # rates conditioned on a complete or correct answer: the scripted answers are neither)
    # is listed, and absent from lm-eval's results (no value reached it)
    for task in tasks:
        listed = {m["metric"] for m in results["configs"][task]["metric_list"]}
        reported = {k.split(",")[0] for k in results["results"][task] if "_stderr" not in k and "," in k}
        assert listed - reported == {"genuine_followup_complete", "genuine_followup_correct"}, task
        assert reported <= listed, task


def test_rerun_with_warm_judge_cache_makes_no_call(scripted, judge_server, tmp_path):
    scripted.script = thanks_after_full_answers
    meta = {"judge_base_url": judge_server.base_url, "judge_model": "fault-judge",
            "judge_cache": str(tmp_path / "judge.sqlite"), "ifbench_unverifiable": "drop", "metrics": "full"}
    first = evaluate(scripted, ["uta_ifbench_question"], limit=2, metadata=meta)
    calls = len(_item_calls(judge_server))
    second = evaluate(scripted, ["uta_ifbench_question"], limit=2, metadata=meta)
    assert len(_item_calls(judge_server)) == calls
    a, b = (r["results"]["uta_ifbench_question"] for r in (first, second))
    assert b["judge_calls,none"] == 0 and b["judge_cache_hits,none"] == 4
    assert a["genuine_followup,none"] == b["genuine_followup,none"] and not math.isnan(a["genuine_followup,none"])
