"""The paired bootstrap over docs: pairing, clustering, determinism, width."""

from __future__ import annotations

import numpy as np
import pytest

from uta_tasks.stats import paired_bootstrap


def _units(values, task="t", repeats=1):
    return {(task, i // repeats, i % repeats, 0): float(v) for i, v in enumerate(values)}


def test_identical_sides_give_a_zero_width_interval():
    side = _units([1, 0, 1, 1, 0, 0, 1])
    pd = paired_bootstrap(side, side, iterations=500, seed=3)
    assert pd.estimate == 0.0
    assert (pd.interval.low, pd.interval.high) == (0.0, 0.0)
    assert pd.units == 7 and pd.docs == 7


def test_only_units_present_on_both_sides_are_compared():
    cand = _units([1, 1, 1, 1])
    base = {k: 0.0 for k in list(cand)[:2]}  # the baseline judged only docs 0 and 1
    base[("t", 99, 0, 0)] = 1.0  # a doc the candidate does not have
    pd = paired_bootstrap(cand, base, iterations=200)
    assert pd.units == 2
    assert pd.estimate == 1.0 and pd.candidate == 1.0 and pd.baseline == 0.0


def test_no_shared_unit_is_an_error():
    with pytest.raises(ValueError, match="present on both sides"):
        paired_bootstrap(_units([1]), _units([1], task="other"), iterations=200)


def test_same_seed_same_interval_and_other_seed_differs():
    rng = np.random.default_rng(0)
    cand = _units(rng.integers(0, 2, 60))
    base = _units(rng.integers(0, 2, 60))
    a = paired_bootstrap(cand, base, iterations=400, seed=7)
    b = paired_bootstrap(cand, base, iterations=400, seed=7)
    c = paired_bootstrap(cand, base, iterations=400, seed=8)
    assert a.interval == b.interval
    assert a.interval != c.interval


def test_width_matches_the_paired_normal_approximation():
    # Independent docs, one unit each: the bootstrap SE of mean(c - b) is sd(d)/sqrt(n).
    rng = np.random.default_rng(42)
    n = 800
    c = rng.random(n) < 0.30
    b = rng.random(n) < 0.20
    pd = paired_bootstrap(_units(c), _units(b), iterations=4000, seed=1)
    d = c.astype(float) - b.astype(float)
    half = 1.959964 * d.std(ddof=0) / np.sqrt(n)
    assert pd.estimate == pytest.approx(d.mean())
    assert (pd.interval.high - pd.interval.low) / 2 == pytest.approx(half, rel=0.08)


def test_repeats_of_a_doc_are_resampled_together():
    # Two docs with 50 repeats each: all of doc 0 improved, none of doc 1. Resampling docs (not
    # turns) must give replicates of 0, 0.5 and 1 only, so the interval spans [0, 1].
    cand = {**{("t", 0, r, 0): 1.0 for r in range(50)}, **{("t", 1, r, 0): 0.0 for r in range(50)}}
    base = {k: 0.0 for k in cand}
    pd = paired_bootstrap(cand, base, iterations=2000, seed=0)
    assert pd.docs == 2 and pd.units == 100
    assert pd.interval.low == 0.0 and pd.interval.high == 1.0


def test_too_few_iterations_rejected():
    with pytest.raises(ValueError, match="at least 100"):
        paired_bootstrap(_units([1]), _units([1]), iterations=10)
