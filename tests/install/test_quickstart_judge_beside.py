"""The local vLLM judge starts beside lm_eval: lm_eval's preflight waits for it
(judge_start_wait), and a judge server that dies stops the run with its log's end instead
of leaving lm_eval waiting."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from uta_tasks.apps import quickstart
from uta_tasks.apps.quickstart.errors import QuickstartError
from uta_tasks.servers.processes import run_child


def test_the_local_vllm_judge_is_waited_for_by_the_preflight() -> None:
    vllm = quickstart.local_judge_settings("vllm")
    assert vllm["judge_start_wait"] >= 300  # a vLLM start on 2 cores takes 1-2 min beside lm_eval
    assert "judge_start_wait" not in quickstart.local_judge_settings("llama")  # waited for before lm_eval


def test_a_failing_watch_stops_the_command_it_watches(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    code = f"import os, pathlib, time; pathlib.Path({str(pid_file)!r}).write_text(str(os.getpid())); time.sleep(600)"
    calls: list[int] = []

    def watch() -> None:
        if not pid_file.is_file() or not pid_file.read_text():
            return  # the command has not started yet
        calls.append(1)
        raise QuickstartError("the local judge stopped: exit 1")

    with pytest.raises(QuickstartError, match="local judge stopped"):
        run_child([sys.executable, "-c", code], {}, "child", alongside=watch)
    assert calls == [1]  # the first failing watch ended it
    child = int(pid_file.read_text())
    stat = Path(f"/proc/{child}/stat")
    assert not stat.exists() or stat.read_text().split()[2] == "Z"  # stopped, not left sleeping


@pytest.mark.slow
def test_a_judge_server_that_dies_while_starting_is_reported(tmp_path: Path) -> None:
    judge = quickstart.Judge("local", "smollm2-135m-instruct", server="vllm",
                             settings=quickstart.local_judge_settings("vllm"))
    missing = tmp_path / "no-model-here"
    with quickstart.judge_endpoint(judge, tmp_path, missing, quickstart.child_env({})) as service:
        assert service.started_beside and service.judge.base_url.startswith("http://127.0.0.1:")
        with pytest.raises(QuickstartError, match="the local judge stopped: vllm serve exited with code") as info:
            run_child([sys.executable, "-c", "import time; time.sleep(900)"], {}, "lm_eval stand-in",
                      alongside=service.watch)
    assert str(missing) in str(info.value)  # the log's end says which model it could not load
    assert (tmp_path / "judge-vllm-serve.log").is_file()
