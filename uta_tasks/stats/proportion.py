"""Score intervals for proportions: Wilson for one rate, Newcombe for a difference of two.

* Wilson (1927): the interval of p = k/n that inverts the score test; it stays inside
  [0, 1] and keeps its coverage for rates near 0, where the follow-up rates live.
* Newcombe (1998, method 10, the "hybrid score"): the difference p1 - p2 of two
  independent proportions, built from the two Wilson intervals.
"""

from __future__ import annotations

import math
from statistics import NormalDist

from uta_tasks.stats.interval import Interval


def z_value(confidence: float) -> float:
    """The two-sided standard normal quantile, 1.959964 for 0.95.

    Args:
        confidence: coverage in (0, 1).
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence={confidence!r} must lie strictly between 0 and 1")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def wilson(k: float, n: float, confidence: float = 0.95) -> Interval:
    """Wilson score interval of the rate ``k / n``.

    Args:
        k: successes (may be fractional, e.g. accuracy averaged over repeats).
        n: trials, > 0.
        confidence: coverage.
    """
    if n <= 0:
        raise ValueError(f"wilson: n={n!r} trials; an interval needs at least one judged unit")
    if not 0 <= k <= n:
        raise ValueError(f"wilson: k={k!r} successes is outside [0, n={n!r}]")
    z = z_value(confidence)
    p = k / n
    z2 = z * z
    denom = 1.0 + z2 / n
    center = (p + z2 / (2.0 * n)) / denom
    half = z / denom * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n))
    return Interval(max(0.0, center - half), min(1.0, center + half), "wilson", confidence)


def newcombe(k1: float, n1: float, k2: float, n2: float, confidence: float = 0.95) -> Interval:
    """Newcombe's hybrid score interval of ``k1/n1 - k2/n2`` (independent samples).

    Args:
        k1: successes of the first rate (the candidate).
        n1: trials of the first rate.
        k2: successes of the second rate (the baseline).
        n2: trials of the second rate.
        confidence: coverage.
    """
    p1, p2 = k1 / n1 if n1 else math.nan, k2 / n2 if n2 else math.nan
    w1, w2 = wilson(k1, n1, confidence), wilson(k2, n2, confidence)
    d = p1 - p2
    low = d - math.sqrt((p1 - w1.low) ** 2 + (w2.high - p2) ** 2)
    high = d + math.sqrt((w1.high - p1) ** 2 + (p2 - w2.low) ** 2)
    return Interval(low, high, "newcombe", confidence)
