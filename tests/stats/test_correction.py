"""The judge-error-corrected rate: constructed runs and calibration sets with a known true
rate, sensitivity and specificity, drawn with seeded numpy generators.

Coverage of a nominal 95% interval is checked as the issue asks (at least 95 of 100 seeded
simulations); over 1,000 seeds the scenarios below measured 95.4-99% (docs/judge-trust.md).
"""

from __future__ import annotations

import numpy as np
import pytest

from uta_tasks.stats import wilson
from uta_tasks.stats.correction import METHOD, JudgeAccuracy, corrected_rate, rogan_gladen


def _world(true: float, se: float, sp: float, n: int, positives: int, negatives: int, seed: int):
    """A run of ``n`` single-turn docs judged by a judge with ``se``/``sp``, and a calibration set."""
    rng = np.random.default_rng(seed)
    truth = rng.random(n) < true
    judged = np.where(truth, rng.random(n) < se, rng.random(n) < 1.0 - sp)
    tp, tn = rng.binomial(positives, se), rng.binomial(negatives, sp)
    return judged.astype(float), JudgeAccuracy(int(tp), int(positives - tp), int(negatives - tn), int(tn))


SCENARIOS = [  # true rate, sensitivity, specificity, docs, calibration positives, negatives
    pytest.param(0.0, 0.90, 0.97, 1319, 40, 160, id="zero-gsm8k-size"),
    pytest.param(0.10, 0.80, 0.90, 500, 50, 150, id="ten-percent-weak-judge"),
    pytest.param(0.30, 0.90, 0.90, 300, 40, 40, id="thirty-percent-small-calibration"),
]


@pytest.mark.parametrize(("true", "se", "sp", "n", "pos", "neg"), SCENARIOS)
def test_corrected_interval_covers_the_true_rate_in_95_of_100_seeded_runs(true, se, sp, n, pos, neg) -> None:
    covered = 0
    for seed in range(100):
        judged, acc = _world(true, se, sp, n, pos, neg, seed)
        found = corrected_rate(judged, np.ones(n), acc, replicates=1000, seed=seed)
        assert found.interval is not None and found.interval.method == METHOD, found.reason
        covered += found.interval.contains(true)
    assert covered >= 95, f"{covered} of 100"


def test_the_uncorrected_interval_misses_a_near_zero_rate_that_the_corrected_one_covers() -> None:
    """2% true, a judge with 5% false positives: the judged rate sits near 6.6%."""
    true, n = 0.02, 1000
    missed_raw = covered = 0
    for seed in range(100):
        judged, acc = _world(true, 0.85, 0.95, n, 60, 240, seed)
        raw = wilson(judged.sum(), n)
        missed_raw += not raw.contains(true)
        found = corrected_rate(judged, np.ones(n), acc, replicates=1000, seed=seed)
        assert found.interval is not None
        covered += found.interval.contains(true)
    assert missed_raw == 100
    assert covered >= 90  # nominal 95%; 95.9% over 1,000 seeds (docs/judge-trust.md)


def test_rogan_gladen_by_hand_and_clipped() -> None:
    # (0.15 + 0.9 - 1) / (0.8 + 0.9 - 1) = 0.05 / 0.7
    assert float(rogan_gladen(0.15, 0.8, 0.9)) == pytest.approx(0.05 / 0.7)
    assert float(rogan_gladen(0.05, 0.8, 0.9)) == 0.0  # below the false-positive floor: clipped
    assert float(rogan_gladen(0.95, 0.8, 0.9)) == 1.0
    assert np.isnan(rogan_gladen(0.2, 0.5, 0.5))  # a coin: undefined


def test_a_perfect_judge_changes_nothing() -> None:
    judged = np.array([1.0] * 7 + [0.0] * 93)
    found = corrected_rate(judged, np.ones(100), JudgeAccuracy(30, 0, 0, 70), replicates=500, seed=1)
    assert found.value == pytest.approx(0.07) and found.observed == pytest.approx(0.07)
    assert found.interval is not None and found.interval.contains(0.07)


def test_too_small_a_calibration_set_gives_a_reason_instead_of_a_number() -> None:
    found = corrected_rate(np.array([1.0, 0.0, 0.0]), np.ones(3), JudgeAccuracy(4, 1, 2, 40))
    assert found.value is None and found.interval is None
    assert "too small" in found.reason and "5 human-genuine" in found.reason


def test_a_judge_no_better_than_chance_gives_a_reason_instead_of_a_number() -> None:
    found = corrected_rate(np.array([1.0, 0.0]), np.ones(2), JudgeAccuracy(10, 10, 12, 8))
    assert found.value is None and "no better than chance" in found.reason


def test_repeats_of_a_doc_are_resampled_together_and_the_result_is_seeded() -> None:
    sums, units = np.array([2.0, 0.0, 1.0, 0.0] * 25), np.array([2, 2, 2, 2] * 25)
    acc = JudgeAccuracy(45, 5, 10, 140)
    one = corrected_rate(sums, units, acc, replicates=500, seed=3)
    assert one.n == 200 and one.docs == 100 and one.observed == pytest.approx(75 / 200)
    assert one == corrected_rate(sums, units, acc, replicates=500, seed=3)
    assert one.interval != corrected_rate(sums, units, acc, replicates=500, seed=4).interval
