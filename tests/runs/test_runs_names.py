"""The names the readers depend on (uta_tasks/runs/names.py) still match what the package writes.

When one of these fails after a rename upstream, fix the one line in names.py.
"""

from __future__ import annotations

import dataclasses

from uta_tasks.runs import names


def _trunc_aggregations() -> dict:
    from uta_tasks.datasets import BENCHMARKS
    from uta_tasks.metrics import table

    bench = BENCHMARKS["gsm8k"]
    shape = table.TaskShape(perturbation="trunc", judged=True, held_out=True, primary=bench.primary)
    return {m.name: m.aggregation for m in table.metrics_for(shape, bench.aggregations)}


def test_metric_names_are_the_ones_the_tasks_report():
    reported = set(_trunc_aggregations())
    expected = {names.GENUINE, names.GENUINE_BASE, names.GENUINE_DIFF, names.GENUINE_PASS_AT_K, names.GENUINE_CORRECT,
                names.GENUINE_WRONG, names.GENUINE_REFERENCE, names.UNJUDGED, names.PCT_CHANGED, names.TRUNC_EMPTIED,
                *names.JUDGE_USAGE_METRICS, *(names.label_metric(x) for x in names.labels())}
    assert expected <= reported, expected - reported
    assert names.primary_metric("gsm8k") in reported
    assert names.primary_metric("healthbench") is None


def test_pct_changed_scale_is_the_one_the_metric_uses():
    from uta_tasks.metrics import results as mr
    from uta_tasks.probe.records import ProbeRecord

    record = ProbeRecord(task="t", benchmark="gsm8k", perturbation="question", q="q", messages=[], a="x", answer="x",
                         reasoning_form="plain", history="x", a_prime="x y", role_switch={}, generation={},
                         given_answer=False, u="a", u_ref="b")
    assert mr.generation_metrics([record])[names.PCT_CHANGED] == names.PCT_CHANGED_SCALE


def test_verdict_and_record_field_names():
    from uta_tasks.judge.records import JUDGED, Verdict

    fields = {f.name for f in dataclasses.fields(Verdict)}
    assert {names.V_STATUS, names.V_LABEL, names.V_GENUINE, names.V_RATIONALE, names.V_REASON, names.V_PROMPT,
            names.V_JUDGE_MODEL, names.V_PROMPT_VERSION} <= fields
    assert names.V_JUDGED == JUDGED
    from uta_tasks.probe.records import ProbeRecord

    record_fields = {f.name for f in dataclasses.fields(ProbeRecord)}
    for field in (names.REC_Q, names.REC_A_PRIME, names.REC_U, names.REC_U_REF, names.REC_PERTURBATION,
                  names.REC_GENERATION, names.REC_VERDICT, names.REC_VERDICT_REF, names.REC_VERDICT_REFERENCE,
                  names.REC_REFERENCE_TURN):
        assert field in record_fields, field


def test_task_metadata_keys_are_the_generated_ones():
    from pathlib import Path

    import uta_tasks

    text = (Path(uta_tasks.include_path()) / "gsm8k" / "uta_gsm8k_trunc.yaml").read_text()
    assert f"{names.META_BENCHMARK}: gsm8k" in text and f"{names.META_PERTURBATION}: trunc" in text
    defaults = names.judge_defaults()
    assert defaults["judge_model"] and defaults["prompt_version"]
