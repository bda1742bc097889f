"""Ranks of several models on one rate, with the range of ranks each can take: a bootstrap over
documents, paired across models.

Every model answered the same documents (a comparison runs one task set on each), so one
replicate draws documents with replacement once and measures every model's rate on that same
draw: ``rate = (sum of successes) / (sum of units)`` over the drawn documents, the units of a
document (its judged turns) staying together, as in :mod:`uta_tasks.stats.bootstrap`. A model's
rank in a replicate is its competition rank, ``1 + the number of models whose rate is higher``
(models with equal rates share the better rank). Its rank interval is the percentile interval of
its ranks over the replicates (the lower end rounded down, the upper end up). Two neighbours of
the ranking (by the point estimates) differ significantly when the percentile interval of the
difference of their rates over the same replicates leaves out 0.

Documents are matched by id across models; a document one model lacks counts 0 of 0 for it. A
replicate in which a model has no unit counts its rate as the lowest. Randomness comes from
``numpy.random.default_rng(seed)`` only: the same counts and seed give the same intervals.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from uta_tasks.stats.interval import Interval

# Replicates are drawn in chunks of at most this many resampled document cells.
_CHUNK_CELLS = 2_000_000
# Rates closer than this are equal (the same counts give the same float; this only absorbs rounding).
_TIE = 1e-12


@dataclass(frozen=True)
class DocCounts:
    """One model's successes and units per document on one rate.

    Attributes:
        doc_ids: each document's id.
        successes: its successes (genuine follow-ups; may be fractional).
        units: its units (judged user turns).
    """

    doc_ids: np.ndarray
    successes: np.ndarray
    units: np.ndarray

    @classmethod
    def of(cls, doc_ids: Sequence[int], successes: Sequence[float], units: Sequence[float]) -> DocCounts:
        """Counts from parallel sequences.

        Args:
            doc_ids: document ids.
            successes: successes per document.
            units: units per document.
        """
        ids = np.asarray(doc_ids, dtype=np.int64)
        k = np.asarray(successes, dtype=np.float64)
        n = np.asarray(units, dtype=np.float64)
        if not len(ids) == len(k) == len(n):
            raise ValueError(f"DocCounts: {len(ids)} ids, {len(k)} successes and {len(n)} units")
        if np.any(k < 0) or np.any(k > n):
            raise ValueError("DocCounts: every document needs 0 <= successes <= units")
        return cls(ids, k, n)

    @property
    def total(self) -> tuple[float, float]:
        """``(successes, units)`` over every document."""
        return float(self.successes.sum()), float(self.units.sum())


@dataclass(frozen=True)
class RankRange:
    """A model's place in the ranking.

    Attributes:
        rank: its competition rank by the point estimates (1 is the highest rate).
        low: the best rank of its interval.
        high: the worst rank of its interval.
    """

    rank: int
    low: int
    high: int

    def overlaps(self, other: RankRange) -> bool:
        """Whether the two rank intervals share a rank."""
        return self.low <= other.high and other.low <= self.high


@dataclass(frozen=True)
class Ranking:
    """The ranking of models on one rate.

    Attributes:
        order: the ranked models' indices (into the input), best first; a model without any unit
            is left out.
        rates: each input model's rate over all its documents (None without a unit).
        ranks: each ranked model's :class:`RankRange`, by index.
        next_difference: for ``order[i]``, the difference of its rate and that of ``order[i + 1]``
            over the same replicates, with its percentile interval (one fewer than ``order``).
        docs: documents resampled (the union of every model's).
        iterations: replicates.
        seed: the Generator's seed.
        confidence: coverage of every interval.
    """

    order: list[int]
    rates: list[float | None]
    ranks: dict[int, RankRange]
    next_difference: list[Interval]
    docs: int
    iterations: int
    seed: int
    confidence: float

    def significant(self, position: int) -> bool:
        """Whether ``order[position]`` and ``order[position + 1]`` differ significantly (the
        interval of their difference leaves out 0).

        Args:
            position: a place in :attr:`order` (not the last).
        """
        interval = self.next_difference[position]
        return math.isfinite(interval.low) and math.isfinite(interval.high) and not interval.contains(0.0)


def _matrices(models: Sequence[DocCounts]) -> tuple[np.ndarray, np.ndarray, int]:
    """Successes and units as ``documents x models`` matrices over the union of document ids."""
    ids = np.unique(np.concatenate([m.doc_ids for m in models])) if models else np.zeros(0, np.int64)
    k = np.zeros((len(ids), len(models)))
    n = np.zeros((len(ids), len(models)))
    for column, model in enumerate(models):
        rows = np.searchsorted(ids, model.doc_ids)
        np.add.at(k[:, column], rows, model.successes)
        np.add.at(n[:, column], rows, model.units)
    return k, n, len(ids)


def competition_ranks(rates: np.ndarray) -> np.ndarray:
    """``1 + the number of higher rates`` along the last axis (NaN counts as the lowest rate).

    Args:
        rates: ``... x models``.
    """
    filled = np.where(np.isnan(rates), -np.inf, rates)
    higher = filled[..., None, :] > filled[..., :, None] + _TIE
    return 1 + higher.sum(axis=-1)


def rank_bootstrap(models: Sequence[DocCounts], *, iterations: int = 2000, seed: int = 0,
                   confidence: float = 0.95) -> Ranking:
    """Rank the models by their rates (highest first) with bootstrap rank intervals (module doc).

    Args:
        models: each model's counts per document.
        iterations: bootstrap replicates (>= 100).
        seed: seed of the numpy Generator.
        confidence: coverage of the rank and difference intervals.
    """
    if iterations < 100:
        raise ValueError(f"rank_bootstrap: iterations={iterations} is too few; use at least 100")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"rank_bootstrap: confidence={confidence!r} must lie strictly between 0 and 1")
    totals = [m.total for m in models]
    rates = [k / n if n > 0 else None for k, n in totals]
    ranked = [i for i, r in enumerate(rates) if r is not None]
    order = sorted(ranked, key=lambda i: (-(rates[i] or 0.0), i))
    if not ranked:
        return Ranking([], rates, {}, [], 0, iterations, seed, confidence)
    k, n, docs = _matrices([models[i] for i in ranked])
    point = np.array([rates[i] for i in ranked], dtype=np.float64)
    point_ranks = competition_ranks(point)
    where = {model: column for column, model in enumerate(ranked)}
    pairs = [(where[a], where[b]) for a, b in zip(order, order[1:])]
    replicate_ranks = np.empty((iterations, len(ranked)), dtype=np.int32)
    differences = np.empty((iterations, len(pairs)))
    rng = np.random.default_rng(seed)
    chunk = max(1, _CHUNK_CELLS // max(1, docs))
    done = 0
    while done < iterations:
        rows = min(chunk, iterations - done)
        drawn = rng.integers(0, docs, size=(rows, docs))
        offsets = (np.arange(rows)[:, None] * docs + drawn).ravel()
        weights = np.bincount(offsets, minlength=rows * docs).reshape(rows, docs).astype(np.float64)
        units = weights @ n
        with np.errstate(invalid="ignore", divide="ignore"):
            replicate = np.where(units > 0, (weights @ k) / np.where(units > 0, units, 1.0), np.nan)
        replicate_ranks[done: done + rows] = competition_ranks(replicate)
        for p, (a, b) in enumerate(pairs):
            differences[done: done + rows, p] = replicate[:, a] - replicate[:, b]
        done += rows
    alpha = 1.0 - confidence
    lows = np.quantile(replicate_ranks, alpha / 2.0, axis=0, method="lower")
    highs = np.quantile(replicate_ranks, 1.0 - alpha / 2.0, axis=0, method="higher")
    ranks = {model: RankRange(int(point_ranks[c]), int(lows[c]), int(highs[c])) for model, c in where.items()}
    next_difference = []
    for p in range(len(pairs)):
        column = differences[:, p]
        column = column[~np.isnan(column)]
        low, high = (np.quantile(column, [alpha / 2.0, 1.0 - alpha / 2.0]) if len(column) else (np.nan, np.nan))
        next_difference.append(Interval(float(low), float(high), "paired_bootstrap", confidence))
    return Ranking(order, rates, ranks, next_difference, docs, iterations, seed, confidence)
