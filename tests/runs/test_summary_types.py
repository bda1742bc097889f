"""summary.json as typed values: every summary written before reads, and writes back the same JSON."""

from __future__ import annotations

import json

from run_builder import RunSpec, docs, write_run

from uta_tasks.runs import EstimateSettings, build_summary, load_run
from uta_tasks.runs.jsonio import strict
from uta_tasks.runs.summary_types import RunSummary


def test_a_summary_reads_into_types_and_writes_the_same_json(tmp_path):
    write_run(tmp_path, RunSpec({"uta_gsm8k": docs([True, False, None, True]),
                                 "uta_gsm8k_trunc": docs([True, True, False], ref=[False, False, True])},
                                groups={"uta_gsm8k_all": ["uta_gsm8k", "uta_gsm8k_trunc"]}))
    data = json.loads(json.dumps(build_summary(load_run(tmp_path), EstimateSettings(iterations=100))))
    summary = RunSummary.from_json(data)
    assert strict(summary.to_json()) == data
    rate = summary.tasks["uta_gsm8k"].metrics["genuine_followup"]
    assert (rate.k, rate.n, rate.interval.method) == (2, 3, "wilson")
    assert summary.row("uta_gsm8k_all").tasks == ["uta_gsm8k", "uta_gsm8k_trunc"]
    assert summary.task_provenance("uta_gsm8k")["pass2_context"] == "trace"


def test_a_summary_from_before_keeps_the_keys_this_version_does_not_know():
    old = {"schema": "uta-summary/1", "results_file": "results_x.json", "settings": {"confidence": 0.9},
           "provenance": {"tasks": {"uta_gsm8k": {"judge_model": "j"}}}, "lm_eval": {},
           "tasks": {"uta_gsm8k": {"benchmark": "gsm8k", "perturbation": "none", "repeats": 1, "n_docs": 2,
                                   "samples": False, "metrics": {"genuine_followup": {
                                       "value": 0.5, "ci_low": 0.1, "ci_high": 0.9, "ci_method": "wilson",
                                       "k": 1, "n": 2, "counts": "results (approximate)", "lm_eval": 0.5,
                                       "stderr": None, "old_field": 1}}}},
           "groups": {}, "samples_files": {}, "written_by": "an older version"}
    summary = RunSummary.from_json(old)
    rate = summary.tasks["uta_gsm8k"].metric("genuine_followup")
    assert rate.approximate and rate.interval.confidence == 0.9 and rate.extra == {"old_field": 1}
    assert summary.to_json() == old


def test_a_summary_that_named_share_changed_changed_share_reads_it_under_todays_name():
    wilson = {"value": 0.75, "ci_low": 0.3, "ci_high": 0.95, "ci_method": "wilson", "k": 3, "n": 4,
              "counts": "samples", "lm_eval": 0.75, "stderr": None}
    stderr = {**wilson, "ci_method": "normal_stderr", "k": None, "n": None, "counts": None, "stderr": 0.2}
    old = {"schema": "uta-summary/1", "results_file": "results_x.json", "settings": {"confidence": 0.95},
           "provenance": {}, "lm_eval": {}, "groups": {}, "samples_files": {},
           "tasks": {"uta_gsm8k_trunc": {"benchmark": "gsm8k", "perturbation": "trunc", "repeats": 1, "n_docs": 4,
                                         "samples": True,
                                         "metrics": {"share_changed": stderr, "changed_share": wilson}}}}
    metrics = RunSummary.from_json(old).tasks["uta_gsm8k_trunc"].metrics
    assert set(metrics) == {"share_changed"}
    assert (metrics["share_changed"].k, metrics["share_changed"].n) == (3, 4)  # the entry with counts
