"""Rank intervals by a paired bootstrap over documents (uta_tasks.stats.ranks), checked on
constructions whose answer is known."""

from __future__ import annotations

import numpy as np
import pytest

from uta_tasks.stats.ranks import DocCounts, competition_ranks, rank_bootstrap


def _model(genuine: list[int], turns: int = 1) -> DocCounts:
    return DocCounts.of(range(len(genuine)), genuine, [turns] * len(genuine))


def test_two_equal_models_overlap_and_one_far_apart_does_not():
    docs = 200
    equal = [1 if d % 5 == 0 else 0 for d in range(docs)]  # 20%
    far = [0 if d % 10 == 0 else 1 for d in range(docs)]  # 90%
    ranking = rank_bootstrap([_model(equal), _model(far), _model(equal)], iterations=500, seed=3)
    a, c, b = ranking.ranks[0], ranking.ranks[1], ranking.ranks[2]
    assert ranking.order[0] == 1 and (c.rank, c.low, c.high) == (1, 1, 1)
    # the same counts give the same rate in every replicate: both take rank 2 together
    assert (a.rank, a.low, a.high) == (b.rank, b.low, b.high) == (2, 2, 2)
    assert a.overlaps(b) and not a.overlaps(c) and not b.overlaps(c)
    assert ranking.significant(0), "the far model differs from its neighbour"
    assert not ranking.significant(1), "the two equal models do not"
    assert ranking.next_difference[1].low == ranking.next_difference[1].high == 0.0


def test_close_rates_share_ranks_and_distant_ones_do_not():
    rng = np.random.default_rng(7)
    docs = 300
    models = []
    for successes in (90, 93, 96, 210):  # 30%, 31%, 32%, 70%, each on documents drawn apart
        genuine = np.zeros(docs, dtype=int)
        genuine[rng.permutation(docs)[:successes]] = 1
        models.append(_model(list(genuine)))
    ranking = rank_bootstrap(models, iterations=1000, seed=0)
    assert ranking.order[0] == 3 and ranking.ranks[3].high == 1
    close = [ranking.ranks[i] for i in range(3)]
    assert all(r.low >= 2 for r in close)
    assert close[0].overlaps(close[1]) and close[1].overlaps(close[2])
    assert max(r.high for r in close) - min(r.low for r in close) >= 1
    assert ranking.significant(0) and not any(ranking.significant(p) for p in (1, 2))


def test_the_same_seed_gives_the_same_intervals_and_units_stay_with_their_document():
    counts = DocCounts.of([4, 2, 9], [1, 0, 3], [2, 1, 4])  # doc ids need not be 0..n-1 nor sorted
    other = DocCounts.of([2, 9, 11], [1, 1, 0], [1, 4, 3])
    first = rank_bootstrap([counts, other], iterations=200, seed=11)
    assert first == rank_bootstrap([counts, other], iterations=200, seed=11)
    assert first.rates == [4 / 7, 2 / 8] and first.docs == 4


def test_a_model_without_units_is_left_out_and_ties_share_the_better_rank():
    ranking = rank_bootstrap([_model([0, 0], turns=0), _model([1, 0]), _model([1, 0])], iterations=100)
    assert ranking.order == [1, 2] and ranking.rates[0] is None and 0 not in ranking.ranks
    assert list(competition_ranks(np.array([0.5, 0.9, 0.5, np.nan]))) == [2, 1, 2, 4]


def test_bad_counts_and_settings_are_refused():
    with pytest.raises(ValueError, match="successes <= units"):
        DocCounts.of([0], [2], [1])
    with pytest.raises(ValueError, match="too few"):
        rank_bootstrap([_model([1])], iterations=10)
