"""A judged rate corrected for the judge's own error (Rogan-Gladen), with an interval that
carries both the run's sampling and the calibration set's.

The judge says ``genuine`` with sensitivity ``Se = P(judge yes | human yes)`` and
specificity ``Sp = P(judge no | human no)``, both estimated from a calibration set (human
labels of items the same judge model and prompt version judged). A run's observed rate
``p`` then estimates ``Se * t + (1 - Sp) * (1 - t)``, so the true rate is::

    t = (p + Sp - 1) / (Se + Sp - 1)        (Rogan & Gladen 1978), clipped to [0, 1]

defined only when ``Se + Sp > 1`` (a judge better than a coin).

Interval (``rogan_gladen_bootstrap``): a percentile bootstrap over *both* sources of
uncertainty, drawn from one ``numpy.random.default_rng(seed)``. Each replicate

- resamples the run's docs with replacement (the repeats of a doc stay together), giving
  the replicate's observed rate;
- draws the calibration set again, stratified by the human label: ``Binomial(positives,
  Se~)`` judged-genuine among the human-genuine items and ``Binomial(negatives, Sp~)``
  judged-not-genuine among the others, with the add-one estimates ``Se~ = (TP + 1) /
  (positives + 2)`` and ``Sp~ = (TN + 1) / (negatives + 2)`` (the adjustment of Lang &
  Reiczigel 2014, which keeps a perfect calibration count from collapsing the spread);

and recomputes the clipped estimate. The point estimate uses the plain ``Se`` and ``Sp``.
Seeded simulations (``tests/stats/test_correction.py``) check the coverage. Replicates with
``Se + Sp <= 1`` are undefined; when more than half a tail (``(1 - confidence) / 4`` of the
replicates) is undefined there is no interval, and the reason says so.

No number at all (``value`` None and a ``reason``) when the calibration set has fewer than
:data:`MIN_POSITIVES` human-positive or :data:`MIN_NEGATIVES` human-negative items, or its
``Se + Sp <= 1``: the correction would be noise.

The calibration set must be drawn without looking at the judge's verdict (a
natural-prevalence packet): a packet stratified by the judge's label, or built from judge
disagreements, distorts ``P(judge | human)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from uta_tasks.stats.interval import Interval

METHOD = "rogan_gladen_bootstrap"
MIN_POSITIVES = 10
MIN_NEGATIVES = 10
DEFAULT_REPLICATES = 2000
# Replicates are drawn in chunks of at most this many resampled doc indices.
_CHUNK_CELLS = 2_000_000


@dataclass(frozen=True)
class JudgeAccuracy:
    """The judge's confusion against human labels on ``genuine``.

    Attributes:
        true_pos: human genuine, judge genuine.
        false_neg: human genuine, judge not genuine.
        false_pos: human not genuine, judge genuine.
        true_neg: human not genuine, judge not genuine.
    """

    true_pos: int
    false_neg: int
    false_pos: int
    true_neg: int

    @classmethod
    def from_pairs(cls, pairs: Sequence[tuple[bool, bool]]) -> JudgeAccuracy:
        """Count ``(human, judge)`` decisions.

        Args:
            pairs: one ``(human genuine, judge genuine)`` per calibration item.
        """
        tp = sum(1 for h, j in pairs if h and j)
        fn = sum(1 for h, j in pairs if h and not j)
        fp = sum(1 for h, j in pairs if not h and j)
        return cls(tp, fn, fp, len(pairs) - tp - fn - fp)

    @property
    def positives(self) -> int:
        """Items the humans called genuine."""
        return self.true_pos + self.false_neg

    @property
    def negatives(self) -> int:
        """Items the humans called not genuine."""
        return self.false_pos + self.true_neg

    @property
    def items(self) -> int:
        """Calibration items."""
        return self.positives + self.negatives

    @property
    def sensitivity(self) -> float | None:
        """``P(judge yes | human yes)``, None without human-positive items."""
        return self.true_pos / self.positives if self.positives else None

    @property
    def specificity(self) -> float | None:
        """``P(judge no | human no)``, None without human-negative items."""
        return self.true_neg / self.negatives if self.negatives else None

    def unusable(self) -> str | None:
        """Why this calibration cannot correct a rate, or None when it can."""
        if self.positives < MIN_POSITIVES or self.negatives < MIN_NEGATIVES:
            return (
                f"calibration set too small: {self.positives} human-genuine and {self.negatives} human-not-genuine "
                f"items (at least {MIN_POSITIVES} and {MIN_NEGATIVES} needed): annotate more items"
            )
        se, sp = self.sensitivity or 0.0, self.specificity or 0.0
        if se + sp <= 1.0:
            return (
                f"the judge is no better than chance on the calibration set (sensitivity {se:.3f} + specificity "
                f"{sp:.3f} <= 1): its verdicts cannot be corrected; use a stronger judge"
            )
        return None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with the counts, sensitivity and specificity."""
        return {
            "true_pos": self.true_pos, "false_neg": self.false_neg, "false_pos": self.false_pos,
            "true_neg": self.true_neg, "sensitivity": self.sensitivity, "specificity": self.specificity,
        }


