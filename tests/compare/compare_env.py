"""Paths and the process environment of the comparison tests (their own module: a test that
imported them from ``conftest`` got another folder's conftest when pytest had loaded that one first)."""

from __future__ import annotations

import os
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent
ROOT = TESTS.parent
SITE = HERE / "site"  # sitecustomize.py: registers --model uta-scripted in each process
GSM8K = TESTS / "fixtures" / "data" / "gsm8k_test.jsonl"
TOKENIZER = TESTS / "fixtures" / "tokenizers" / "smollm2"


def process_env(**extra: str) -> dict[str, str]:
    """The environment of a ``uta-compare`` process: this checkout first on the path, the scripted
    backend registered, one thread per model, no Hugging Face setting of the developer's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGINGFACE_"))}
    env.update(PYTHONPATH=os.pathsep.join([str(SITE), str(ROOT), env.get("PYTHONPATH", "")]), OMP_NUM_THREADS="1",
               HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_HUB_DISABLE_TELEMETRY="1",
               HF_HUB_DISABLE_PROGRESS_BARS="1", NO_PROXY="127.0.0.1", no_proxy="127.0.0.1", TOKENIZERS_PARALLELISM="false")
    env.update(extra)
    return env
