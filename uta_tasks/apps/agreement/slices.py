"""The paper's judge-vs-judge slices (Appendix D.1, Table 7) and the per-file view of two judges.

Slices of the items two sources share, all seeded (``random.Random(seed)`` over sorted ids):

- ``full``: every shared item.
- ``random``: ``size`` items drawn at random, stratified by the first source's genuine
  decision with largest-remainder rounding, so its prevalence is the full panel's.
- ``hard``: the balanced hard-case slice: items where the *defining* pair (``--hard_from``,
  default the two compared sources) disagrees on genuine (at most ``size // 2``), plus as
  many items they agree on, half agreed-genuine (rounded up) and half agreed-not-genuine;
  a side short of items is filled from the other.

Per file (one model's task, from saved samples): each source's follow-up rate over the
items both judged there, with Pearson and Spearman correlations across files, and each
model's rate shift (second minus first) pooled over its files.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from uta_tasks.runs.label_sources import LabelSource
from uta_tasks.stats.sampling import balanced_hard

from .compare import Comparison, compare

SLICES = ("full", "random", "hard")
DEFAULT_SIZE = 200


def draw_slices(a: LabelSource, b: LabelSource, size: int = DEFAULT_SIZE, seed: int = 0,
                hard_from: tuple[LabelSource, LabelSource] | None = None) -> dict[str, list[str]]:
    """The item ids of each slice.

    Args:
        a: first source (its prevalence is kept by ``random``).
        b: second source.
        size: items of the random slice; the hard slice takes at most ``size // 2`` disagreements.
        seed: seed.
        hard_from: the pair whose disagreements define the hard slice (default ``(a, b)``).
    """
    common = sorted(set(a.answers) & set(b.answers))
    x, y = hard_from or (a, b)
    rng = random.Random(seed)
    strata = [[i for i in common if a.answers[i][1] is value] for value in (True, False)]
    total = len(common)
    want = min(size, total)
    exact = [want * len(s) / total if total else 0.0 for s in strata]
    quota = [int(e) for e in exact]
    if want - sum(quota) > 0:
        quota[int(np.argmax([e - q for e, q in zip(exact, quota)]))] += want - sum(quota)
    picked: list[str] = []
    for stratum, count in zip(strata, quota):
        picked += rng.sample(stratum, min(count, len(stratum)))
    pool = [i for i in common if i in x.answers and i in y.answers]
    disagree = [i for i in pool if x.answers[i][1] != y.answers[i][1]]
    yes = [i for i in pool if x.answers[i][1] and y.answers[i][1]]
    no = [i for i in pool if not x.answers[i][1] and not y.answers[i][1]]
    hard = balanced_hard(disagree, yes, no, size // 2, rng)
    return {"full": common, "random": sorted(picked), "hard": sorted(hard)}


@dataclass(frozen=True)
class SliceRow:
    """Two sources compared on one slice.

    Attributes:
        slice: ``full``, ``random`` or ``hard``.
        comparison: agreement and kappa on the slice.
        rate_a: the first source's genuine share on the slice.
        rate_b: the second source's genuine share on the slice.
    """

    slice: str
    comparison: Comparison
    rate_a: float | None
    rate_b: float | None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"slice": self.slice, "rate_a": self.rate_a, "rate_b": self.rate_b, **self.comparison.to_dict()}


def _restricted(source: LabelSource, ids: Sequence[str]) -> LabelSource:
    keep = set(ids)
    return LabelSource(source.name, source.path, {i: v for i, v in source.answers.items() if i in keep},
                       rater=source.rater, judge=source.judge)


def _rate(source: LabelSource, ids: Sequence[str]) -> float | None:
    return sum(source.answers[i][1] for i in ids) / len(ids) if ids else None


def slice_rows(a: LabelSource, b: LabelSource, size: int = DEFAULT_SIZE, seed: int = 0, replicates: int = 2000,
               hard_from: tuple[LabelSource, LabelSource] | None = None) -> list[SliceRow]:
    """Agreement of two sources on each slice (slices with no item are left out).

    Args:
        a: first source.
        b: second source.
        size: random-slice size.
        seed: seed of the draws and the bootstrap.
        replicates: bootstrap resamples.
        hard_from: the pair defining the hard slice.
    """
    rows = []
    for name, ids in draw_slices(a, b, size, seed, hard_from).items():
        if ids:
            comparison = compare(_restricted(a, ids), _restricted(b, ids), replicates, seed)
            rows.append(SliceRow(name, comparison, _rate(a, ids), _rate(b, ids)))
    return rows


def _ranks(x: np.ndarray) -> np.ndarray:
    order = np.argsort(x, kind="mergesort")
    ranks = np.empty(len(x))
    ranks[order] = np.arange(1, len(x) + 1)
    for value in np.unique(x):
        tied = x == value
        ranks[tied] = ranks[tied].mean()
    return ranks


def _pearson(x: np.ndarray, y: np.ndarray) -> float | None:
    if len(x) < 3 or np.std(x) == 0 or np.std(y) == 0:
        return None
    return float(np.corrcoef(x, y)[0, 1])


@dataclass(frozen=True)
class FileView:
    """Two judges file by file.

    Attributes:
        files: per file ``(file, items, rate A, rate B)``.
        pearson: correlation of the per-file rates (None with fewer than 3 files or no variation).
        spearman: rank correlation of the per-file rates (ties get average ranks).
        models: per model ``(model, items, rate A, rate B, shift B - A)``.
    """

    files: list[tuple[str, int, float, float]]
    pearson: float | None
    spearman: float | None
    models: list[tuple[str, int, float, float, float]]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)


def file_view(a: LabelSource, b: LabelSource) -> FileView | None:
    """Per-file rates, their correlations and per-model shifts; None unless both are judge folders.

    Args:
        a: first judge.
        b: second judge.
    """
    if not a.files or not b.files:
        return None
    files = []
    per_model: dict[str, list[float]] = {}
    for key in sorted(set(a.files) & set(b.files)):
        ids = sorted(set(a.files[key]) & set(b.files[key]))
        if not ids:
            continue
        ra, rb = _rate(a, ids) or 0.0, _rate(b, ids) or 0.0
        files.append((key, len(ids), ra, rb))
        cell = per_model.setdefault(key.rsplit("/", 1)[0], [0.0, 0.0, 0.0])
        cell[0] += len(ids)
        cell[1] += ra * len(ids)
        cell[2] += rb * len(ids)
    x = np.array([f[2] for f in files])
    y = np.array([f[3] for f in files])
    models = [(m, int(n), sa / n, sb / n, (sb - sa) / n) for m, (n, sa, sb) in sorted(per_model.items())]
    spearman = _pearson(_ranks(x), _ranks(y)) if len(files) >= 3 else None
    return FileView(files, _pearson(x, y), spearman, models)


def _aligned(rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
            for r in rows]


def render_slices(rows: Sequence[SliceRow], view: FileView | None) -> str:
    """The slices as text (the layout of the paper's Table 7), then the per-file view.

    Args:
        rows: slice rows of one or more pairs.
        view: the per-file view of the pair, or None.
    """
    table = [["slice", "comparison", "n", "kappa", "agree %", "genuine % A", "genuine % B"]]
    for r in rows:
        c = r.comparison
        kappa = "undefined" if c.genuine is None or c.genuine.kappa is None else f"{c.genuine.kappa:.3f}"
        agree = "—" if c.genuine is None else f"{c.genuine.agreement:.1f}"
        rates = ["—" if v is None else f"{100 * v:.1f}" for v in (r.rate_a, r.rate_b)]
        table.append([r.slice, f"{c.a} vs {c.b}", str(c.n), kappa, agree, *rates])
    lines = ["", "Slices (Appendix D.1 / Table 7): kappa, agreement and each source's genuine rate", *_aligned(table)]
    if view is not None:
        few = " (needs 3+ files with varying rates)"
        pearson = few if view.pearson is None else f" {view.pearson:.3f}"
        spearman = few if view.spearman is None else f" {view.spearman:.3f}"
        models = [["model", "items", "rate A %", "rate B %", "shift (pp)"]]
        models += [[m, str(n), f"{100 * ra:.1f}", f"{100 * rb:.1f}", f"{100 * d:+.1f}"]
                   for m, n, ra, rb, d in view.models]
        lines += ["", f"Per-file rates over {len(view.files)} files: Pearson{pearson}, Spearman{spearman}",
                  *_aligned(models)]
    return "\n".join(lines) + "\n"
