"""How a rule is decided from a point estimate and its interval.

Default (interval) mode: a rule fails only when the whole interval lies on the wrong side
of the threshold, so a rule fails only when the data show the breach at the chosen
confidence. Strict mode: a rule fails when the point estimate is on the wrong side.
A metric without an interval is always decided on its point estimate.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

from uta_tasks.stats import Interval

_COMPARE: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    ">": operator.gt,
    "<=": operator.le,
    "<": operator.lt,
}


def bound_holds(value: float, interval: Interval | None, op: str, bound: float, strict: bool) -> tuple[bool, str]:
    """Whether a bound ``value op bound`` holds, and a short note on how it was decided.

    Args:
        value: the point estimate.
        interval: its interval, or None.
        op: ``>=``, ``>``, ``<=`` or ``<``.
        bound: the threshold.
        strict: decide on the point estimate.
    """
    compare = _COMPARE[op]
    point_ok = compare(value, bound)
    if strict or interval is None:
        return point_ok, "point estimate" + ("" if interval is not None or strict else " (no interval)")
    # The most favourable end of the interval must still satisfy the bound for a pass.
    favourable = interval.high if op in (">=", ">") else interval.low
    holds = compare(favourable, bound)
    if holds and not point_ok:
        return True, "point estimate on the wrong side; interval overlaps the bound"
    return holds, "whole interval on the wrong side" if not holds else "interval"


def regression_holds(
    diff: float, interval: Interval | None, *, max_drop: float | None, max_rise: float | None, strict: bool
) -> tuple[bool, str]:
    """Whether candidate - baseline stays within the allowed drop (or rise).

    Args:
        diff: candidate minus baseline.
        interval: interval of the difference, or None.
        max_drop: largest allowed fall (higher-is-better metrics).
        max_rise: largest allowed rise (lower-is-better metrics).
        strict: decide on the point estimate.
    """
    if max_drop is not None:
        return bound_holds(diff, interval, ">=", -max_drop, strict)
    if max_rise is None:
        raise ValueError("regression_holds needs max_drop or max_rise")
    return bound_holds(diff, interval, "<=", max_rise, strict)
