"""Agreement between label sources (judge vs judge, judge vs human, human vs human).

Sources are matched by the stable item id (:meth:`uta_tasks.judge.JudgeItem.fingerprint`
of the item the judge saw). For each pair: n, percent agreement and Cohen's kappa on the
binary genuine decision and on the eight labels, seeded bootstrap 95% intervals, and the
confusion matrices; as a text table (the paper's Table 7 layout) and JSON.
``uta-agreement`` is the command (:mod:`.cli`); degenerate cases are defined in :mod:`.stats`.
"""

from __future__ import annotations

from .compare import Comparison, compare, compare_all, report
from .sources import LabelSource, load_sources
from .stats import Measure, NoOverlapError, measure
from .table import render_table

__all__ = [
    "Comparison",
    "LabelSource",
    "Measure",
    "NoOverlapError",
    "compare",
    "compare_all",
    "load_sources",
    "measure",
    "render_table",
    "report",
]
