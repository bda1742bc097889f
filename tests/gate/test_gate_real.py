"""uta-gate as a command on a real small run, with known outcomes for exit codes 0, 1 and 2."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def _gate(*args, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "uta_tasks.apps.gate.cli", *map(str, args)], check=False, capture_output=True,
                          text=True, env=env, timeout=300, cwd=cwd)


def _rules(path: Path, *rules, **settings) -> Path:
    path.write_text(yaml.safe_dump({"settings": {"min_judged": 1, **settings}, "rules": list(rules)}))
    return path


def test_gate_command_on_a_real_run(uta_real_run, tmp_path):
    holds = _rules(tmp_path / "holds.yaml",
                   "uta_ifbench_trunc: unjudged_share <= 1.0",
                   "uta_ifbench: accuracy >= 0.0",
                   {"task": "uta_ifbench_trunc", "metric": "unjudged_share", "max_rise": 0.0})
    baseline = tmp_path / "baseline"
    shutil.copytree(uta_real_run, baseline)  # the same run as its own baseline: no change
    ok = _gate(uta_real_run, "--rules", holds, "--baseline", baseline, "--junit", tmp_path / "ok.xml",
               "--markdown", tmp_path / "ok.md", cwd=tmp_path)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "gate PASSED (exit 0): 3 passed" in ok.stdout
    suite = ET.parse(tmp_path / "ok.xml").getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("3", "0", "0")
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["judge_model"] == "smollm2-135m-instruct"
    assert "| uta_ifbench: accuracy >= 0 |" in (tmp_path / "ok.md").read_text()

    fails = _rules(tmp_path / "fails.yaml", "uta_ifbench_trunc: unjudged_share < 0.0",
                   "uta_ifbench: accuracy >= 0.0")
    bad = _gate(uta_real_run, "--rules", fails, "--junit", tmp_path / "bad.xml", cwd=tmp_path)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    cases = {c.get("name"): c for c in ET.parse(tmp_path / "bad.xml").getroot().iter("testcase")}
    assert cases["uta_ifbench_trunc: unjudged_share < 0"].find("failure") is not None

    missing = _rules(tmp_path / "missing.yaml", "uta_gsm8k: genuine_followup >= 0.1")
    undecided = _gate(uta_real_run, "--rules", missing, cwd=tmp_path)
    assert undecided.returncode == 2
    assert "task or group 'uta_gsm8k' is not in the candidate run" in undecided.stdout
