"""``uta-eval ... --plan``: the command (:mod:`.command`) and its counting (:mod:`.counts`)."""

from uta_tasks.apps.plan.command import main

__all__ = ["main"]
