"""uta-rejudge on saved samples: no model, same metrics as the live run, zero calls with a
warm cache, and a --predict_only run judged later."""

from __future__ import annotations

import json
import math

from pipeline_run import evaluate
from test_metrics import _item_calls, thanks_after_full_answers

TASKS = ["uta_ifbench", "uta_ifbench_trunc"]


def _save(results: dict, out) -> None:
    """Write results and samples as lm-eval's CLI does (its EvaluationTracker)."""
    from lm_eval.loggers import EvaluationTracker

    tracker = EvaluationTracker(output_path=str(out))
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    for task in TASKS:
        if task in samples:
            tracker.save_results_samples(task_name=task, samples=samples[task])


def _meta(server, tmp_path) -> dict:
    return {"judge_base_url": server.base_url, "judge_model": "fault-judge",
            "judge_cache": str(tmp_path / "judge.sqlite")}


def test_rejudge_reproduces_the_live_metrics_with_zero_calls(scripted, judge_server, tmp_path):
    from uta_tasks.rejudge import rejudge
    from uta_tasks.rejudge.run import write

    scripted.script = thanks_after_full_answers
    meta = {**_meta(judge_server, tmp_path), "ifbench_unverifiable": "drop", "user_max_gen_toks": 16}
    live = evaluate(scripted, TASKS, limit=3, metadata=meta, bootstrap_iters=0)
    live_results = {t: dict(live["results"][t]) for t in TASKS}
    _save(live, tmp_path / "run")
    calls = len(_item_calls(judge_server))

    tasks = rejudge([tmp_path / "run"], _meta(judge_server, tmp_path), bootstrap_iters=0)
    assert len(_item_calls(judge_server)) == calls, "a warm cache pays nothing"
    for task in tasks:
        for key, value in live_results[task.task].items():
            if key.endswith(",none") and "_stderr" not in key and not key.startswith("judge_"):  # usage is per run
                got = task.metrics[key]
                assert got == value or (math.isnan(got) and math.isnan(value)), (task.task, key, got, value)
        assert task.metrics["judge_calls,none"] == 0
    path = write(tasks, tmp_path / "rejudged", _meta(judge_server, tmp_path), "2026-11-30T00-00-00")
    text = path.read_text()
    assert "NaN" not in text and json.loads(text)["results"]["uta_ifbench_trunc"]["genuine_followup,none"] == 1.0


def test_predict_only_run_is_judged_later(scripted, judge_server, tmp_path):
    from uta_tasks.rejudge.cli import main

    scripted.script = thanks_after_full_answers
    meta = {**_meta(judge_server, tmp_path), "ifbench_unverifiable": "drop", "user_max_gen_toks": 16}
    live = evaluate(scripted, ["uta_ifbench_trunc"], limit=2, metadata=meta, predict_only=True)
    _save(live, tmp_path / "run")
    assert _item_calls(judge_server) == []
    code = main([str(tmp_path / "run"), "--metadata", json.dumps(_meta(judge_server, tmp_path)),
                 "--output_path", str(tmp_path / "judged"), "--bootstrap_iters", "0"])
    assert code == 0
    (results_path,) = (tmp_path / "judged").glob("results_*.json")
    metrics = json.loads(results_path.read_text())["results"]["uta_ifbench_trunc"]
    assert metrics["genuine_followup,none"] == 1.0 and metrics["genuine_followup_base,none"] == 0.0
    assert metrics["judge_calls,none"] == 4 == len(_item_calls(judge_server))
    (samples_path,) = (tmp_path / "judged").glob("samples_uta_ifbench_trunc_*.jsonl")
    record = json.loads(json.loads(samples_path.read_text().splitlines()[0])["filtered_resps"][0][0])
    assert record["verdict"]["genuine"] is True and record["verdict"]["prompt"]
