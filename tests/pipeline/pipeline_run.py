"""Helpers of the pipeline tests: run lm-eval's evaluator with the uta tasks, read records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / "fixtures" / "data"
IFBENCH = ["uta_ifbench", "uta_ifbench_trunc", "uta_ifbench_question"]
NO_JUDGE = {"judge": "none", "ifbench_unverifiable": "drop", "user_max_gen_toks": 16}


def evaluate(lm: Any, tasks: list[str], *, metadata: dict | None = None, include: tuple = (), **kwargs: Any) -> dict:
    """lm-eval's ``simple_evaluate`` with the uta tasks visible and samples logged."""
    import lm_eval

    import uta_tasks
    from uta_tasks import lm_eval_compat

    paths = [uta_tasks.include_path(), *map(str, include)]
    tm = lm_eval_compat.task_manager_class()(include_path=paths, metadata=dict(metadata or NO_JUDGE))
    kwargs.setdefault("gen_kwargs", {"max_gen_toks": 64})
    kwargs.setdefault("log_samples", True)
    kwargs.setdefault("bootstrap_iters", 100)
    return lm_eval.simple_evaluate(model=lm, tasks=tasks, task_manager=tm, **kwargs)


def records(results: dict, task: str) -> list[Any]:
    """The probe records of a task's logged samples."""
    from uta_tasks.schema.probe import ProbeRecord

    return [ProbeRecord.from_json(r) for s in results["samples"][task] for r in s["filtered_resps"][0]]
