"""summary.json: strict JSON beside the results, reused when current, and the uta-summary command."""

from __future__ import annotations

import json
import os

import pytest
from run_builder import RunSpec, docs, write_run

from uta_tasks.apps.summary import main as summary_main
from uta_tasks.runs import EstimateSettings, load_summary, single_run, write_summary


def _strict_load(path):
    def reject(token):
        raise AssertionError(f"{path} holds the non-JSON token {token}")

    return json.loads(path.read_text(), parse_constant=reject)


@pytest.fixture
def results(tmp_path):
    spec = RunSpec({"uta_gsm8k": docs([True, None, False], correct=[True, True, True]),
                    "uta_gsm8k_trunc": docs([True, True, False])},
                   judge_model="judge-z", temperature=0.7, groups={"g": ["uta_gsm8k", "uta_gsm8k_trunc"]})
    return write_run(tmp_path, spec)


def test_summary_is_strict_json_with_nan_as_null(results):
    assert "NaN" in results.read_text()  # lm-eval's own file is not strict JSON
    path = write_summary(results.parent)
    assert path == results.with_name("summary.json")
    data = _strict_load(path)
    metrics = data["tasks"]["uta_gsm8k"]["metrics"]
    assert metrics["genuine_followup_wrong"]["value"] is None  # every doc correct: lm-eval wrote NaN
    assert data["lm_eval"]["results"]["uta_gsm8k"]["genuine_followup_stderr,none"] is None
    g = metrics["genuine_followup"]
    assert (g["k"], g["n"], g["ci_method"], g["counts"]) == (1, 2, "wilson", "samples")
    assert data["groups"]["g"]["metrics"]["genuine_followup"]["n"] == 5
    prov = data["provenance"]
    assert (prov["judge_model"], prov["temperature"], prov["prompt_version"]) == ("judge-z", 0.7, "followupeval-v1")
    assert prov["tasks"]["uta_gsm8k"]["judge_model_source"] == "samples"


def test_load_summary_reuses_a_current_file_and_rebuilds_a_stale_one(results):
    files = single_run(results.parent)
    path = write_summary(files)
    data = _strict_load(path)
    data["marker"] = "kept"
    path.write_text(json.dumps(data))
    assert load_summary(files)["marker"] == "kept"
    other = load_summary(files, EstimateSettings(confidence=0.9))
    assert "marker" not in other and other["settings"]["confidence"] == 0.9
    assert _strict_load(path)["settings"]["confidence"] == 0.9
    data = _strict_load(path)
    data["marker"] = "kept"
    path.write_text(json.dumps(data))
    os.utime(results, (path.stat().st_mtime + 10, path.stat().st_mtime + 10))  # a newer time, the same bytes
    assert load_summary(files, EstimateSettings(confidence=0.9))["marker"] == "kept"
    results.write_text(results.read_text() + "\n")  # the bytes changed
    assert "marker" not in load_summary(files, EstimateSettings(confidence=0.9))


def test_provenance_without_samples_comes_from_metadata_or_defaults(tmp_path):
    spec = RunSpec({"uta_gsm8k": docs([True])}, samples=False, judge_model="judge-m", prompt_version="custom-v2")
    prov = load_summary(single_run(write_run(tmp_path, spec).parent))["provenance"]["tasks"]["uta_gsm8k"]
    assert (prov["judge_model"], prov["judge_model_source"]) == ("judge-m", "metadata")
    assert (prov["prompt_version"], prov["prompt_version_source"]) == ("custom-v2", "metadata")


def test_uta_summary_command(results, tmp_path, capsys):
    assert summary_main([str(results.parent.parent)]) == 0
    assert capsys.readouterr().out.strip() == str(results.with_name("summary.json"))
    assert summary_main([str(tmp_path / "missing")]) == 2
    assert "does not exist" in capsys.readouterr().err
