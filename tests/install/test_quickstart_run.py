"""The quickstart for real: SmolLM2 through ``lm_eval --model vllm`` with the local
judge (the same model on its own ``vllm serve``), and an interrupt in the middle that must
leave no process behind.

Needs what ``make test`` prepares: vLLM (CPU build), the embedded model.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
import psutil  # noqa: E402  (test extra)

TASKS = ("uta_ifbench", "uta_ifbench_trunc", "uta_ifbench_question")


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY" and not k.startswith("UTA_JUDGE")}
    env["UTA_JUDGE_CACHE"] = str(tmp_path / "judge.sqlite")  # a real judge run, not old cache hits
    return env


def _command(out: Path, limit: int) -> list[str]:
    return [sys.executable, "-m", "uta_tasks.apps.quickstart", "--limit", str(limit), "--output_path", str(out),
            "--max_gen_toks", "64", "--user_max_gen_toks", "32"]


def _alive(pids: set[int]) -> list[str]:
    left = []
    for pid in pids:
        try:
            proc = psutil.Process(pid)
            if proc.status() != psutil.STATUS_ZOMBIE:
                left.append(f"{pid} {' '.join(proc.cmdline())[:120]}")
        except psutil.NoSuchProcess:
            pass
    return left


def _is_judge_server(child: psutil.Process) -> bool:
    """Whether a child is the judge server; a child that ended between listing and reading
    (a zombie, or gone: vLLM's short-lived helpers end at any time) is not."""
    try:
        line = " ".join(child.cmdline())
        return "vllm.entrypoints.cli.main serve" in line or "llama-server" in child.name()
    except psutil.NoSuchProcess:  # ZombieProcess is one
        return False


def test_quickstart_end_to_end_with_the_local_judge(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = subprocess.run(_command(out, 2), env=_env(tmp_path), stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, timeout=1500)
    assert result.returncode == 0, result.stderr[-6000:]
    assert "Verdicts by the LOCAL judge" in result.stdout and "not a measurement" in result.stdout
    for task in TASKS:
        assert re.search(rf"^{task}\s+2\s", result.stdout, re.M), result.stdout
    results_file = Path(re.search(r"^Results: (.+)$", result.stdout, re.M).group(1))
    results = json.loads(results_file.read_text())
    assert set(TASKS) <= set(results["results"])
    meta = results["configs"]["uta_ifbench"]["metadata"]
    assert meta["judge_base_url"].startswith("http://127.0.0.1:")
    assert meta["judge_model"] == "smollm2-135m-instruct"
    server_pid = int(re.search(r"local judge ready at \S+ \(pid (\d+)\)", result.stderr).group(1))
    assert not _alive({server_pid}), "the judge server outlived the quickstart"
    assert "contradictory" in result.stdout and "time per phase: " in result.stdout


def test_ctrl_c_mid_run_stops_every_process(tmp_path: Path) -> None:
    log = tmp_path / "quickstart.log"
    with open(log, "w") as sink:  # a file, not a pipe: vLLM's output would fill a pipe and block
        process = subprocess.Popen(_command(tmp_path / "out", 5), env=_env(tmp_path), stdin=subprocess.DEVNULL,
                                   stdout=sink, stderr=subprocess.STDOUT)
    seen: set[int] = set()
    try:
        deadline = time.monotonic() + 420
        engine = judge = False
        while not engine:  # lm_eval's own vLLM engine (inside lm_eval's process), beside the judge server
            assert process.poll() is None, f"the quickstart ended early:\n{log.read_text()[-4000:]}"
            assert time.monotonic() < deadline, "lm_eval's vLLM engine never started"
            for child in psutil.Process(process.pid).children(recursive=True):
                seen.add(child.pid)
                judge = judge or _is_judge_server(child)
            engine = "Initializing a V1 LLM engine" in log.read_text()  # the judge server logs to its own file
            time.sleep(1)
        assert judge, "the local judge server was not running beside lm_eval"
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=90)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert code == 130, log.read_text()[-4000:]
    assert "every process the quickstart started is stopped" in log.read_text()
    time.sleep(1)
    assert _alive(seen) == []
