"""Kappa, agreement, confusion and bootstrap, checked against scikit-learn."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from uta_tasks.apps.agreement import LabelSource, NoOverlapError, compare, compare_all, measure
from uta_tasks.judge import LABELS


def _pairs(seed: int, n: int, categories, agree: float, weights=None):
    rng = random.Random(seed)
    a = rng.choices(categories, weights=weights, k=n)
    b = [x if rng.random() < agree else rng.choice(categories) for x in a]
    return a, b


@pytest.mark.parametrize("seed, n, agree", [(0, 200, 0.9), (1, 50, 0.5), (2, 13, 0.2), (3, 500, 0.97)])
def test_kappa_matches_scikit_learn_on_labels_and_genuine(seed: int, n: int, agree: float) -> None:
    a, b = _pairs(seed, n, list(LABELS), agree, weights=[8, 4, 4, 2, 2, 1, 1, 1])
    m = measure(a, b, LABELS, replicates=0)
    assert m.kappa == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
    assert m.agreement == pytest.approx(100 * np.mean(np.array(a) == np.array(b)))
    ga, gb = _pairs(seed + 100, n, [True, False], agree, weights=[1, 4])
    g = measure(ga, gb, (True, False), replicates=0)
    assert g.kappa == pytest.approx(cohen_kappa_score(ga, gb), abs=1e-12)


def test_confusion_matrix_and_agreement_by_hand() -> None:
    # 2x2 counts: both genuine 18, A only 4, B only 6, both not 172 (n = 200)
    a = [True] * 18 + [True] * 4 + [False] * 6 + [False] * 172
    b = [True] * 18 + [False] * 4 + [True] * 6 + [False] * 172
    m = measure(a, b, (True, False), ("genuine", "not genuine"), replicates=0)
    assert m.confusion == [[18, 4], [6, 172]] and m.n == 200
    assert m.agreement == pytest.approx(95.0)
    p_e = (22 / 200) * (24 / 200) + (178 / 200) * (176 / 200)
    assert m.kappa == pytest.approx((0.95 - p_e) / (1 - p_e)) == pytest.approx(cohen_kappa_score(a, b))


def test_one_class_only_in_both_sources_leaves_kappa_undefined_with_a_reason() -> None:
    a = b = ["other"] * 7
    assert math.isnan(cohen_kappa_score(a, b))  # scikit-learn: NaN
    m = measure(a, b, LABELS)
    assert m.kappa is None and m.kappa_ci is None and m.agreement == 100.0
    assert "kappa undefined" in m.kappa_reason and "'other'" in m.kappa_reason and "7 items" in m.kappa_reason
    assert m.undefined_replicates == 2000


def test_one_class_in_one_source_only_is_defined_like_scikit_learn() -> None:
    a = [False] * 10
    b = [False] * 8 + [True] * 2
    m = measure(a, b, (True, False))
    assert m.kappa == cohen_kappa_score(a, b) == 0.0 and m.kappa_reason is None
    c, d = ["other", "other"], ["meta_planning", "meta_planning"]
    assert measure(c, d, LABELS, replicates=0).kappa == cohen_kappa_score(c, d) == 0.0


def test_no_overlap_is_an_error_not_a_number(tmp_path) -> None:
    with pytest.raises(ValueError):
        cohen_kappa_score([], [])  # scikit-learn refuses empty input too
    with pytest.raises(NoOverlapError):
        measure([], [], LABELS)
    x = LabelSource("x", "x.jsonl", {"a" * 64: ("other", False)})
    y = LabelSource("y", "y.jsonl", {"b" * 64: ("other", False)})
    with pytest.raises(NoOverlapError, match="share no item id"):
        compare(x, y)
    (row,) = compare_all([x, y])
    assert row.n == 0 and row.genuine is None and "share no item id" in row.error


def test_bootstrap_intervals_are_seeded_and_cover_the_estimate() -> None:
    a, b = _pairs(7, 200, list(LABELS), 0.6)
    first = measure(a, b, LABELS, seed=0)
    assert first == measure(a, b, LABELS, seed=0)
    other = measure(a, b, LABELS, seed=1)
    assert other.kappa_ci != first.kappa_ci and other.kappa == first.kappa
    assert first.agreement_ci[0] < first.agreement < first.agreement_ci[1]
    assert first.kappa_ci[0] < first.kappa < first.kappa_ci[1]
    assert first.kappa_ci[1] - first.kappa_ci[0] < 0.3
    none = measure(a, b, LABELS, replicates=0)
    assert none.agreement_ci == (none.agreement, none.agreement) and none.kappa_ci == (none.kappa, none.kappa)


def test_answers_outside_the_categories_are_refused() -> None:
    with pytest.raises(ValueError, match="not among the categories"):
        measure(["genuine_followup"], ["other"], LABELS)
    with pytest.raises(ValueError, match="differ in length"):
        measure(["other"], [], LABELS)
