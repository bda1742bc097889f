"""One function of the records gives every number: the per-doc values lm-eval aggregated in a
live run (real lm-eval, a scripted model, the real judge client against the scripted judge
server), the same values rebuilt from its logged samples, and the units behind every interval
of the summary."""

from __future__ import annotations

import json
import math

from pipeline_run import DATA, evaluate
from test_metrics import thanks_after_full_answers
from test_rejudge import _save

TASKS = ["uta_gsm8k", "uta_gsm8k_trunc"]


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isclose(a, b, rel_tol=1e-12))


def test_live_values_rebuilt_values_and_interval_units_come_from_one_function(scripted, judge_server, tmp_path):
    from uta_tasks.metrics.table import observed_metrics
    from uta_tasks.runs import EstimateSettings, estimate, load_run
    from uta_tasks.runs.from_samples import measure_docs
    from uta_tasks.schema import output

    scripted.script = thanks_after_full_answers
    meta = {"judge_base_url": judge_server.base_url, "judge_model": "fault-judge", "judge_cache": "none",
            "gsm8k_data_files": str(DATA / "gsm8k_test.jsonl"), "user_max_gen_toks": 16, "metrics": "full"}
    live = evaluate(scripted, TASKS, limit=4, metadata=meta, bootstrap_iters=0)
    _save(json.loads(json.dumps(live, default=str)), tmp_path / "run", TASKS)
    run = load_run(tmp_path / "run", all_docs=True)
    settings = EstimateSettings(iterations=200)
    for name in TASKS:
        task = run.tasks[name]
        assert task.docs
        # a full run: the samples add only the rates no doc has (absent from lm-eval's results), as NaN
        assert all(math.isnan(task.values[m]) for m in task.from_samples), task.from_samples
        specs, measured = measure_docs(name, task.config.get("metadata"), task.docs, task.primary)
        # the per-doc values lm-eval logged are the ones measured again from the records
        compared = 0
        for doc, found in zip(task.docs, measured, strict=True):
            for spec in specs:
                if spec.name in doc.line:
                    assert _same(doc.line[spec.name], found.values[spec.name]), (name, doc.doc_id, spec.name)
                    compared += 1
        assert compared >= 4 * 20, compared
        # one repeat: every share's Wilson point estimate (k/n over its units) is lm-eval's value
        for metric in observed_metrics():
            est = estimate(run, name, metric, settings)
            reported = task.value(task.primary if metric == output.ACCURACY else metric)
            if est is None or reported is None or metric == output.UNJUDGED_SHARE:
                continue
            assert est.counts == "samples" and math.isclose(est.value, reported), (name, metric, est, reported)
        unjudged = estimate(run, name, output.UNJUDGED_SHARE, settings)
        assert unjudged.k == task.value(output.UNJUDGED)  # the count is the sum of the share's units
    trunc = run.tasks["uta_gsm8k_trunc"].values
    assert trunc[output.SHARE_CHANGED] == estimate(run, "uta_gsm8k_trunc", output.SHARE_CHANGED, settings).value
