"""``uta-eval``: lm-eval's own command line with the uta tasks already visible.

Every lm-eval flag passes through unchanged (``uta-eval run ...``, ``uta-eval ls tasks``,
``--include_path`` for more task folders); the uta task folder is appended to whatever
include path lm-eval's TaskManager receives in this process.
"""

from __future__ import annotations

import functools
from pathlib import Path


def _with_uta_tasks(include_path):
    paths = [] if include_path is None else (
        list(include_path) if isinstance(include_path, (list, tuple)) else [include_path]
    )
    from uta_tasks import TASKS_DIR

    if not any(Path(p).resolve() == TASKS_DIR for p in paths):
        paths.append(TASKS_DIR)
    return paths


def install() -> None:
    """Make every ``TaskManager`` of this process include the uta task folder (idempotent)."""
    from lm_eval.tasks.manager import TaskManager

    original = TaskManager.__init__
    if getattr(original, "_uta_wrapped", False):
        return

    @functools.wraps(original)
    def __init__(self, verbosity=None, include_path=None, *args, **kwargs):
        original(self, verbosity, _with_uta_tasks(include_path), *args, **kwargs)

    __init__._uta_wrapped = True
    TaskManager.__init__ = __init__


def main() -> None:
    """Entry point of ``uta-eval``."""
    install()
    from lm_eval.__main__ import cli_evaluate

    cli_evaluate()


if __name__ == "__main__":
    main()
