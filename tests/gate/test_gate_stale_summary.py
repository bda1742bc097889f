"""The gate decides on what the run holds now: a ``summary.json`` written before a samples file
was edited, added or removed is stale, and the gate (and the report) recompute it from the files."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest
import yaml
from run_builder import RunSpec, docs, write_run

from uta_tasks.apps.gate.cli import main as gate_main
from uta_tasks.apps.report.cli import main as report_main
from uta_tasks.apps.summary import main as summary_main

N = 40
RULE = "uta_gsm8k: genuine_followup >= 0.5"


@pytest.fixture
def run(tmp_path: Path) -> Path:
    """A run whose follow-up rate is 30 of 40 (the rule holds); returns its folder."""
    spec = RunSpec({"uta_gsm8k": docs([i < 30 for i in range(N)]), "uta_gsm8k_trunc": docs([True] * N)})
    return write_run(tmp_path / "cand", spec).parent


def _samples(folder: Path) -> Path:
    return next(folder.glob("samples_uta_gsm8k_2*.jsonl"))


def _not_genuine(path: Path) -> None:
    """Every verdict of the samples file made 'not genuine' (label previous_turn_restate)."""
    lines = []
    for line in path.read_text().splitlines():
        row = json.loads(line)
        records = []
        for text in row["filtered_resps"][0]:
            record = json.loads(text)
            record["verdict"].update(genuine=False, label="previous_turn_restate")
            records.append(json.dumps(record))
        row["filtered_resps"] = [records]
        lines.append(json.dumps(row))
    path.write_text("\n".join(lines) + "\n")


def _gate(folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    rules = tmp_path / "gate.yaml"
    rules.write_text(yaml.safe_dump({"settings": {"min_judged": 1}, "rules": [RULE]}))
    code = gate_main([str(folder), "--rules", str(rules), "--strict", "--json", str(tmp_path / "gate.json")])
    return code, capsys.readouterr().out


def test_the_gate_fails_once_every_verdict_of_a_samples_file_is_not_genuine(
        run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    assert summary_main([str(run)]) == 0
    assert _gate(run, tmp_path, capsys)[0] == 0  # 30/40 >= 0.5, from the summary just written
    _not_genuine(_samples(run))
    caplog.set_level(logging.WARNING)
    code, out = _gate(run, tmp_path, capsys)
    assert code == 1, out
    assert json.loads((tmp_path / "gate.json").read_text())["rules"][0]["value"] == 0.0
    stale = [r.getMessage() for r in caplog.records if "is stale" in r.getMessage()]
    assert stale and _samples(run).name in stale[0] and "changed size" in stale[0]


def test_an_edit_that_keeps_size_and_time_is_still_seen(
        run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    samples = _samples(run)
    assert summary_main([str(run)]) == 0
    before = samples.stat()
    text = samples.read_text()
    flipped = text.replace('\\"genuine\\": true, ', '\\"genuine\\":false, ')
    assert flipped != text and len(flipped) == len(text)
    samples.write_text(flipped)
    os.utime(samples, ns=(before.st_atime_ns, before.st_mtime_ns))  # as cp -p or an artifact download may
    caplog.set_level(logging.WARNING)
    assert _gate(run, tmp_path, capsys)[0] == 1
    assert any("changed content" in r.getMessage() for r in caplog.records)


def test_a_samples_file_added_after_the_summary_is_read(
        run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    samples = _samples(run)
    _not_genuine(samples)
    kept = samples.rename(tmp_path / samples.name)
    assert summary_main([str(run)]) == 0  # without samples: 0.75 from the results file
    summary = json.loads((run / "summary.json").read_text())
    assert summary["tasks"]["uta_gsm8k"]["metrics"]["genuine_followup"]["value"] == 0.75
    assert samples.name not in summary["sources"]
    kept.rename(samples)
    caplog.set_level(logging.WARNING)
    assert _gate(run, tmp_path, capsys)[0] == 1  # the samples say 0 of 40
    assert any(f"{samples.name} appeared after" in r.getMessage() for r in caplog.records)


def test_a_samples_file_removed_after_the_summary_is_noticed(
        run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    samples = _samples(run)
    _not_genuine(samples)
    assert summary_main([str(run)]) == 0
    assert _gate(run, tmp_path, capsys)[0] == 1
    samples.unlink()
    caplog.set_level(logging.WARNING)
    assert _gate(run, tmp_path, capsys)[0] == 0  # the results file says 30 of 40
    assert any(f"{samples.name} no longer exists" in r.getMessage() for r in caplog.records)


def test_the_report_recomputes_a_stale_summary_too(
        run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    assert summary_main([str(run)]) == 0
    _not_genuine(_samples(run))
    caplog.set_level(logging.WARNING)
    assert report_main([str(run), "--output_path", str(tmp_path / "report")]) == 0
    assert any("is stale" in r.getMessage() for r in caplog.records)
    summary = json.loads((run / "summary.json").read_text())
    assert summary["tasks"]["uta_gsm8k"]["metrics"]["genuine_followup"]["value"] == 0.0


def test_a_current_summary_is_used_as_written(run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert summary_main([str(run)]) == 0
    path = run / "summary.json"
    data = json.loads(path.read_text())
    assert set(data["sources"]) == {p.name for p in run.glob("*_2025-*.json*")}
    assert set(data["sources"][_samples(run).name]) == {"size", "mtime_ns", "sha256"}
    data["tasks"]["uta_gsm8k"]["metrics"]["genuine_followup"]["value"] = 0.01  # marks it as the one read
    path.write_text(json.dumps(data))
    assert _gate(run, tmp_path, capsys)[0] == 1
