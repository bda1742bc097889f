"""``uta-eval ... --plan``: the command (:mod:`.command`: its parser and ``main``), the
counting (:mod:`.counts`) and the documents it reads (:mod:`.documents`)."""

from uta_tasks.apps.plan.command import main, parser

__all__ = ["main", "parser"]
