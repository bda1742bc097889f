"""Fast pipeline tests: real lm-eval evaluator, real tokenizer, scripted model."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "judge"))

from scripted_lm import ScriptedLM, load_tokenizer  # noqa: E402

DATA = HERE.parent / "fixtures" / "data"
IFBENCH = ["uta_ifbench", "uta_ifbench_trunc", "uta_ifbench_question"]
NO_JUDGE = {"judge": "none", "ifbench_unverifiable": "drop", "user_max_gen_toks": 16}


@pytest.fixture(scope="session")
def tokenizer() -> Any:
    return load_tokenizer("smollm2")


@pytest.fixture()
def scripted(tokenizer: Any) -> ScriptedLM:
    return ScriptedLM(tokenizer)


@pytest.fixture()
def judge_server() -> Iterator[Any]:
    """The scripted OpenAI-compatible judge on 127.0.0.1 (genuine iff u contains '?')."""
    from fault_server import FaultServer

    with FaultServer() as server:
        yield server


def evaluate(lm: Any, tasks: list[str], *, metadata: dict | None = None, include: tuple = (), **kwargs: Any) -> dict:
    """lm-eval's ``simple_evaluate`` with the uta tasks visible and samples logged."""
    import lm_eval

    import uta_tasks
    from uta_tasks import lm_eval_compat

    paths = [uta_tasks.include_path(), *map(str, include)]
    tm = lm_eval_compat.task_manager_class()(include_path=paths, metadata=dict(metadata or NO_JUDGE))
    kwargs.setdefault("gen_kwargs", {"max_gen_toks": 64})
    kwargs.setdefault("log_samples", True)
    kwargs.setdefault("bootstrap_iters", 100)
    return lm_eval.simple_evaluate(model=lm, tasks=tasks, task_manager=tm, **kwargs)


def records(results: dict, task: str) -> list[Any]:
    """The probe records of a task's logged samples."""
    from uta_tasks.probe.records import ProbeRecord

    return [ProbeRecord.from_json(r) for s in results["samples"][task] for r in s["filtered_resps"][0]]
