"""Scaling out through ``vllm serve`` + ``--model local-completions``, without a server:
what the probe refuses before sending anything, and the settings it adds to requests.

The real server run (prompts and user turns equal to an in-process vLLM run) is
``test_vllm_serve.py``.
"""

from __future__ import annotations

import shlex
from pathlib import Path

TOKENIZER = Path(__file__).resolve().parents[1] / "fixtures" / "tokenizers" / "smollm2"
# Nothing listens here: every test below must finish before a request would be sent.
CLOSED_URL = "http://127.0.0.1:9/v1/completions"


def _local_completions(**model_args):
    from lm_eval.models.openai_completions import LocalCompletionsAPI

    return LocalCompletionsAPI(
        base_url=CLOSED_URL, model="smollm2", tokenizer_backend="huggingface", tokenizer=str(TOKENIZER),
        max_retries=1, **model_args,
    )


def _evaluate(lm, **kwargs):
    import lm_eval

    import uta_tasks

    tm = uta_tasks.task_manager(metadata={"judge": "none", "ifbench_unverifiable": "drop", "user_max_gen_toks": 16})
    return lm_eval.simple_evaluate(model=lm, tasks=["uta_ifbench"], task_manager=tm, limit=1, **kwargs)


def test_the_budget_sent_to_a_server_never_makes_lm_eval_cut_the_prompt():
    """lm-eval's API models keep only the last max_length - 1 - max_gen_toks prompt tokens;
    with the default max_length (2048) and the tasks' 32768-token budget that would cut
    every prompt. The probe fits each request's budget below max_length instead."""
    lm = _local_completions()
    sent = []

    def capture(requests, disable_tqdm=False):
        sent.extend(r.args for r in requests)
        return ["Answer." if r.args[0].endswith("assistant\n") else "Why?" for r in requests]

    lm.generate_until = capture
    _evaluate(lm)
    assert sent
    for prompt, kwargs in sent:
        kept = lm.max_length - 1 - kwargs["max_gen_toks"]
        assert len(lm.tokenizer(prompt)["input_ids"]) <= kept


def test_local_completions_requests_keep_special_tokens_as_in_process_vllm_does():
    """vLLM's server strips special tokens before matching stop strings unless told not to."""
    from uta_tasks.probe import scale_out

    lm = _local_completions()
    assert scale_out.server_decoding_defaults(lm) == {"skip_special_tokens": False,
                                                      "spaces_between_special_tokens": False}


def test_the_openai_api_and_other_models_get_no_server_fields():
    from lm_eval.models.openai_completions import OpenAICompletionsAPI

    from uta_tasks.probe import scale_out

    class NotAnLM:
        pass

    assert scale_out.server_decoding_defaults(NotAnLM()) == {}
    assert scale_out.server_decoding_defaults(OpenAICompletionsAPI.__new__(OpenAICompletionsAPI)) == {}


def test_serve_command_for_eight_gpus_data_parallel():
    from uta_tasks.probe import scale_out

    engine = {"model": "Qwen/Qwen3.5-9B", "dtype": "bfloat16", "max_model_len": 8192, "seed": 1234,
              "tensor_parallel_size": 1, "data_parallel_size": 8, "revision": None, "trust_remote_code": False}
    command, model_args = scale_out.vllm_serve_command(engine)
    assert shlex.join(command) == (
        "vllm serve Qwen/Qwen3.5-9B --data-parallel-size 8 --tensor-parallel-size 1 --dtype bfloat16 "
        "--max-model-len 8192 --seed 1234 --generation-config vllm --host 127.0.0.1 --port 8000"
    )
    assert model_args == (
        "base_url=http://127.0.0.1:8000/v1/completions,model=Qwen/Qwen3.5-9B,tokenizer_backend=huggingface,"
        "tokenizer=Qwen/Qwen3.5-9B,num_concurrent=64,max_length=8192"
    )
