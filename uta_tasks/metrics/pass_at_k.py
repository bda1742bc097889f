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


def parse(user_samples: object, pass_at_k: object, task: str, error: type[Exception]) -> tuple[int, tuple[int, ...]]:
    """Validate ``user_samples`` and ``pass_at_k`` (``"1,4"``, ``[1, 4]`` or ``4``).

    Args:
        user_samples: the setting (n >= 1).
        pass_at_k: the k values asked for, each 1 <= k <= n (None: none besides k = n).
        task: the task, for the message.
        error: the exception class to raise.
    """
    try:
        n = int(str(user_samples))
    except ValueError:
        raise error(f"{task}: --metadata user_samples={user_samples!r} must be a whole number of user turns") from None
    if n < 1:
        raise error(f"{task}: --metadata user_samples={n} must be at least 1")
    if pass_at_k is None or pass_at_k == "":
        return n, ()
    raw = pass_at_k.split(",") if isinstance(pass_at_k, str) else pass_at_k if isinstance(pass_at_k, list) else [pass_at_k]
    try:
        ks = tuple(sorted({int(str(k).strip()) for k in raw}))
    except ValueError:
        raise error(f"{task}: --metadata pass_at_k={pass_at_k!r} must list whole numbers, e.g. \"1,4\"") from None
    if not ks or ks[0] < 1 or ks[-1] > n:
        raise error(
            f"{task}: --metadata pass_at_k={pass_at_k!r}: every k must be between 1 and user_samples={n}; "
            f"raise user_samples to draw that many user turns per answer"
        )
    return n, ks
