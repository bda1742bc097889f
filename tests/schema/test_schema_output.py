"""The names in uta_tasks/schema/output.py are the ones the package writes.

The readers of output folders (runs, gate, report) look these names up; when one of these
tests fails after a rename in the metrics or the task generator, fix the one line in
output.py.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from uta_tasks.schema import output
from uta_tasks.schema.labels import LABELS


def _trunc_metrics() -> set[str]:
    from uta_tasks.datasets import BENCHMARKS
    from uta_tasks.metrics import table

    bench = BENCHMARKS["gsm8k"]
    shape = table.TaskShape(perturbation="trunc", judged=True, held_out=True, primary=bench.primary)
    return {m.name for m in table.metrics_for(shape, bench.aggregations)}


def test_metric_names_are_the_ones_the_tasks_report():
    expected = {output.GENUINE, output.GENUINE_BASE, output.GENUINE_DIFF, output.GENUINE_PASS_AT_K,
                output.GENUINE_CORRECT, output.GENUINE_WRONG, output.GENUINE_REFERENCE, output.UNJUDGED,
                output.SHARE_CHANGED, output.TRUNC_EMPTIED, *output.JUDGE_USAGE_METRICS,
                *(output.label_metric(x) for x in LABELS)}
    reported = _trunc_metrics()
    assert expected <= reported, expected - reported


def test_share_changed_is_one_share_under_one_name():
    from uta_tasks.metrics import table
    from uta_tasks.metrics.results import measure
    from uta_tasks.schema.probe import ProbeRecord

    record = ProbeRecord(task="t", benchmark="gsm8k", perturbation="question", q="q", messages=[], a="x", answer="x",
                         reasoning_form="plain", history="x", a_prime="x y", role_switch={}, generation={},
                         given_answer=False, u="a", u_ref="b")
    specs = [m for m in table.PROBE_METRICS if m.name == output.SHARE_CHANGED]
    found = measure([record], [{}], specs, None)
    assert found.values[output.SHARE_CHANGED] == 1.0  # a 0-1 share, as lm-eval reports it
    assert found.units[output.SHARE_CHANGED] == {(0, 0): 1.0}  # and the unit behind its interval
    assert output.current_name("changed_share") == output.SHARE_CHANGED  # the name older summaries wrote


def test_task_metadata_keys_are_the_generated_ones():
    import uta_tasks
    from uta_tasks.schema.probe import ProbeRecord, ProbeSpec

    text = (Path(uta_tasks.include_path()) / "gsm8k" / "uta_gsm8k_trunc.yaml").read_text()
    assert f"{output.META_BENCHMARK}: gsm8k" in text and f"{output.META_PERTURBATION}: trunc" in text
    for cls in (ProbeSpec, ProbeRecord):  # the probe's modes are settings and record fields
        assert set(output.RUN_MODES) <= {f.name for f in dataclasses.fields(cls)}
