"""The probe through a real ``vllm serve`` of SmolLM2 (vLLM's CPU build) and
``lm_eval --model local-completions``, against an in-process ``lm_eval --model vllm`` run
of the same docs: at T=0 every pass-1 prompt, answer, pass-2 prompt and user turn is equal.

Both sides run float32: vLLM's CPU kernels are not batch invariant, and in bfloat16 a
greedy token can flip with the batch a request shares (docs/scaling-out.md).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from uta_tasks.schema.probe import ProbeRecord

pytestmark = pytest.mark.slow

LIMIT = 3
MAX_GEN_TOKS = 64
META = {"judge": "none", "ifbench_unverifiable": "drop", "user_max_gen_toks": 32}
ENGINE = {"dtype": "float32", "max_model_len": 2048, "seed": 1234}
VLLM_ENV = {"VLLM_CPU_KVCACHE_SPACE": "1", "VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1",
            "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
READY_TIMEOUT = 420.0


def _env() -> dict[str, str]:
    return {**os.environ, **VLLM_ENV}


@pytest.fixture(scope="module")
def vllm_server(smollm2_dir, tmp_path_factory):
    """``vllm serve`` of SmolLM2 on 127.0.0.1, started with the command the probe prints
    for in-process data-parallel runs (data parallel 1 here), plus --enforce-eager."""
    from uta_tasks.probe import scale_out
    from uta_tasks.servers.llama_server import free_port
    from uta_tasks.servers.vllm_server import vllm_server

    port = free_port()
    command, model_args = scale_out.vllm_serve_command(
        {"model": str(smollm2_dir), "data_parallel_size": 1, "tensor_parallel_size": 1, **ENGINE}, port=port
    )
    assert command[:3] == ["vllm", "serve", str(smollm2_dir)]
    log_path = tmp_path_factory.mktemp("vllm-serve") / "serve.log"
    with vllm_server(smollm2_dir, log_path=log_path, args=[*command[3:], "--enforce-eager"], env=_env(),
                     port=port, ready_timeout=READY_TIMEOUT):
        yield model_args, log_path


def _lm_eval(model: str, model_args: str, out: Path, extra: tuple[str, ...] = ()) -> str:
    import uta_tasks

    command = [
        sys.executable, "-m", "lm_eval", "run", "--model", model, "--model_args", model_args,
        "--include_path", uta_tasks.include_path(), "--tasks", "uta_ifbench_all", "--limit", str(LIMIT),
        "--gen_kwargs", f"max_gen_toks={MAX_GEN_TOKS}", "--metadata", json.dumps(META),
        "--log_samples", "--output_path", str(out), *extra,
    ]
    done = subprocess.run(command, env=_env(), capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-4000:]
    return done.stderr


def _records(out: Path) -> dict[tuple[str, int, int], dict]:
    found = {}
    for path in out.rglob("samples_*.jsonl"):
        for line in path.read_text().splitlines():
            sample = json.loads(line)
            for i, text in enumerate(sample["resps"][0]):
                record = ProbeRecord.from_json(text).to_dict()
                found[(record["task"], sample["doc_id"], i)] = record
    return found


@pytest.fixture(scope="module")
def both_runs(vllm_server, smollm2_dir, tmp_path_factory):
    model_args, _ = vllm_server
    server_out = tmp_path_factory.mktemp("local-completions")
    server_log = _lm_eval("local-completions", model_args.replace("num_concurrent=64", "num_concurrent=4"), server_out)
    local_out = tmp_path_factory.mktemp("in-process")
    engine = ",".join(f"{k}={v}" for k, v in ENGINE.items())
    _lm_eval("vllm", f"pretrained={smollm2_dir},{engine},enforce_eager=True", local_out, ("--batch_size", "auto"))
    return _records(server_out), _records(local_out), server_log


def test_both_passes_through_the_server_equal_the_in_process_run(both_runs):
    server, local = both_runs[:2]
    assert len(server) == 3 * LIMIT, sorted(server)
    assert server.keys() == local.keys()
    for field in ("pass1_prompt", "a", "a_prime", "pass2_prompt", "u", "pass2_ref_prompt", "u_ref"):
        differ = [key for key in server if server[key][field] != local[key][field]]
        assert differ == [], f"{field} differs for {differ}"
    assert all(r["u"] for r in server.values()), "every user turn is generated"


def test_gen_kwargs_and_stop_strings_reach_the_server(both_runs, smollm2_tokenizer):
    server, _, server_log = both_runs
    lengths = []
    for record in server.values():
        user = record["generation"]["user"]
        assert "<|im_end|>" in user["until"]
        assert user["skip_special_tokens"] is False and user["max_gen_toks"] == META["user_max_gen_toks"]
        assert record["generation"]["assistant"]["max_gen_toks"] == MAX_GEN_TOKS
        assert "<|im_end|>" not in record["u"] and "<|im_end|>" not in record["a"]
        lengths.append(len(smollm2_tokenizer(record["a"], add_special_tokens=False)["input_ids"]))
    # --gen_kwargs max_gen_toks=64 bounds the answers the server wrote, and some reach it.
    assert max(lengths) <= MAX_GEN_TOKS + 1 and max(lengths) >= MAX_GEN_TOKS - 1
    assert "left truncated" not in server_log


def test_in_process_data_parallel_is_refused_before_loading(smollm2_dir, monkeypatch):
    """lm-eval's VLLM with data_parallel_size=2 builds no engine at construction (Ray
    workers would load it on each generate_until); the probe refuses with the vllm serve
    command before that. Only the presence of Ray is pretended: it is not installed here."""
    import lm_eval.models.vllm_causallms as vllm_causallms
    from lm_eval.models.vllm_causallms import VLLM

    import uta_tasks
    from uta_tasks.probe.hook import ProbeError

    real_find_spec = vllm_causallms.find_spec
    monkeypatch.setattr(vllm_causallms, "find_spec", lambda name: True if name == "ray" else real_find_spec(name))
    for key, value in VLLM_ENV.items():
        monkeypatch.setenv(key, value)
    lm = VLLM(pretrained=str(smollm2_dir), data_parallel_size=2, max_model_len=2048, dtype="float32")
    assert not hasattr(lm, "model"), "no engine was built"
    import lm_eval

    with pytest.raises(ProbeError) as caught:
        lm_eval.simple_evaluate(model=lm, tasks=["uta_ifbench"], task_manager=uta_tasks.task_manager(metadata=META),
                                limit=1, gen_kwargs={"max_gen_toks": MAX_GEN_TOKS})
    message = str(caught.value)
    assert f"vllm serve {smollm2_dir} --data-parallel-size 2 --tensor-parallel-size 1" in message
    assert "--generation-config vllm" in message and "--model local-completions" in message
    assert "ray" not in sys.modules, "nothing tried to start Ray workers"
