"""Agreement between two raters on the same items: percent agreement, Cohen's kappa,
seeded bootstrap 95% intervals and the confusion matrix.

Kappa is ``(p_o - p_e) / (1 - p_e)`` with ``p_o`` the observed agreement and ``p_e``
the agreement expected from the two raters' marginal frequencies (the same as
``sklearn.metrics.cohen_kappa_score``). Degenerate cases, decided here:

- *kappa undefined*: both raters gave every item the same single class, so ``p_e = 1``
  and kappa is 0/0. The value is ``None`` (JSON ``null``) with a ``kappa_reason``;
  scikit-learn returns NaN there. Percent agreement is still reported (100%).
- *one rater uses one class, the other several*: kappa is defined (``p_e < 1``),
  typically 0 or negative, and reported as is.
- *no item in common*: :class:`NoOverlapError`; there is no ``n = 0`` statistic.

Bootstrap: ``replicates`` resamples of the matched items with replacement, drawn by
``numpy.random.default_rng(seed)``; the interval is the 2.5th and 97.5th percentile of
the replicates. Replicates where kappa is undefined are left out of the kappa interval
and counted (``undefined_replicates``); with fewer than half of them defined the kappa
interval is ``None``.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

DEFAULT_REPLICATES = 2000
LEVEL = 0.95


class NoOverlapError(ValueError):
    """Two label sources share no item id, so there is nothing to compare."""


@dataclass(frozen=True)
class Measure:
    """Agreement on one decision (``genuine`` or ``label``).

    Attributes:
        n: Matched items.
        agreement: Percent of items with the same answer (0-100).
        agreement_ci: Bootstrap interval of ``agreement``.
        kappa: Cohen's kappa, or None when undefined.
        kappa_ci: Bootstrap interval of kappa, or None.
        kappa_reason: Why kappa (or its interval) is missing, else None.
        categories: Row/column order of ``confusion``.
        confusion: ``confusion[i][j]`` = items rater A put in category i and rater B in j.
        undefined_replicates: Bootstrap replicates where kappa was undefined.
    """

    n: int
    agreement: float
    agreement_ci: tuple[float, float]
    kappa: float | None
    kappa_ci: tuple[float, float] | None
    kappa_reason: str | None
    categories: list[str]
    confusion: list[list[int]]
    undefined_replicates: int

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable copy."""
        data = asdict(self)
        data["agreement_ci"] = list(self.agreement_ci)
        data["kappa_ci"] = None if self.kappa_ci is None else list(self.kappa_ci)
        return data


def kappa_from_confusion(confusion: np.ndarray) -> float | None:
    """Cohen's kappa of a confusion matrix, None when undefined (``p_e = 1``).

    Args:
        confusion: Square matrix of counts, rater A in rows, rater B in columns.
    """
    n = confusion.sum()
    if n == 0:
        return None
    observed = np.trace(confusion) / n
    expected = float(np.dot(confusion.sum(axis=1), confusion.sum(axis=0))) / (n * n)
    if _only_one_shared_class(confusion):
        return None
    return float((observed - expected) / (1.0 - expected))


def measure(
    a: Sequence[Hashable],
    b: Sequence[Hashable],
    categories: Sequence[Hashable],
    names: Sequence[str] | None = None,
    replicates: int = DEFAULT_REPLICATES,
    seed: int = 0,
) -> Measure:
    """Agreement statistics of two aligned answer lists.

    Args:
        a: Rater A's answers.
        b: Rater B's answers, same items in the same order.
        categories: Every possible answer, in the order of the confusion matrix.
        names: Display names of ``categories`` (default: ``str`` of each).
        replicates: Bootstrap resamples (0: no intervals are drawn; they equal the point value).
        seed: Bootstrap seed.

    Raises:
        NoOverlapError: No items.
        ValueError: Lists of different lengths, or an answer outside ``categories``.
    """
    if len(a) != len(b):
        raise ValueError(f"rater answer lists differ in length: {len(a)} vs {len(b)}")
    if not a:
        raise NoOverlapError("no item to compare")
    index = {category: i for i, category in enumerate(categories)}
    unknown = sorted({str(x) for x in (*a, *b) if x not in index})
    if unknown:
        raise ValueError(f"answers {unknown} are not among the categories {[str(c) for c in categories]}")
    k = len(categories)
    codes = np.array([index[x] for x in a], dtype=np.int64) * k + np.array([index[x] for x in b], dtype=np.int64)
    confusion = np.bincount(codes, minlength=k * k).reshape(k, k)
    n = len(a)
    agreement = 100.0 * np.trace(confusion) / n
    kappa = kappa_from_confusion(confusion)
    shown = list(names) if names is not None else [str(c) for c in categories]
    reason = None if kappa is not None else _undefined_reason(confusion, shown)
    agreement_ci: tuple[float, float] = (agreement, agreement)
    kappa_ci: tuple[float, float] | None = None if kappa is None else (kappa, kappa)
    undefined = 0
    if replicates > 0:
        agreement_ci, kappa_ci, undefined = _bootstrap(codes, k, n, replicates, seed)
        if kappa_ci is None and reason is None:
            reason = f"bootstrap interval undefined: kappa undefined in {undefined} of {replicates} resamples"
    return Measure(
        n=n,
        agreement=float(agreement),
        agreement_ci=agreement_ci,
        kappa=kappa,
        kappa_ci=kappa_ci,
        kappa_reason=reason,
        categories=shown,
        confusion=confusion.astype(int).tolist(),
        undefined_replicates=undefined,
    )


def _bootstrap(
    codes: np.ndarray, k: int, n: int, replicates: int, seed: int
) -> tuple[tuple[float, float], tuple[float, float] | None, int]:
    rng = np.random.default_rng(seed)
    agreements = np.empty(replicates)
    kappas: list[float] = []
    diagonal = np.arange(k) * (k + 1)
    for r in range(replicates):
        sample = codes[rng.integers(0, n, size=n)]
        confusion = np.bincount(sample, minlength=k * k)
        agreements[r] = 100.0 * confusion[diagonal].sum() / n
        value = kappa_from_confusion(confusion.reshape(k, k))
        if value is not None:
            kappas.append(value)
    low, high = (1 - LEVEL) / 2 * 100, (1 + LEVEL) / 2 * 100
    agreement_ci = (float(np.percentile(agreements, low)), float(np.percentile(agreements, high)))
    undefined = replicates - len(kappas)
    if len(kappas) * 2 < replicates:
        return agreement_ci, None, undefined
    return agreement_ci, (float(np.percentile(kappas, low)), float(np.percentile(kappas, high))), undefined


def _only_one_shared_class(confusion: np.ndarray) -> bool:
    rows = np.flatnonzero(confusion.sum(axis=1))
    cols = np.flatnonzero(confusion.sum(axis=0))
    return len(rows) == 1 and len(cols) == 1 and rows[0] == cols[0]


def _undefined_reason(confusion: np.ndarray, categories: Sequence[str]) -> str:
    (only,) = np.flatnonzero(confusion.sum(axis=1))
    return (
        f"kappa undefined: both sources gave all {int(confusion.sum())} items the same answer "
        f"{categories[int(only)]!r}, so chance agreement is 1 (0/0)"
    )
