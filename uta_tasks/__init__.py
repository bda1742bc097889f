"""uta-tasks: lm-evaluation-harness tasks for the user-turn probe of interaction awareness.

    lm_eval --model vllm --model_args pretrained=... \
        --include_path "$(python -m uta_tasks)" --tasks uta_gsm8k_trunc

or ``uta-eval`` with the same flags and no ``--include_path``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__version__ = "0.1.0"

TASKS_DIR = Path(__file__).resolve().parent / "tasks"


def include_path() -> str:
    """The folder to pass to lm-eval's ``--include_path``."""
    return str(TASKS_DIR)


def task_manager(**kwargs: Any):
    """An lm-eval ``TaskManager`` that sees the uta tasks.

    Args:
        kwargs: passed to ``lm_eval.tasks.TaskManager`` (``metadata=...``, ``verbosity=...``).
    """
    from uta_tasks import lm_eval_compat

    return lm_eval_compat.task_manager_class()(include_path=include_path(), **kwargs)
