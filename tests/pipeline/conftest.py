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


@pytest.fixture()
def greedy(tokenizer: Any) -> Any:
    """The scripted reasoning model of the ``answers_from`` tests, greedy as lm-eval's backends are."""
    from saved_lm_eval_runs import GreedyLM, greedy_script

    return GreedyLM(tokenizer, greedy_script)


@pytest.fixture()
def ended(tokenizer: Any) -> Any:
    """The ``answers_from`` tests on other harnesses' logs: a model that had ended every saved answer
    (a continuation adds nothing) and asks a user turn."""
    from harness_logs import ended_script
    from saved_lm_eval_runs import GreedyLM

    return GreedyLM(tokenizer, ended_script)


@pytest.fixture()
def wrap(tmp_path: Path) -> Path:
    """``uta:gsm8k``'s task folder."""
    from uta_tasks.wrap.check import plan
    from uta_tasks.wrap.yamls import write

    write(tmp_path / "wrap", plan(["gsm8k"]), {})
    return tmp_path / "wrap"


@pytest.fixture()
def folders(tmp_path: Path) -> dict[str, Path]:
    """``answers_from`` tests: lm-eval's own gsm8k on the fixture (``plain``), ``uta:gsm8k``'s task
    folder (``wrap``) and where the saved run goes (``out``)."""
    from saved_lm_eval_runs import plain_gsm8k_folder

    from uta_tasks.wrap.check import plan
    from uta_tasks.wrap.yamls import write

    write(tmp_path / "wrap", plan(["gsm8k"]), {})
    return {"plain": plain_gsm8k_folder(tmp_path / "plain"), "wrap": tmp_path / "wrap", "out": tmp_path / "out"}
