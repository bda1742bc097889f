"""A real small run on disk, shared by the runs, gate and report tests.

``write_real_run`` runs lm-eval in process (``simple_evaluate`` on an already loaded
``--model hf`` SmolLM2) on 3 docs of uta_ifbench and uta_ifbench_trunc, judged by the local
llama-server, and saves the output folder exactly as the ``lm_eval`` command does with
``--output_path ... --log_samples``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

TASKS = ["uta_ifbench", "uta_ifbench_trunc"]
LIMIT = 3


def judge_metadata(url: Any, cache: Path) -> dict[str, Any]:
    """``--metadata`` of the run: the local judge and small budgets for the CPU."""
    return {
        "judge": "openai",
        "judge_base_url": str(url),
        "judge_model": getattr(url, "model", "smollm2-135m-instruct"),
        "judge_cache": str(cache),
        "judge_max_tokens": 384,
        "ifbench_unverifiable": "drop",
        "user_max_gen_toks": 24,
    }


def write_real_run(lm: Any, model_dir: Path, url: Any, out: Path, *, temperature: float = 0.0) -> Path:
    """Run the two uta tasks and write an lm-eval output folder.

    Args:
        lm: a loaded lm-eval HFLM.
        model_dir: its pretrained directory (recorded as ``model_args``).
        url: the judge's base URL (``LocalServer`` or str).
        out: the ``--output_path`` folder.
        temperature: sampling temperature (``--gen_kwargs temperature=...``).

    Returns:
        ``out``.
    """
    import lm_eval
    from lm_eval.loggers import EvaluationTracker

    import uta_tasks

    tracker = EvaluationTracker(output_path=str(out))
    metadata = judge_metadata(url, out.parent / f"{out.name}-judge.sqlite")
    results = lm_eval.simple_evaluate(
        model=lm,
        model_args=f"pretrained={model_dir}",
        tasks=list(TASKS),
        limit=LIMIT,
        gen_kwargs={"max_gen_toks": 40, "temperature": temperature},
        task_manager=uta_tasks.task_manager(metadata=metadata),
        log_samples=True,
        evaluation_tracker=tracker,
        bootstrap_iters=100,
    )
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    for task in results["configs"]:
        tracker.save_results_samples(task_name=task, samples=samples[task])
    return out
