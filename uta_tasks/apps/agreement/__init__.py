"""Agreement between label sources (judge vs judge, judge vs human, human vs human).

Sources are matched by the stable item id (:meth:`uta_tasks.judge.JudgeItem.fingerprint`
of the item the judge saw). For each pair: n, percent agreement and Cohen's kappa on the
binary genuine decision and on the eight labels, sensitivity and specificity, seeded
bootstrap 95% intervals, and the confusion matrices; Krippendorff's alpha for three or more
sources (:mod:`.alpha`), the judge against pooled annotators, the paper's Table 7 slices
(:mod:`.slices`) and the calibration set of a judge (:mod:`.calibration`); as text and JSON.
``uta-agreement`` is the command (:mod:`.cli`); degenerate cases are defined in :mod:`.stats`.
"""

from __future__ import annotations

from uta_tasks.runs.calibration import CalibrationSet, build_calibration, read_calibration
from uta_tasks.runs.label_sources import LabelSource, load_sources
from uta_tasks.stats.alpha import Alpha, krippendorff_alpha

from .compare import Comparison, compare, compare_all, compare_pooled, report
from .stats import Measure, NoOverlapError, measure
from .table import render_table

__all__ = [
    "Alpha",
    "CalibrationSet",
    "Comparison",
    "build_calibration",
    "compare_pooled",
    "krippendorff_alpha",
    "read_calibration",
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
