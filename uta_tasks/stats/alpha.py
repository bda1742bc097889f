"""Krippendorff's alpha among three or more raters (judges, annotators, or one judge's
repeats), nominal, with a seeded bootstrap interval over items.

The statistic is the ``krippendorff`` package's (``krippendorff.alpha`` on the items x
categories count matrix, ``level_of_measurement="nominal"``); this module only lays out
the data, resamples items (``numpy.random.default_rng(seed)``, percentile interval) and
names the degenerate cases:

- an item answered by fewer than two raters carries no pair and is left out (counted);
- every pairable answer the same: alpha is 0/0 and ``value`` is None with a ``reason``;
- resamples where alpha is undefined are left out of the interval and counted; with fewer
  than half defined there is no interval.

On the binary genuine decision nominal alpha is the binary alpha.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

LEVEL = 0.95


@dataclass(frozen=True)
class Alpha:
    """Krippendorff's alpha of several raters on one decision.

    Attributes:
        raters: the raters' names.
        items: items with at least two answers (pairable).
        left_out: items with fewer than two answers.
        value: alpha, or None when undefined.
        ci: bootstrap interval, or None.
        reason: why ``value`` or ``ci`` is missing, else None.
        undefined_replicates: resamples where alpha was undefined.
    """

    raters: list[str]
    items: int
    left_out: int
    value: float | None
    ci: tuple[float, float] | None
    reason: str | None
    undefined_replicates: int

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable copy."""
        data = asdict(self)
        data["ci"] = None if self.ci is None else list(self.ci)
        return data


def _alpha(counts: np.ndarray) -> float | None:
    import krippendorff

    pairable = counts[counts.sum(axis=1) >= 2]
    if (pairable.sum(axis=0) > 0).sum() < 2:
        return None
    value = krippendorff.alpha(value_counts=pairable, level_of_measurement="nominal")
    return None if not np.isfinite(value) else float(value)


def value_counts(answers: Sequence[Mapping[str, Hashable]], categories: Sequence[Hashable]) -> np.ndarray:
    """The items x categories count matrix of several raters' answers.

    Args:
        answers: per rater, item id -> answer.
        categories: every possible answer (column order).
    """
    index = {c: i for i, c in enumerate(categories)}
    items = sorted({item for rater in answers for item in rater})
    row = {item: r for r, item in enumerate(items)}
    counts = np.zeros((len(items), len(categories)), dtype=float)
    for rater in answers:
        for item, answer in rater.items():
            counts[row[item], index[answer]] += 1
    return counts


def krippendorff_alpha(
    raters: Sequence[str],
    answers: Sequence[Mapping[str, Hashable]],
    categories: Sequence[Hashable],
    replicates: int = 2000,
    seed: int = 0,
) -> Alpha:
    """Nominal Krippendorff's alpha of several raters, with a bootstrap interval over items.

    Args:
        raters: names, one per answer map.
        answers: per rater, item id -> answer.
        categories: every possible answer.
        replicates: bootstrap resamples (0: no interval).
        seed: bootstrap seed.
    """
    counts = value_counts(answers, categories)
    pairable = counts[counts.sum(axis=1) >= 2]
    left_out = len(counts) - len(pairable)
    value = _alpha(pairable) if len(pairable) else None
    if value is None:
        reason = ("alpha undefined: no item has two answers" if not len(pairable) else
                  "alpha undefined: every rater gave every item the same answer (no variation, 0/0)")
        return Alpha(list(raters), len(pairable), left_out, None, None, reason, 0)
    if replicates <= 0:
        return Alpha(list(raters), len(pairable), left_out, value, (value, value), None, 0)
    rng = np.random.default_rng(seed)
    found = []
    for _ in range(replicates):
        sample = _alpha(pairable[rng.integers(0, len(pairable), size=len(pairable))])
        if sample is not None:
            found.append(sample)
    undefined = replicates - len(found)
    if len(found) * 2 < replicates:
        reason = f"bootstrap interval undefined: alpha undefined in {undefined} of {replicates} resamples"
        return Alpha(list(raters), len(pairable), left_out, value, None, reason, undefined)
    low, high = np.percentile(found, [(1 - LEVEL) / 2 * 100, (1 + LEVEL) / 2 * 100])
    return Alpha(list(raters), len(pairable), left_out, value, (float(low), float(high)), None, undefined)
