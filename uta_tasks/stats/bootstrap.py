"""Paired bootstrap over docs for the difference of two rates measured on the same turns.

Units (judged turns, or docs) are matched by key ``(task, doc_id, repeat, slot)`` and
kept only when both sides have them; docs ``(task, doc_id)`` are resampled with
replacement, so repeats of one doc stay together. The difference of one replicate is
``(sum of candidate values - sum of baseline values) / matched units`` over the resampled
docs; the interval is the percentile interval of the replicates. Randomness comes from
``numpy.random.default_rng(seed)`` only.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from uta_tasks.stats.interval import Interval

# Replicates are drawn in chunks of at most this many resampled doc indices.
_CHUNK_CELLS = 2_000_000


@dataclass(frozen=True)
class PairedDifference:
    """A paired difference of rates with its bootstrap interval.

    Attributes:
        estimate: candidate rate minus baseline rate over the matched units.
        interval: percentile interval of the difference.
        candidate: candidate rate over the matched units.
        baseline: baseline rate over the matched units.
        units: matched units.
        docs: docs they belong to (the resampling clusters).
    """

    estimate: float
    interval: Interval
    candidate: float
    baseline: float
    units: int
    docs: int


def _doc_of(key: Hashable) -> Hashable:
    return key[:2] if isinstance(key, tuple) else key


def paired_bootstrap(
    candidate: Mapping[Any, float],
    baseline: Mapping[Any, float],
    *,
    iterations: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> PairedDifference:
    """Paired bootstrap of ``rate(candidate) - rate(baseline)`` over matched units.

    Args:
        candidate: unit key -> value in [0, 1].
        baseline: unit key -> value in [0, 1].
        iterations: bootstrap replicates (>= 100).
        seed: seed of the numpy Generator.
        confidence: coverage of the percentile interval.
    """
    if iterations < 100:
        raise ValueError(f"paired_bootstrap: iterations={iterations} is too few; use at least 100")
    matched = sorted(set(candidate) & set(baseline), key=repr)
    if not matched:
        raise ValueError("paired_bootstrap: no unit (doc_id, repeat) is present on both sides")
    sums: dict[Hashable, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for key in matched:
        cell = sums[_doc_of(key)]
        cell[0] += candidate[key]
        cell[1] += baseline[key]
        cell[2] += 1.0
    table = np.array(list(sums.values()), dtype=float)
    cand, base, units = table[:, 0], table[:, 1], table[:, 2]
    n_docs = len(table)
    rng = np.random.default_rng(seed)
    chunk = max(1, _CHUNK_CELLS // n_docs)
    diffs = np.empty(iterations)
    done = 0
    while done < iterations:
        rows = min(chunk, iterations - done)
        idx = rng.integers(0, n_docs, size=(rows, n_docs))
        diffs[done: done + rows] = (cand[idx].sum(axis=1) - base[idx].sum(axis=1)) / units[idx].sum(axis=1)
        done += rows
    alpha = 1.0 - confidence
    low, high = np.quantile(diffs, [alpha / 2.0, 1.0 - alpha / 2.0])
    total = units.sum()
    rate_c, rate_b = cand.sum() / total, base.sum() / total
    return PairedDifference(
        estimate=float(rate_c - rate_b),
        interval=Interval(float(low), float(high), "paired_bootstrap", confidence),
        candidate=float(rate_c),
        baseline=float(rate_b),
        units=int(total),
        docs=n_docs,
    )
