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
    marker = tmp_path / "still-running"
    code = f"import pathlib, time; time.sleep(2); pathlib.Path({str(marker)!r}).write_text('x'); time.sleep(60)"
    calls: list[int] = []

    def watch() -> None:
        calls.append(1)
        if len(calls) == 1:
            raise QuickstartError("the local judge stopped: exit 1")

    with pytest.raises(QuickstartError, match="local judge stopped"):
        run_child([sys.executable, "-c", code], {}, "child", alongside=watch)
    assert calls == [1]
    assert not marker.exists()  # stopped after the first watch, before it wrote


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
