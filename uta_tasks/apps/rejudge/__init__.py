"""Judge saved samples again, without the model: ``uta-rejudge`` and :func:`rejudge`."""

from __future__ import annotations

from uta_tasks.runs import write_run_folders as write

from .run import RejudgedTask, rejudge

__all__ = ["RejudgedTask", "rejudge", "write"]
