"""examples/ci_gate.yml and examples/uta_gate_rules.yaml stay in step with the commands."""

from __future__ import annotations

import shlex
from pathlib import Path

import yaml

from uta_tasks.apps.gate import load_rules
from uta_tasks.apps.gate.cli import parser as gate_parser
from uta_tasks.apps.report.cli import parser as report_parser
from uta_tasks.runs.estimates import count_metrics

ROOT = Path(__file__).resolve().parents[2]


def _commands(workflow: dict) -> dict[str, list[str]]:
    found = {}
    for step in workflow["jobs"]["gate"]["steps"]:
        for line in step.get("run", "").replace("\\\n", " ").splitlines():
            words = shlex.split(line.strip())
            if words and words[0] in ("uta-eval", "uta-gate", "uta-report"):
                found[words[0]] = words[1:]
    return found


def test_workflow_runs_gates_reports_and_uploads():
    workflow = yaml.safe_load((ROOT / "examples" / "ci_gate.yml").read_text())
    commands = _commands(workflow)
    assert set(commands) == {"uta-eval", "uta-gate", "uta-report"}
    assert "--log_samples" in commands["uta-eval"]
    gate = gate_parser().parse_args(commands["uta-gate"])
    assert gate.candidate == "out/candidate" and gate.baseline and str(gate.markdown) == "out/gate.md"
    report = report_parser().parse_args(commands["uta-report"])
    assert report.folders[0] == "out/candidate" and report.output_path == "out/report"
    steps = workflow["jobs"]["gate"]["steps"]
    assert any(s.get("uses", "").startswith("actions/upload-artifact") for s in steps)
    assert any("GITHUB_STEP_SUMMARY" in s.get("run", "") for s in steps)


def test_example_rules_name_real_tasks_and_metrics():
    rules = load_rules(ROOT / "examples" / "uta_gate_rules.yaml")
    task_files = {p.stem.lstrip("_") for p in (ROOT / "uta_tasks" / "tasks").rglob("*.yaml")}
    for rule in rules.rules:
        assert rule.task in task_files, rule.task
        assert rule.metric in count_metrics(), rule.metric
    assert rules.needs_baseline and rules.settings.min_judged == 50
