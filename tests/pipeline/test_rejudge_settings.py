"""A re-judged run holds every setting of the live run: the same metric set, and the same
values when the judge answers the same (user_samples > 1 with pass_at_k, overlong: drop,
both perturbations and a held-out task), through lm-eval's real evaluator."""

from __future__ import annotations

import json
import math

from pipeline_run import DATA, evaluate
from scripted_lm import ScriptedLM, load_tokenizer
from test_paper_parity import sampled
from test_rejudge import _save

TASKS = ["uta_gsm8k", "uta_gsm8k_trunc", "uta_gsm8k_question", "uta_conversations"]
GEN = {"max_gen_toks": 256, "temperature": 0.7, "do_sample": True}
SETTINGS = {"user_samples": 3, "pass_at_k": "1,3", "overlong": "drop", "user_max_gen_toks": 16, "metrics": "full",
            "gsm8k_data_files": str(DATA / "gsm8k_test.jsonl"),
            "conversations_data_files": str(DATA / "conversations_sample.jsonl")}


def _judge(server, cache) -> dict:
    return {"judge_base_url": server.base_url, "judge_model": "fault-judge", "judge_cache": str(cache)}


def _same(a: float, b: float) -> bool:
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))


def test_rejudged_run_reports_the_live_metric_set_and_values(judge_server, tmp_path):
    from uta_tasks.apps.rejudge import rejudge, write
    from uta_tasks.runs import load_run

    sampled.calls = 0  # type: ignore[attr-defined]
    lm = ScriptedLM(load_tokenizer(template="qwen_think"), sampled)
    meta = {**SETTINGS, **_judge(judge_server, tmp_path / "live.sqlite")}
    live = evaluate(lm, TASKS, limit=3, metadata=meta, gen_kwargs=GEN, bootstrap_iters=0)
    live_rows = {t: dict(live["results"][t]) for t in TASKS}
    _save(live, tmp_path / "run", TASKS)
    for task in TASKS:  # the settings that shape the metric set are there to lose
        assert {"genuine_pass_at_1,none", "genuine_pass_at_3,none", "genuine_prob,none"} <= set(live_rows[task])

    tasks = rejudge([tmp_path / "run"], _judge(judge_server, tmp_path / "fresh.sqlite"), bootstrap_iters=0)
    assert sorted(t.task for t in tasks) == sorted(TASKS)
    for task in tasks:
        live_metrics = {k for k in live_rows[task.task] if k.endswith(",none")}
        assert set(task.metrics) == live_metrics, task.task
        assert task.metrics["judge_calls,none"] > 0, "a fresh cache: the judge answered again"
        for key in live_metrics:
            if not key.startswith("judge_"):  # usage is per run
                assert _same(task.metrics[key], live_rows[task.task][key]), (task.task, key)

    (path,) = write(tasks, tmp_path / "rejudged", _judge(judge_server, tmp_path / "fresh.sqlite"), "2026-12-01T00-00-00")
    written = json.loads(path.read_text())
    run = load_run(tmp_path / "rejudged")
    live_run = load_run(tmp_path / "run")
    for task in TASKS:
        assert written["configs"][task]["metadata"]["user_samples"] == 3
        # the re-judged results file keeps every metric a doc has; a rate no doc has is
        # computed from the samples, as for the live run
        assert run.tasks[task].from_samples == live_run.tasks[task].from_samples, task
        assert all(run.tasks[task].value(name) is None for name in run.tasks[task].from_samples), task  # NaN
        assert run.tasks[task].value("genuine_pass_at_3") == live_rows[task]["genuine_pass_at_3,none"]
