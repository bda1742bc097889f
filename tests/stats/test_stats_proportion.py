"""Wilson and Newcombe intervals against their formulas, scipy and published values."""

from __future__ import annotations

import math

import pytest
from scipy.stats import binomtest, norm

from uta_tasks.stats import newcombe, wilson, z_value


@pytest.mark.parametrize("k,n", [(0, 10), (1, 10), (5, 10), (10, 10), (3, 7), (17, 250), (1, 1319)])
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_wilson_matches_scipy(k, n, confidence):
    ours = wilson(k, n, confidence)
    ref = binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
    assert ours.low == pytest.approx(ref.low, abs=1e-12)
    assert ours.high == pytest.approx(ref.high, abs=1e-12)
    assert ours.method == "wilson" and ours.confidence == confidence


def test_wilson_closed_form_at_zero_successes():
    # k = 0: the interval is [0, z^2 / (n + z^2)].
    z = norm.ppf(0.975)
    iv = wilson(0, 20)
    assert iv.low == 0.0
    assert iv.high == pytest.approx(z * z / (20 + z * z), rel=1e-12)


def test_wilson_rejects_empty_and_impossible_counts():
    with pytest.raises(ValueError, match="at least one judged unit"):
        wilson(0, 0)
    with pytest.raises(ValueError, match="outside"):
        wilson(5, 3)


def test_z_value_is_the_normal_quantile():
    assert z_value(0.95) == pytest.approx(1.959963984540054, abs=1e-12)
    with pytest.raises(ValueError, match="between 0 and 1"):
        z_value(1.0)


def test_newcombe_reproduces_the_published_example():
    # Newcombe (1998), Statistics in Medicine 17:873, Table II example (b): 56/70 - 48/80.
    iv = newcombe(56, 70, 48, 80)
    assert iv.low == pytest.approx(0.0524, abs=5e-5)
    assert iv.high == pytest.approx(0.3339, abs=5e-5)


def test_newcombe_is_built_from_the_two_wilson_intervals():
    k1, n1, k2, n2 = 3, 40, 12, 45
    w1, w2 = wilson(k1, n1), wilson(k2, n2)
    p1, p2 = k1 / n1, k2 / n2
    iv = newcombe(k1, n1, k2, n2)
    assert iv.low == pytest.approx(p1 - p2 - math.hypot(p1 - w1.low, w2.high - p2))
    assert iv.high == pytest.approx(p1 - p2 + math.hypot(w1.high - p1, p2 - w2.low))
    assert iv.low < p1 - p2 < iv.high
