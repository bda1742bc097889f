"""Intervals for rates over judged turns: Wilson, Newcombe, and a paired bootstrap over docs."""

from __future__ import annotations

from uta_tasks.stats.bootstrap import PairedDifference, paired_bootstrap
from uta_tasks.stats.interval import Interval
from uta_tasks.stats.proportion import newcombe, wilson, z_value

__all__ = ["Interval", "PairedDifference", "newcombe", "paired_bootstrap", "wilson", "z_value"]
