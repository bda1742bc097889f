"""``uta-compare``: many models on one page (issue 53). The models' YAML (:mod:`.spec`), the plan
(:mod:`.planning`, over ``uta-eval --plan``'s counting), the resume rule (:mod:`.resume`), the
processes (:mod:`.steps`, :mod:`.runner`), the runs read for the page (:mod:`.reading`), the
ranking with intervals (:mod:`.ranking`, over :mod:`uta_tasks.stats.ranks`), the figures
(:mod:`.charts`) and the page with ``leaderboard.json`` and ``leaderboard.csv`` (:mod:`.page`);
the command line is :mod:`.cli`."""

from uta_tasks.apps.compare.cli import main

__all__ = ["main"]
