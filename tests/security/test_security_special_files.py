"""Every run-folder command refuses a file that is not a regular file, at once: a named pipe
(FIFO) with no writer, a link to ``/dev/zero`` or ``/dev/urandom`` (devices whose size says 0
and whose reading never ends), a folder, a symbolic link loop, and a file whose reading fails
with ``EIO`` (a link to ``/proc/self/mem``: a regular file the kernel refuses to read at
offset 0, a real ``EIO`` without a test double), each as the results file and as a samples
file. The five commands run as their own processes (``python -m``, this worktree first on
``PYTHONPATH``); each must end with exit 2, name the file on stderr and print no traceback.
The timeout only catches a command that hangs; it is not a speed bound."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from run_builder import RunSpec, docs, write_run

ROOT = Path(__file__).resolve().parents[2]
HANG = 120  # seconds: a command still running then is hung (each case ends in about a second)
FAULTS = ("fifo", "dev_zero", "dev_urandom", "folder", "link_loop", "eio")
JUDGE = {"judge_base_url": "http://127.0.0.1:9/v1", "judge_model": "judge-x", "judge_cache": "off",
         "judge_max_retries": 0}

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo") or not Path("/proc/self/mem").exists(),
                                reason="needs FIFOs and /proc (Linux)")


def _make(path: Path, fault: str) -> None:
    """Put the special file ``fault`` where the run's file ``path`` was."""
    path.unlink()
    if fault == "fifo":
        os.mkfifo(path)
    elif fault == "dev_zero":
        path.symlink_to("/dev/zero")
    elif fault == "dev_urandom":
        path.symlink_to("/dev/urandom")
    elif fault == "folder":
        path.mkdir()
        (path / "inside.txt").write_text("x")
    elif fault == "link_loop":
        other = path.with_name(path.name + ".other")
        path.symlink_to(other.name)
        other.symlink_to(path.name)
    else:  # eio
        path.symlink_to("/proc/self/mem")


def _commands(run: Path, out: Path) -> dict[str, list[str]]:
    rules = out / "rules.yaml"
    rules.write_text(yaml.safe_dump({"settings": {"min_judged": 1}, "rules": ["uta_gsm8k: genuine_followup >= 0.0"]}))
    return {
        "uta-summary": ["uta_tasks.apps.summary", str(run)],
        "uta-gate": ["uta_tasks.apps.gate.cli", str(run), "--rules", str(rules), "--junit", str(out / "gate.xml")],
        "uta-report": ["uta_tasks.apps.report.cli", str(run), "--output_path", str(out / "report")],
        "uta-rejudge": ["uta_tasks.apps.rejudge.cli", str(run), "--metadata", json.dumps(JUDGE),
                        "--output_path", str(out / "rejudged")],
        "uta-agreement": ["uta_tasks.apps.agreement.cli", f"a={run}", f"b={run}"],
    }


@pytest.mark.parametrize("where", ["results", "samples"])
@pytest.mark.parametrize("fault", FAULTS)
def test_a_special_file_ends_every_command_with_exit_2_naming_it(fault: str, where: str, tmp_path: Path) -> None:
    results = write_run(tmp_path / "runs", RunSpec({"uta_gsm8k": docs([True, False, True])}))
    folder = results.parent
    target = results if where == "results" else next(folder.glob("samples_uta_gsm8k_*.jsonl"))
    _make(target, fault)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    started = {}
    for name, argv in _commands(folder, tmp_path).items():
        started[name] = subprocess.Popen([sys.executable, "-m", *argv], stdin=subprocess.DEVNULL,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                         cwd=tmp_path)
    outcome = {}
    for name, process in started.items():
        try:
            _, err = process.communicate(timeout=HANG)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            outcome[name] = ("hung", "")
            continue
        outcome[name] = (process.returncode, err)
    for name, (code, err) in outcome.items():
        assert code == 2, (name, fault, where, code, err[-1500:])
        assert target.name in err, (name, fault, where, err[-1500:])
        assert "Traceback" not in err, (name, fault, where, err[-3000:])
    cases = ET.parse(tmp_path / "gate.xml").getroot()  # the gate writes its JUnit file on exit 2
    assert any(child.tag == "error" for case in cases.iter("testcase") for child in case)
