"""pass@k over user turns, and the per-doc genuine probability.

With ``user_samples: n`` the probe draws n user turns after the same (q, a'). For one answer
with c genuine turns among its n judged ones, the unbiased estimator of the chance that at
least one of k turns drawn without replacement is genuine is (Chen et al., 2021)::

    pass@k = 1 - C(n - c, k) / C(n, k)            (k <= n)

A doc's value is the mean over its answers (lm-eval ``repeats``). With ``user_samples: 1``
the n turns are those of the repeats (each after its own a), as before: at k = n the value
is 1 when any turn is genuine. ``genuine_prob`` is the doc's share of genuine turns over all
its judged user samples.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

NAN = float("nan")


def estimate(n: int, c: int, k: int) -> float:
    """1 - C(n-c, k)/C(n, k); NaN when fewer than k turns were judged.

    Args:
        n: judged user turns.
        c: genuine ones among them.
        k: turns drawn.
    """
    if k < 1 or n < k:
        return NAN
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def doc_estimate(groups: Sequence[Sequence[bool]], k: int | None) -> float:
    """A doc's pass@k: the mean over its groups (one per answer) with at least k judged turns.

    Args:
        groups: per answer, the genuine decisions of its judged user turns.
        k: turns drawn; None: each group's own size (any genuine).
    """
    values = [estimate(len(g), sum(g), len(g) if k is None else k) for g in groups if g]
    values = [v for v in values if not math.isnan(v)]
    return sum(values) / len(values) if values else NAN
