"""uta-rejudge on saved samples: no model, same metrics as the live run, zero calls with a
warm cache, and a --predict_only run judged later."""

from __future__ import annotations

import json
import math

from pipeline_run import evaluate
from test_metrics import _item_calls, thanks_after_full_answers

TASKS = ["uta_ifbench", "uta_ifbench_trunc"]


def _save(results: dict, out, tasks: list[str] = TASKS) -> None:
    """Write results and samples as lm-eval's CLI does (its EvaluationTracker)."""
    from lm_eval.loggers import EvaluationTracker

    tracker = EvaluationTracker(output_path=str(out))
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    for task in tasks:
        if task in samples:
            tracker.save_results_samples(task_name=task, samples=samples[task])


def _meta(server, tmp_path) -> dict:
    return {"judge_base_url": server.base_url, "judge_model": "fault-judge",
            "judge_cache": str(tmp_path / "judge.sqlite")}


def test_rejudge_reproduces_the_live_metrics_with_zero_calls(scripted, judge_server, tmp_path):
    from uta_tasks.apps.rejudge import rejudge, write

    scripted.script = thanks_after_full_answers
    meta = {**_meta(judge_server, tmp_path), "ifbench_unverifiable": "drop", "user_max_gen_toks": 16, "metrics": "full"}
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
    (path,) = write(tasks, tmp_path / "rejudged", _meta(judge_server, tmp_path), "2026-11-30T00-00-00")
    text = path.read_text()
    assert "NaN" not in text and json.loads(text)["results"]["uta_ifbench_trunc"]["genuine_followup,none"] == 1.0
    _readers_see_the_rejudged_folder_as_the_live_one(tmp_path / "run", tmp_path / "rejudged", tmp_path)


def _readers_see_the_rejudged_folder_as_the_live_one(live_dir, judged_dir, tmp_path) -> None:
    """uta-summary, uta-gate, uta-report and uta-agreement read a re-judged folder like the live one."""
    from uta_tasks.apps.agreement.cli import main as agreement_main
    from uta_tasks.apps.gate.cli import main as gate_main
    from uta_tasks.apps.report import build_report
    from uta_tasks.runs import EstimateSettings, load_run, write_summary
    from uta_tasks.runs.jsonio import read_json

    live, judged = load_run(live_dir), load_run(judged_dir)
    (live_results,) = live_dir.rglob("results_*.json")
    assert judged.files.results.parent.relative_to(judged_dir) == live.files.results.parent.relative_to(live_dir)
    assert judged.files.date_id == live.files.date_id and set(judged.files.samples) == set(TASKS)
    for key in ("config", "model_name", "versions", "n-samples"):
        assert judged.results[key] == live.results[key], key
    summaries = {}
    for name, run in (("live", live), ("judged", judged)):
        assert run.has_samples and all(run.tasks[t].is_uta for t in TASKS)
        summaries[name] = read_json(write_summary(run, EstimateSettings(iterations=200)))
    assert summaries["live"]["provenance"]["verdicts"] == {"source": "live"}
    verdicts = summaries["judged"]["provenance"]["verdicts"]
    assert verdicts["source"] == "rejudge" and verdicts["judge"]["judge_model"] == "fault-judge"
    assert verdicts["source_results"] == str(live_results.resolve())
    for task in TASKS:
        lt, jt = summaries["live"]["tasks"][task], summaries["judged"]["tasks"][task]
        assert jt["samples"] is True and jt["benchmark"] == lt["benchmark"] == "ifbench"
        for metric, entry in lt["metrics"].items():
            if not metric.startswith("judge_"):
                assert jt["metrics"][metric]["value"] == entry["value"], (task, metric)
    rules = tmp_path / "gate.yaml"
    rules.write_text("version: 1\nsettings: {min_judged: 1}\nrules:\n"
                     "  - {task: uta_ifbench_trunc, metric: genuine_followup, op: '>=', value: 1.0}\n"
                     "  - {task: uta_ifbench_trunc, metric: genuine_followup, max_drop: 0}\n"
                     "  - {task: uta_ifbench, metric: genuine_followup, max_drop: 0}\n")
    gate_json = tmp_path / "gate.json"
    assert gate_main([str(judged_dir), "--rules", str(rules), "--baseline", str(live_dir), "--strict",
                      "--json", str(gate_json)]) == 0
    assert [r["status"] for r in read_json(gate_json)["rules"]] == ["pass", "pass", "pass"]
    files = build_report([live_dir, judged_dir], tmp_path / "report", settings=EstimateSettings(iterations=200))
    assert files.html.read_text().count("fault-judge") >= 2
    assert agreement_main([f"live={live_dir}", f"judged={judged_dir}", "--replicates", "0",
                           "--json", str(tmp_path / "agreement.json")]) == 0
    (row,) = json.loads((tmp_path / "agreement.json").read_text())["comparisons"]
    assert row["n"] == 6 and row["genuine"]["agreement"] == row["label"]["agreement"] == 100.0


def test_predict_only_run_is_judged_later(scripted, judge_server, tmp_path):
    from uta_tasks.apps.rejudge.cli import main

    scripted.script = thanks_after_full_answers
    meta = {**_meta(judge_server, tmp_path), "ifbench_unverifiable": "drop", "user_max_gen_toks": 16, "metrics": "full"}
    live = evaluate(scripted, ["uta_ifbench_trunc"], limit=2, metadata=meta, predict_only=True)
    _save(live, tmp_path / "run")
    assert _item_calls(judge_server) == []
    code = main([str(tmp_path / "run"), "--metadata", json.dumps(_meta(judge_server, tmp_path)),
                 "--output_path", str(tmp_path / "judged"), "--bootstrap_iters", "0"])
    assert code == 0
    (results_path,) = (tmp_path / "judged").rglob("results_*.json")
    metrics = json.loads(results_path.read_text())["results"]["uta_ifbench_trunc"]
    assert metrics["genuine_followup,none"] == 1.0 and metrics["genuine_followup_base,none"] == 0.0
    assert metrics["judge_calls,none"] == 4 == len(_item_calls(judge_server))
    (samples_path,) = (tmp_path / "judged").rglob("samples_uta_ifbench_trunc_*.jsonl")
    from uta_tasks.probe.verdict_prompts import record_prompts
    from uta_tasks.schema.probe import ProbeRecord

    line = json.loads(samples_path.read_text().splitlines()[0])
    record = ProbeRecord.from_json(line["resps"][0][0])
    assert line["filtered_resps"] == [["resps[0][0]"]]  # the record once, in resps
    assert record.verdict.genuine is True and record_prompts(record)["verdict"]

    from uta_tasks.runs import build_summary, load_run

    summary = build_summary(load_run(tmp_path / "judged"))
    row = summary["tasks"]["uta_ifbench_trunc"]
    assert row["samples"] is True and row["benchmark"] == "ifbench" and row["perturbation"] == "trunc"
    assert row["metrics"]["genuine_followup"]["value"] == 1.0 and row["metrics"]["genuine_followup"]["n"] == 2
    assert summary["provenance"]["verdicts"]["source"] == "rejudge"
    assert summary["provenance"]["tasks"]["uta_ifbench_trunc"]["judge_model"] == "fault-judge"
