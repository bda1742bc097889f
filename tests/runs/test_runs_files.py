"""Finding runs in output folders, reading samples, strict JSON."""

from __future__ import annotations

import json
import math

import pytest
from run_builder import RunSpec, docs, write_run

from uta_tasks.runs import RunNotFoundError, find_runs, single_run
from uta_tasks.runs.jsonio import dumps_strict, read_json, strict
from uta_tasks.runs.samples import decode_records, read_samples


def _reject(token):
    raise ValueError(f"non-strict JSON token {token}")


def test_strict_turns_every_non_finite_number_into_null():
    data = {"a": math.nan, "b": [1.0, math.inf, {"c": -math.inf}], "d": "NaN", "e": 2}
    assert strict(data) == {"a": None, "b": [1.0, None, {"c": None}], "d": "NaN", "e": 2}
    text = dumps_strict(data)
    assert json.loads(text, parse_constant=_reject)["a"] is None


def test_read_json_accepts_lm_evals_bare_nan(tmp_path):
    path = tmp_path / "results_x.json"
    path.write_text('{"results": {"t": {"genuine_followup,none": NaN}}}')
    assert math.isnan(read_json(path)["results"]["t"]["genuine_followup,none"])
    path.write_text('{"results": ')
    with pytest.raises(ValueError, match="not valid JSON"):
        read_json(path)


def test_a_bad_samples_line_is_refused_naming_file_and_line(tmp_path):
    path = tmp_path / "samples_uta_gsm8k_x.jsonl"
    path.write_text('\n{"filtered_resps": [[]]}\n')  # a blank line, then a sample without doc_id
    with pytest.raises(ValueError, match=rf"{path.name}:2: no integer doc_id"):
        read_samples(path)
    path.write_text('\n{"doc_id": \n')
    with pytest.raises(ValueError, match=rf"{path.name}:2 is not valid JSON"):
        read_samples(path)
    path.write_text('{"doc_id": 0, "filtered_resps": [[]]}\n')  # a doc without a probe record
    with pytest.raises(ValueError, match=rf"{path.name}:1: filtered_resps\[0\] is empty"):
        read_samples(path)


def test_find_runs_pairs_each_results_file_with_its_samples(tmp_path):
    spec = {"uta_gsm8k": docs([True]), "uta_gsm8k_trunc": docs([False])}
    old = write_run(tmp_path, RunSpec(spec, date_id="2025-01-01T00-00-00.000000"))
    new = write_run(tmp_path, RunSpec(spec, date_id="2025-02-01T00-00-00.000000"))
    runs = find_runs(tmp_path)
    assert [r.results for r in runs] == [old, new]
    assert sorted(runs[1].samples) == ["uta_gsm8k", "uta_gsm8k_trunc"]
    assert all("2025-02-01" in p.name for p in runs[1].samples.values())
    assert single_run(tmp_path).results == new
    assert single_run(old).results == old
    assert runs[1].summary == new.with_name("summary.json")


def test_single_run_refuses_runs_of_several_models(tmp_path):
    write_run(tmp_path, RunSpec({"uta_gsm8k": docs([True])}, model="org/a"))
    write_run(tmp_path, RunSpec({"uta_gsm8k": docs([True])}, model="org/b"))
    with pytest.raises(RunNotFoundError, match="2 folders"):
        single_run(tmp_path)


def test_missing_or_empty_folders_name_the_path(tmp_path):
    with pytest.raises(RunNotFoundError, match="does not exist"):
        find_runs(tmp_path / "nope")
    with pytest.raises(RunNotFoundError, match="holds no results_"):
        find_runs(tmp_path)


def test_samples_decode_one_record_per_repeat(tmp_path):
    from run_builder import Doc, Turn

    spec = RunSpec({"uta_gsm8k": [Doc([Turn(True), Turn(None), Turn(False)])]})
    files = single_run(write_run(tmp_path, spec).parent)
    (doc,) = read_samples(files.samples["uta_gsm8k"])
    assert [r.verdict.status for r in doc.records if r.verdict] == ["judged", "unjudged", "judged"]
    assert doc.metrics["genuine_followup"] == 0.5
    with pytest.raises(ValueError, match="filtered_resps"):
        decode_records({"doc_id": 0}, "line 1")
