"""``uta-eval ... --plan``: the command (:mod:`.command`: its parser and ``main``), the
counting (:mod:`.counts`), the documents it reads (:mod:`.documents`) and the tasks lm-eval
builds for it (:mod:`.built`: ``uta:NAME``, ``--include_path``, ``answers_from``), and what a plan
holds (:mod:`.plans`)."""

from uta_tasks.apps.plan.command import main, parser

__all__ = ["main", "parser"]
