"""Saved runs "published" on the Hub double: the scripted backend's uta runs, made in this process
through lm-eval's evaluator (judge off) and saved as ``lm_eval --log_samples`` saves them, then laid
out as a details repo (one folder per model)."""

from __future__ import annotations

from pathlib import Path

from compare_env import GSM8K, TOKENIZER


def published_run(kind: str, model: str, out: Path, tasks: list[str], limit: int, max_gen_toks: int) -> Path:
    """A uta run of the scripted backend's ``kind`` as model ``model``; its model folder."""
    from pipeline_run import evaluate
    from saved_lm_eval_runs import save
    from scripted_backend import ScriptedBackend

    lm = ScriptedBackend(pretrained=model, tokenizer=str(TOKENIZER), script=kind)
    results = evaluate(lm, tasks, metadata={"judge": "none", "gsm8k_data_files": str(GSM8K)}, limit=limit,
                       gen_kwargs={"max_gen_toks": max_gen_toks})
    return save(results, out, model_args=f"pretrained={model}")


def details(folder: Path, prefix: str) -> dict[str, bytes]:
    """A run's files as a details repo holds them: under ``prefix/``."""
    return {f"{prefix}/{p.name}": p.read_bytes() for p in folder.iterdir() if p.is_file()}


def generated_run(kind: str, model_args: str, out: Path, tasks: list[str], metadata: dict, limit: int,
                  max_gen_toks: int) -> Path:
    """What ``uta-eval --model uta-scripted --model_args MODEL_ARGS --predict_only --log_samples`` writes
    (the scripted backend through lm-eval's evaluator in this process, saved as lm-eval's command line
    saves it, its ``config`` naming the backend as that command line does); the model folder."""
    from pipeline_run import evaluate
    from saved_lm_eval_runs import save
    from scripted_backend import NAME, ScriptedBackend

    from uta_tasks import lm_eval_compat as compat

    lm = ScriptedBackend(**compat.parse_args_string(model_args))
    results = evaluate(lm, tasks, metadata=metadata, limit=limit, predict_only=True,
                       gen_kwargs={"max_gen_toks": max_gen_toks})
    return save(results, out, model_args, model=NAME, gen_kwargs={"max_gen_toks": max_gen_toks})
