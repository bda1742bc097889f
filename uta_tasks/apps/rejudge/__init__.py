"""Judge saved samples again, without the model: ``uta-rejudge`` and :func:`rejudge`."""

from __future__ import annotations

from .output import write
from .run import RejudgedTask, rejudge

__all__ = ["RejudgedTask", "rejudge", "write"]
