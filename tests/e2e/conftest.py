"""Real lm-eval runs with the real SmolLM2 on the CPU (``--model hf`` in process)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runs"))

from real_run import uta_real_run  # noqa: E402,F401  (the shared session fixture: one live judged run)


@pytest.fixture()
def lm(hf_lm):
    """The session model with lm-eval's request cache detached again after the test."""
    from lm_eval.api.model import CacheHook

    yield hf_lm
    hf_lm.set_cache_hook(CacheHook(None))


@pytest.fixture()
def backend_calls(monkeypatch):
    """Every batch that reaches the backend's generate_until: a list of prompt lists."""
    from lm_eval.models.huggingface import HFLM

    calls: list[list[str]] = []
    original = HFLM.generate_until

    def counting(self, requests, disable_tqdm=False):
        calls.append([r.args[0] for r in requests])
        return original(self, requests, disable_tqdm=disable_tqdm)

    monkeypatch.setattr(HFLM, "generate_until", counting)
    return calls


@pytest.fixture()
def plain_task_dir(tmp_path):
    """An ordinary lm-eval generate_until task on a local JSONL file (not a uta task)."""
    data = tmp_path / "plain.jsonl"
    data.write_text("".join(json.dumps({"text": f"Count to {i}:"}) + "\n" for i in range(3, 6)))
    (tmp_path / "plain_echo.yaml").write_text(
        "task: plain_echo\n"
        "dataset_path: json\n"
        f"dataset_kwargs:\n  data_files:\n    test: {data}\n"
        "test_split: test\n"
        "output_type: generate_until\n"
        "doc_to_text: '{{text}}'\n"
        "doc_to_target: ''\n"
        "generation_kwargs:\n  until: ['\\n']\n  max_gen_toks: 8\n"
        "metric_list:\n  - metric: exact_match\n"
    )
    return tmp_path