@dataclass(frozen=True)
class CorrectedRate:
    """A judged rate corrected for judge error.

    Attributes:
        value: the corrected rate in [0, 1], or None (see ``reason``).
        interval: its bootstrap interval, or None.
        observed: the judged (uncorrected) rate.
        k: judged-genuine units of the run.
        n: judged units of the run.
        docs: docs of the run (the run's resampling clusters).
        accuracy: the judge's confusion on the calibration set.
        replicates: bootstrap replicates drawn.
        undefined_replicates: replicates where the correction was undefined.
        reason: why there is no value or no interval, else None.
    """

    value: float | None
    interval: Interval | None
    observed: float
    k: float
    n: int
    docs: int
    accuracy: JudgeAccuracy
    replicates: int
    undefined_replicates: int = 0
    reason: str | None = None


def rogan_gladen(observed: float | np.ndarray, sensitivity: float | np.ndarray,
                 specificity: float | np.ndarray) -> np.ndarray:
    """``(observed + Sp - 1) / (Se + Sp - 1)`` clipped to [0, 1]; NaN where ``Se + Sp <= 1``.

    Args:
        observed: judged rate(s).
        sensitivity: judge sensitivity (per replicate or one value).
        specificity: judge specificity.
    """
    p, se, sp = (np.asarray(x, dtype=float) for x in (observed, sensitivity, specificity))
    youden = se + sp - 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        raw = (p + sp - 1.0) / youden
    return np.where(youden > 0, np.clip(raw, 0.0, 1.0), np.nan)


def _run_rates(sums: np.ndarray, units: np.ndarray, replicates: int, rng: np.random.Generator) -> np.ndarray:
    n_docs = len(sums)
    out = np.empty(replicates)
    chunk = max(1, _CHUNK_CELLS // n_docs)
    done = 0
    while done < replicates:
        rows = min(chunk, replicates - done)
        idx = rng.integers(0, n_docs, size=(rows, n_docs))
        out[done: done + rows] = sums[idx].sum(axis=1) / units[idx].sum(axis=1)
        done += rows
    return out


def corrected_rate(
    doc_sums: Sequence[float],
    doc_units: Sequence[int],
    accuracy: JudgeAccuracy,
    *,
    replicates: int = DEFAULT_REPLICATES,
    seed: int = 0,
    confidence: float = 0.95,
) -> CorrectedRate:
    """The Rogan-Gladen corrected rate of a run and its two-source bootstrap interval.

    Args:
        doc_sums: per doc, its judged-genuine units.
        doc_units: per doc, its judged units (docs without one are left out).
        accuracy: the judge's confusion on the calibration set.
        replicates: bootstrap replicates (>= 100).
        seed: seed of the numpy Generator.
        confidence: coverage of the percentile interval.
    """
    if replicates < 100:
        raise ValueError(f"corrected_rate: replicates={replicates} is too few; use at least 100")
    sums, units = np.asarray(doc_sums, dtype=float), np.asarray(doc_units, dtype=float)
    keep = units > 0
    sums, units = sums[keep], units[keep]
    if not len(units):
        raise ValueError("corrected_rate: the run has no judged unit to correct")
    k, n = float(sums.sum()), int(units.sum())
    observed = k / n
    base: dict[str, Any] = {"observed": observed, "k": k, "n": n, "docs": len(units), "accuracy": accuracy,
                            "replicates": replicates}
    why = accuracy.unusable()
    if why is not None:
        return CorrectedRate(None, None, reason=why, **base)
    value = float(rogan_gladen(observed, accuracy.sensitivity or 0.0, accuracy.specificity or 0.0))
    rng = np.random.default_rng(seed)
    rates = _run_rates(sums, units, replicates, rng)
    pos, neg = accuracy.positives, accuracy.negatives
    se = rng.binomial(pos, (accuracy.true_pos + 1) / (pos + 2), size=replicates) / pos
    sp = rng.binomial(neg, (accuracy.true_neg + 1) / (neg + 2), size=replicates) / neg
    estimates = rogan_gladen(rates, se, sp)
    defined = estimates[~np.isnan(estimates)]
    undefined = replicates - len(defined)
    tail = (1.0 - confidence) / 2.0
    if undefined > tail * replicates / 2.0:
        reason = (f"interval undefined: the redrawn calibration set was no better than chance in {undefined} of "
                  f"{replicates} replicates; annotate more items")
        return CorrectedRate(value, None, undefined_replicates=undefined, reason=reason, **base)
    low, high = np.quantile(defined, [tail, 1.0 - tail])
    interval = Interval(float(low), float(high), METHOD, confidence)
    return CorrectedRate(value, interval, undefined_replicates=undefined, **base)
