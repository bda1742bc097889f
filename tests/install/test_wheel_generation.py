"""The issue's acceptance runs, from the built wheel in a fresh venv, with real generation:
``lm_eval --model vllm`` with ``--include_path`` and ``uta-eval`` without it (HF),
``uta_ifbench_trunc --limit 20 --log_samples``: every logged a' is a shortened by exactly
max(25, ceil(0.25 n)) SmolLM2 tokens.

``uta-eval`` only adds the include path before handing over to lm-eval's own CLI
(``uta_tasks/cli.py``): it does nothing per backend, so one vLLM run (through ``lm_eval``)
and one ``uta-eval`` run (on HF, the cheaper backend) cover both commands and both backends
without a second vLLM engine start."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
LIMIT = 20
META = json.dumps({"judge": "none", "ifbench_unverifiable": "drop", "user_max_gen_toks": 24})
VLLM_ENV = {"VLLM_CPU_KVCACHE_SPACE": "1", "VLLM_NO_USAGE_STATS": "1"}
# enforce_eager as in the quickstart and tests/scale: no torch.compile of the model on the CPU
# at each engine start (what is checked here is the wheel's commands and the truncation).
VLLM_ARGS = "max_model_len=2048,dtype=float32,enforce_eager=True"


@pytest.fixture(autouse=True)
def _vllm_on_cpu(monkeypatch):
    for key, value in VLLM_ENV.items():
        monkeypatch.setenv(key, value)


def _run(wheel_venv, command: list[str], model_args: str, out: Path, extra: list[str]):
    return wheel_venv.run(
        *command, *extra, "--model_args", model_args, "--tasks", "uta_ifbench_trunc",
        "--limit", str(LIMIT), "--gen_kwargs", "max_gen_toks=64", "--metadata", META,
        "--log_samples", "--output_path", str(out), timeout=1800,
    )


def _check_truncation(out: Path, tokenizer) -> None:
    from uta_tasks.schema.probe import ProbeRecord

    (samples,) = sorted(out.rglob("samples_uta_ifbench_trunc_*.jsonl"))
    lines = samples.read_text().splitlines()
    assert len(lines) == LIMIT
    for line in lines:
        record = ProbeRecord.from_json(json.loads(line)["resps"][0][0]).to_dict()  # every text whole
        ids = tokenizer(record["a"], add_special_tokens=False)["input_ids"]
        n = len(ids)
        removed = min(n, max(25, math.ceil(0.25 * n)))
        assert record["truncation"]["removed_tokens"] == removed
        assert record["a_prime"] == tokenizer.decode(ids[: n - removed])
        assert record["a"].startswith(record["a_prime"])


def test_lm_eval_vllm_with_include_path(wheel_venv, smollm2_dir, smollm2_tokenizer, tmp_path):
    include = wheel_venv.run("python", "-m", "uta_tasks").stdout.strip()
    assert str(wheel_venv.site_packages) in include
    _run(wheel_venv, ["python", "-m", "lm_eval", "--model", "vllm", "--include_path", include],
         f"pretrained={smollm2_dir},{VLLM_ARGS}", tmp_path, [])
    _check_truncation(tmp_path, smollm2_tokenizer)


def test_uta_eval_hf(wheel_venv, smollm2_dir, smollm2_tokenizer, tmp_path):
    _run(wheel_venv, ["uta-eval", "--model", "hf", "--device", "cpu", "--batch_size", "20"],
         f"pretrained={smollm2_dir}", tmp_path, [])
    _check_truncation(tmp_path, smollm2_tokenizer)
