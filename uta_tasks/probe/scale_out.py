"""Running the probe past one GPU: through vLLM's own server and ``--model local-completions``.

* :func:`backend_problem` refuses, before anything is generated or loaded, in-process
  ``--model vllm`` with ``data_parallel_size > 1`` (lm-eval loads the model again in new
  Ray workers on every ``generate_until`` call, and the probe makes two), answered with the
  exact ``vllm serve`` command to use instead. (An API model's ``max_length`` cannot cut a
  prompt: every request's budget is fitted below it, see :mod:`uta_tasks.probe.budget`.)
* :func:`server_decoding_defaults` are the settings a ``local-completions`` request needs to
  decode as lm-eval's in-process vLLM does: special tokens kept in the text. vLLM's server
  strips them by default and matches stop strings on the stripped text, so a stop such as
  gpt-oss's ``<|end|>`` would never match and reasoning channel markers would vanish.

Why pass-2 prompts of a server run and of an in-process run can differ at T=0, and the flags
that make them equal, are in the manual (docs/scaling-out.md).
"""

from __future__ import annotations

import shlex
from typing import Any

from uta_tasks import lm_eval_compat as compat

DEFAULT_PORT = 8000


def server_decoding_defaults(lm: Any) -> dict[str, Any]:
    """gen_kwargs defaults for ``local-completions`` (see the module docstring); empty otherwise.

    Args:
        lm: the lm-eval model.
    """
    return dict(compat.VLLM_DECODING) if compat.is_local_completions(lm) else {}


def vllm_serve_command(engine_args: dict[str, Any], *, port: int = DEFAULT_PORT) -> tuple[list[str], str]:
    """The ``vllm serve`` command for an in-process vLLM's engine arguments, and the
    matching ``--model_args`` of ``--model local-completions``.

    Args:
        engine_args: :func:`uta_tasks.lm_eval_compat.vllm_engine_args` of the model.
        port: the server's port on 127.0.0.1.
    """
    model = str(engine_args["model"])
    command = [
        "vllm", "serve", model,
        "--data-parallel-size", str(engine_args.get("data_parallel_size") or 1),
        "--tensor-parallel-size", str(engine_args.get("tensor_parallel_size") or 1),
    ]
    for key in ("dtype", "max_model_len", "seed", "revision", "quantization", "tokenizer"):
        if engine_args.get(key) not in (None, "auto"):
            command += [f"--{key.replace('_', '-')}", str(engine_args[key])]
    if engine_args.get("trust_remote_code"):
        command.append("--trust-remote-code")
    command += ["--generation-config", "vllm", "--host", "127.0.0.1", "--port", str(port)]
    model_args = (
        f"base_url=http://127.0.0.1:{port}/v1/completions,model={model},tokenizer_backend=huggingface,"
        f"tokenizer={engine_args.get('tokenizer') or model},num_concurrent=64,"
        f"max_length={engine_args.get('max_model_len') or '<the --max-model-len above>'}"
    )
    return command, model_args


def backend_problem(lm: Any) -> str | None:
    """Why the probe cannot run on this backend as configured, with the fix; None when it can.

    Args:
        lm: the lm-eval model.
    """
    engine = compat.vllm_engine_args(lm)
    if engine is not None and engine["data_parallel_size"] > 1:
        command, model_args = vllm_serve_command(engine)
        return (
            f"--model vllm with data_parallel_size={engine['data_parallel_size']} loads the model again in new "
            "Ray workers on every generate_until call, and the uta probe makes two (lm-eval issues #1734, "
            "#2379, #2904). Serve the model once with vLLM's own server, which runs data and tensor "
            f"parallel itself:\n  {shlex.join(command)}\nthen run lm_eval with --model local-completions "
            f"--model_args {model_args} (docs/scaling-out.md)."
        )
    return None
