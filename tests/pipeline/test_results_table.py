"""lm-eval's results table: by default the benchmark's accuracy and the probe's headline rows,
every row with ``metrics: full``; the same values either way."""

from __future__ import annotations

import math

from pipeline_run import DATA, IFBENCH, evaluate

from uta_tasks.metrics.table import HEADLINE

ACCURACY = {"prompt_level_strict_acc", "inst_level_strict_acc", "prompt_level_loose_acc", "inst_level_loose_acc"}


def _meta(server, **extra) -> dict:
    return {"judge_base_url": server.base_url, "judge_model": "fault-judge", "judge_cache": "none",
            "ifbench_unverifiable": "drop", "user_max_gen_toks": 16, **extra}


def _names(task_results: dict) -> set[str]:
    return {k.split(",")[0] for k in task_results if "," in k and "_stderr" not in k}


def _table_rows(results: dict) -> int:
    from lm_eval.utils import make_table

    return sum(1 for line in make_table(results).splitlines() if line.startswith("|"))


def test_default_table_holds_accuracy_and_headline_rows(scripted, judge_server):
    results = evaluate(scripted, IFBENCH, limit=2, metadata=_meta(judge_server))
    full = evaluate(scripted, IFBENCH, limit=2, metadata=_meta(judge_server, metrics="full"))
    for task in IFBENCH:
        shown = _names(results["results"][task])
        probe = shown - ACCURACY
        assert ACCURACY <= shown and probe <= HEADLINE and len(probe) <= 6, (task, shown)
        assert {"genuine_followup", "unjudged"} <= probe
        assert _names(full["results"][task]) > shown
        for name in shown:
            a, b = results["results"][task][f"{name},none"], full["results"][task][f"{name},none"]
            assert a == b or (math.isnan(a) and math.isnan(b)), (task, name)
        listed = {m["metric"] for m in results["configs"][task]["metric_list"]}
        assert listed == shown
    for task in IFBENCH[1:]:
        assert {"genuine_followup_base", "genuine_followup_diff", "share_changed"} <= _names(results["results"][task])
    # the rates shown carry lm-eval's bootstrap standard error
    stderr = results["results"]["uta_ifbench_trunc"]["genuine_followup_stderr,none"]
    assert isinstance(stderr, float)
    assert _table_rows(results) < _table_rows(full)


def test_gsm8k_shows_at_most_eight_rows_per_task(scripted, judge_server):
    meta = _meta(judge_server, gsm8k_data_files=str(DATA / "gsm8k_test.jsonl"))
    tasks = ["uta_gsm8k", "uta_gsm8k_trunc", "uta_gsm8k_question"]
    results = evaluate(scripted, tasks, limit=2, metadata=meta)
    for task in tasks:
        assert 2 <= len(_names(results["results"][task])) <= 8, task
