"""Readers do not depend on the results file holding more than the headline metrics: with
only the accuracy metrics and the probe's headline rows left in it, uta-summary, uta-report
and uta-gate get every other metric from the samples, and a gate rule on a metric the run
did not keep (no samples either) says so and how to get it."""

from __future__ import annotations

import json
import math

from pipeline_run import DATA, evaluate
from test_metrics import thanks_after_full_answers
from test_rejudge import _save

TASKS = ["uta_gsm8k", "uta_gsm8k_trunc"]
HEADLINE = ("genuine_followup", "genuine_followup_base", "genuine_followup_diff", "share_changed", "unjudged")


def _headline_only(folder) -> None:
    """Strip every metric but the benchmark's accuracy and the probe's headline rows."""
    from uta_tasks.datasets import BENCHMARKS

    keep = {*BENCHMARKS["gsm8k"].aggregations, *HEADLINE}
    (path,) = folder.rglob("results_*.json")
    results = json.loads(path.read_text())
    for task in TASKS:
        row = results["results"][task]
        results["results"][task] = {k: v for k, v in row.items()
                                    if "," not in k or k.split(",")[0].removesuffix("_stderr") in keep}
    path.write_text(json.dumps(results))


def _close(a, b) -> bool:
    return a == b or (a is not None and b is not None and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12))


def test_every_metric_reaches_the_readers_from_the_samples(scripted, judge_server, tmp_path):
    from uta_tasks.apps.gate.cli import main as gate_main
    from uta_tasks.apps.report import build_report
    from uta_tasks.runs import EstimateSettings, build_summary, load_run

    scripted.script = thanks_after_full_answers
    meta = {"judge_base_url": judge_server.base_url, "judge_model": "fault-judge", "judge_cache": "none",
            "gsm8k_data_files": str(DATA / "gsm8k_test.jsonl"), "user_max_gen_toks": 16}
    live = evaluate(scripted, TASKS, limit=4, metadata=meta, bootstrap_iters=0)
    for name in ("full", "headline", "bare"):
        _save(json.loads(json.dumps(live, default=str)), tmp_path / name, TASKS)
    _headline_only(tmp_path / "headline")
    _headline_only(tmp_path / "bare")
    for samples in (tmp_path / "bare").rglob("samples_*.jsonl"):
        samples.unlink()

    settings = EstimateSettings(iterations=200)
    full = build_summary(load_run(tmp_path / "full"), settings)
    headline_run = load_run(tmp_path / "headline")
    headline = build_summary(headline_run, settings)
    assert "label_previous_turn_restate" in headline_run.tasks["uta_gsm8k"].from_samples
    for task in TASKS:
        want, got = full["tasks"][task]["metrics"], headline["tasks"][task]["metrics"]
        assert set(got) == set(want), task
        for metric, entry in want.items():
            assert _close(got[metric]["value"], entry["value"]), (task, metric, got[metric], entry)
    assert headline["tasks"]["uta_gsm8k"]["metrics"]["judge_calls"]["counts"] == "samples"

    rules = tmp_path / "rules.yaml"
    rules.write_text("version: 1\nsettings: {min_judged: 1}\nrules:\n"
                     "  - {task: uta_gsm8k, metric: label_previous_turn_restate, op: '<=', value: 1.0}\n"
                     "  - {task: uta_gsm8k, metric: n_judged, op: '>=', value: 1}\n")
    assert gate_main([str(tmp_path / "headline"), "--rules", str(rules), "--json", str(tmp_path / "g.json")]) == 0
    files = build_report([tmp_path / "headline"], tmp_path / "report", settings=settings)
    assert files.html.is_file()  # the report reads the headline-only run too

    code = gate_main([str(tmp_path / "bare"), "--rules", str(rules), "--json", str(tmp_path / "bare.json")])
    assert code == 2, "a metric the run did not keep never passes"
    (first, _) = json.loads((tmp_path / "bare.json").read_text())["rules"]
    assert first["status"] != "pass"
    text = json.dumps(first)
    assert "was not kept" in text and "--log_samples" in text and '\\"metrics\\": \\"full\\"' in text
