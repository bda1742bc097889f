"""A judge server started beside lm_eval (``judge_start_wait``): the two passes generate
while it starts, and it is waited for before the first verdict. The quickstart's local
judge starts so; waiting for it before the first answer cost 7 s of its idle 2-core run."""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any

import pytest
from fault_server import FaultServer
from pipeline_run import DATA, evaluate, records
from test_metrics import thanks_after_full_answers

from uta_tasks.judge import JudgeConfigError
from uta_tasks.servers.llama_server import free_port


def _metadata(port: int, start_wait: float) -> dict[str, Any]:
    return {"judge_base_url": f"http://127.0.0.1:{port}/v1", "judge_model": "fault-judge", "judge_cache": "none",
            "judge_start_wait": start_wait, "gsm8k_data_files": str(DATA / "gsm8k_test.jsonl"),
            "user_max_gen_toks": 16}


def test_the_passes_generate_while_the_judge_server_starts(scripted) -> None:
    port = free_port()
    with ExitStack() as servers:
        started: list[FaultServer] = []

        def script(prompt: str, kwargs: dict) -> str:
            if not started:  # the judge server comes up only once the model generates
                started.append(servers.enter_context(FaultServer(port=port)))
            return thanks_after_full_answers(prompt, kwargs)

        scripted.script = script
        # Were the server waited for before generating, the wait would end after 120 s with no server.
        results = evaluate(scripted, ["uta_gsm8k"], limit=3, metadata=_metadata(port, 120), bootstrap_iters=0)
    found = records(results, "uta_gsm8k")
    assert len(found) == 3 and all(r.verdict is not None and r.verdict.judged for r in found)


def test_a_judge_server_that_never_answers_fails_the_run_before_any_verdict(scripted) -> None:
    generated: list[str] = []

    def script(prompt: str, kwargs: dict) -> str:
        generated.append(prompt)
        return thanks_after_full_answers(prompt, kwargs)

    scripted.script = script
    with pytest.raises(JudgeConfigError, match=r"judge_start_wait=2") as info:
        evaluate(scripted, ["uta_gsm8k"], limit=3, metadata=_metadata(free_port(), 2), bootstrap_iters=0)
    assert "raise judge_start_wait" in str(info.value)
    assert generated, "the passes did not run beside the wait"
