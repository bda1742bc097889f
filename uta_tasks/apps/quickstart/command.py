"""The exact ``lm_eval`` command line the quickstart runs, and its environment."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .cpu_dtype import cpu_dtype
from .judge_choice import Judge

DEFAULT_TASKS = "uta_ifbench,uta_ifbench_trunc,uta_ifbench_question"
# Environment for lm_eval and the local judge server; a value the user already set wins.
# vLLM's CPU backend keeps one core for its scheduler process by default; the model then
# computes on the others, and on 2 cores on one: with none kept, this machine's quickstart
# judged its 19 calls in 76 s instead of 147 s, and generated both passes in 54 s instead of 70 s.
CHILD_ENV_DEFAULTS = {
    "VLLM_CPU_KVCACHE_SPACE": "1",
    "VLLM_CPU_NUM_OF_RESERVED_CPU": "0",
    "VLLM_NO_USAGE_STATS": "1",
    "DO_NOT_TRACK": "1",
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "TOKENIZERS_PARALLELISM": "false",
}
def model_args(backend: str, model_dir: Path, max_model_len: int, seed: int) -> str:
    """``--model_args`` for the backend.

    Args:
        backend: ``vllm`` or ``hf``.
        model_dir: Hugging Face model directory.
        max_model_len: context length for vLLM.
        seed: sampling seed for vLLM.
    """
    if backend == "vllm":
        return (f"pretrained={model_dir},dtype={cpu_dtype()},max_model_len={max_model_len},seed={seed},"
                "enforce_eager=True")
    return f"pretrained={model_dir},dtype=float32,device=cpu"


def lm_eval_command(args: argparse.Namespace, model_dir: Path, judge: Judge, python: str = sys.executable) -> list[str]:
    """The exact ``lm_eval run`` command line the quickstart runs.

    Args:
        args: parsed command line.
        model_dir: Hugging Face model directory.
        judge: the chosen judge (its base URL known).
        python: interpreter that runs lm_eval.
    """
    from uta_tasks import include_path

    gen_kwargs = f"max_gen_toks={args.max_gen_toks}"
    if args.temperature is not None:
        gen_kwargs += f",temperature={args.temperature}"
    command = [
        python, "-m", "lm_eval", "run",
        "--model", args.backend,
        "--model_args", model_args(args.backend, model_dir, args.max_model_len, args.seed),
        "--include_path", include_path(),
        "--tasks", args.tasks,
        "--limit", str(args.limit),
        "--batch_size", "auto" if args.backend == "vllm" else str(args.batch_size),
        "--gen_kwargs", gen_kwargs,
        "--metadata", json.dumps({**judge.metadata(), **task_metadata(args)}, sort_keys=True),
        "--log_samples",
        "--output_path", str(args.output_path),
    ]
    return command


def task_metadata(args: argparse.Namespace) -> dict[str, Any]:
    """Task settings besides the judge's: the user-turn token limit, and what to do with
    IFEval/IFBench documents whose verifier lacks NLTK data here (no package ships
    IFBench's POS tagger)."""
    return {
        "user_max_gen_toks": args.user_max_gen_toks,
        "ifbench_unverifiable": args.unverifiable,
        "ifeval_unverifiable": args.unverifiable,
    }


# lm_eval only (the judge's `vllm serve` needs its engine in a process of its own): vLLM's
# engine and worker run inside lm_eval's process instead of two more processes that each
# import torch and vLLM again (on 2 cores, beside the judge's start, 20-35 s each).
LM_EVAL_ENV_DEFAULTS = {"VLLM_ENABLE_V1_MULTIPROCESSING": "0"}


def child_env(environ: Mapping[str, str], extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of lm_eval and the judge server: offline hubs and vLLM's CPU settings,
    user values kept.

    Args:
        environ: this process's environment.
        extra: more defaults (:data:`LM_EVAL_ENV_DEFAULTS` for lm_eval).
    """
    env = dict(environ)
    for key, value in {**CHILD_ENV_DEFAULTS, **(extra or {})}.items():
        env.setdefault(key, value)
    return env
