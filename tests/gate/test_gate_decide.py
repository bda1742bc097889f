"""Deciding a bound or a regression from a point estimate and its interval."""

from __future__ import annotations

import pytest

from uta_tasks.apps.gate.decide import bound_holds, regression_holds
from uta_tasks.stats import Interval


def iv(low, high):
    return Interval(low, high, "wilson", 0.95)


@pytest.mark.parametrize("value,interval,op,bound,strict,expected", [
    (0.05, iv(0.01, 0.15), ">=", 0.10, False, True),   # interval reaches the bound: not shown to breach
    (0.05, iv(0.01, 0.15), ">=", 0.10, True, False),   # strict: the point is below
    (0.05, iv(0.01, 0.08), ">=", 0.10, False, False),  # whole interval below
    (0.12, iv(0.05, 0.20), ">=", 0.10, True, True),
    (0.55, iv(0.45, 0.65), "<=", 0.50, False, True),
    (0.55, iv(0.51, 0.65), "<=", 0.50, False, False),
    (0.10, iv(0.02, 0.10), ">", 0.10, False, False),   # '>' needs the upper end above the bound
    (0.50, None, "<=", 0.40, False, False),             # no interval: point estimate
    (0.30, None, "<=", 0.40, False, True),
])
def test_bound_holds(value, interval, op, bound, strict, expected):
    assert bound_holds(value, interval, op, bound, strict)[0] is expected


def test_pass_saved_by_the_interval_says_so():
    holds, note = bound_holds(0.05, iv(0.01, 0.15), ">=", 0.10, False)
    assert holds and "wrong side" in note


@pytest.mark.parametrize("diff,interval,drop,rise,strict,expected", [
    (-0.08, iv(-0.15, -0.06), 0.05, None, False, False),  # dropped more than 0.05, whole interval beyond
    (-0.08, iv(-0.15, -0.02), 0.05, None, False, True),   # could be within the margin
    (-0.08, iv(-0.15, -0.02), 0.05, None, True, False),
    (0.07, iv(0.03, 0.12), None, 0.02, False, False),     # rose by more than 0.02 for sure
    (0.07, iv(0.00, 0.12), None, 0.02, False, True),
])
def test_regression_holds(diff, interval, drop, rise, strict, expected):
    assert regression_holds(diff, interval, max_drop=drop, max_rise=rise, strict=strict)[0] is expected
