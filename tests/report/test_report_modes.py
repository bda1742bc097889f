"""Issue 17: pass2_context and truncate_scope are run dimensions, like temperature: a report
holding both modes keeps them apart and shows them side by side; the summary records them."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runs"))

from run_builder import RunSpec, docs, write_run  # noqa: E402

from uta_tasks.runs import find_runs, load_run  # noqa: E402
from uta_tasks.runs.collect import collect  # noqa: E402
from uta_tasks.runs.provenance import run_provenance  # noqa: E402


def _run(root: Path, name: str, genuine: list[bool], **modes: str) -> Path:
    tasks = {"uta_gsm8k": docs(genuine)}
    return write_run(root / name, RunSpec(tasks, **modes)).parent


def test_modes_are_never_pooled_and_show_side_by_side(tmp_path):
    trace = _run(tmp_path, "trace", [True, False, False, False])
    template = _run(tmp_path, "template", [True, True, True, False], pass2_context="template")
    data = collect([trace, template])
    by_series = {row.model: row.metric("genuine_followup").value for row in data.rows}
    assert by_series == {"org/model-a": 0.25, "org/model-a [pass2_context=template]": 0.75}


def test_provenance_names_the_modes_and_old_records_read_as_what_they_did(tmp_path):
    folder = _run(tmp_path, "scope", [True, False], truncate_scope="final_answer")
    prov = run_provenance(load_run(next(iter(find_runs(folder)))))
    assert (prov["pass2_context"], prov["truncate_scope"]) == ("trace", "final_answer")
    assert prov["tasks"]["uta_gsm8k"]["truncate_scope"] == "final_answer"


def test_a_version_2_record_reads_as_template_and_final_answer():
    from uta_tasks.schema.probe import ProbeRecord

    old = {"task": "t", "benchmark": "gsm8k", "perturbation": "trunc", "q": "q", "messages": [], "a": "a",
           "answer": "a", "reasoning_form": "plain", "a_prime": "", "role_switch": {"history": "raw"},
           "generation": {}, "given_answer": False, "record_version": 2,
           "truncation": {"n_tokens": 3, "removed_tokens": 3, "emptied": True}}
    record = ProbeRecord.from_json(old)
    assert (record.pass2_context, record.truncate_scope, record.record_version) == ("template", "final_answer", 2)
    assert record.history == "a" and record.u_samples == []
