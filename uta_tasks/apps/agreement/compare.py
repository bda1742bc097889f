"""Compare label sources pairwise on the items they share (matched by item id)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from uta_tasks.judge import LABELS
from uta_tasks.runs.label_sources import LabelSource

from .stats import DEFAULT_REPLICATES, LEVEL, Measure, NoOverlapError, measure

GENUINE_CATEGORIES = (True, False)
GENUINE_NAMES = ("genuine", "not genuine")


@dataclass
class Comparison:
    """Agreement of two sources.

    Attributes:
        a: Name of source A (confusion-matrix rows).
        b: Name of source B (columns).
        n: Items both sources answered.
        only_a: Items only A answered.
        only_b: Items only B answered.
        genuine: Statistics of the binary genuine decision (None when n = 0).
        label: Statistics of the primary label (None when n = 0).
        error: Why there are no statistics (no overlap), else None.
        sensitivity: On genuine, with A as the reference: the share of A's genuine items B
            also calls genuine (None when A has none).
        specificity: The share of A's not-genuine items B also calls not genuine.
        prevalence: A's share of genuine items.
    """

    a: str
    b: str
    n: int
    only_a: int
    only_b: int
    genuine: Measure | None
    label: Measure | None
    error: str | None = None
    sensitivity: float | None = None
    specificity: float | None = None
    prevalence: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable copy."""
        return {
            "a": self.a, "b": self.b, "n": self.n, "only_a": self.only_a, "only_b": self.only_b,
            "genuine": None if self.genuine is None else self.genuine.to_dict(),
            "label": None if self.label is None else self.label.to_dict(),
            "error": self.error, "sensitivity": self.sensitivity, "specificity": self.specificity,
            "prevalence": self.prevalence,
        }


def compare(a: LabelSource, b: LabelSource, replicates: int = DEFAULT_REPLICATES, seed: int = 0) -> Comparison:
    """Agreement of two sources on their common items.

    Args:
        a: Source A.
        b: Source B.
        replicates: Bootstrap resamples.
        seed: Bootstrap seed (the same resamples for both decisions).

    Raises:
        NoOverlapError: The sources share no item id.
    """
    common = sorted(set(a.answers) & set(b.answers))
    only_a, only_b = len(a.answers) - len(common), len(b.answers) - len(common)
    if not common:
        raise NoOverlapError(
            f"{a.name} ({len(a.answers)} items, {a.path}) and {b.name} ({len(b.answers)} items, {b.path}) share no "
            "item id: compare sources made from the same saved samples (annotation packets are drawn from them)"
        )
    genuine = measure([a.answers[i][1] for i in common], [b.answers[i][1] for i in common],
                      GENUINE_CATEGORIES, GENUINE_NAMES, replicates, seed)
    label = measure([a.answers[i][0] for i in common], [b.answers[i][0] for i in common],
                    LABELS, LABELS, replicates, seed)
    (tp, fn), (fp, tn) = genuine.confusion
    return Comparison(
        a.name, b.name, len(common), only_a, only_b, genuine, label,
        sensitivity=tp / (tp + fn) if tp + fn else None, specificity=tn / (fp + tn) if fp + tn else None,
        prevalence=(tp + fn) / len(common),
    )


def compare_all(
    sources: Sequence[LabelSource], reference: str | None = None, replicates: int = DEFAULT_REPLICATES, seed: int = 0
) -> list[Comparison]:
    """Every pair of sources (or every source against ``reference``); pairs without
    common items get a row with ``n = 0`` and the reason in ``error``.

    Args:
        sources: The sources, in display order.
        reference: Name of the source every other one is compared with (default: all pairs).
        replicates: Bootstrap resamples.
        seed: Bootstrap seed.
    """
    names = [source.name for source in sources]
    if len(set(names)) != len(names):
        raise ValueError(f"source names must differ, got {names}: name them with NAME=PATH")
    if reference is not None and reference not in names:
        raise ValueError(f"--reference {reference!r} is not one of the sources {names}")
    pairs = [
        (x, y) for i, x in enumerate(sources) for y in sources[i + 1 :]
        if reference is None or reference in (x.name, y.name)
    ]
    if reference is not None:
        pairs = [(x, y) if x.name == reference else (y, x) for x, y in pairs]
    rows = []
    for x, y in pairs:
        try:
            rows.append(compare(x, y, replicates, seed))
        except NoOverlapError as exc:
            rows.append(Comparison(x.name, y.name, 0, len(x.answers), len(y.answers), None, None, str(exc)))
    return rows


def report(sources: Sequence[LabelSource], rows: Sequence[Comparison], replicates: int, seed: int,
           **extra: Any) -> dict[str, Any]:
    """The JSON report.

    Args:
        sources: The sources.
        rows: Their comparisons.
        replicates: Bootstrap resamples.
        seed: Bootstrap seed.
        extra: Further sections (``alpha``, ``pooled``, ``slices``, ``files``), JSON-ready.
    """
    return {
        "bootstrap": {"replicates": replicates, "seed": seed, "level": LEVEL, "method": "percentile"},
        "sources": [
            {"name": s.name, "path": s.path, "rater": s.rater, "items": len(s.answers), "skipped": s.skipped}
            for s in sources
        ],
        "comparisons": [row.to_dict() for row in rows],
        **extra,
    }


def compare_pooled(name: str, annotators: Sequence[LabelSource], judge: LabelSource,
                   replicates: int = DEFAULT_REPLICATES, seed: int = 0) -> Comparison:
    """The judge against several annotators pooled, as Appendix D.2 reports it: every
    (annotator, item) answer is one pair with the judge's answer on that item; the humans
    are the reference (first source). The bootstrap resamples these pairs.

    Args:
        name: display name of the pooled humans.
        annotators: one source per annotator.
        judge: the judge.
        replicates: bootstrap resamples.
        seed: bootstrap seed.
    """
    human: list[tuple[str, bool]] = []
    machine: list[tuple[str, bool]] = []
    for annotator in annotators:
        for item_id in sorted(set(annotator.answers) & set(judge.answers)):
            human.append(annotator.answers[item_id])
            machine.append(judge.answers[item_id])
    if not human:
        return Comparison(name, judge.name, 0, 0, len(judge.answers), None, None,
                          f"{name} and {judge.name} share no item id")
    genuine = measure([h[1] for h in human], [m[1] for m in machine], GENUINE_CATEGORIES, GENUINE_NAMES,
                      replicates, seed)
    label = measure([h[0] for h in human], [m[0] for m in machine], LABELS, LABELS, replicates, seed)
    (tp, fn), (fp, tn) = genuine.confusion
    return Comparison(
        name, judge.name, len(human), 0, 0, genuine, label,
        sensitivity=tp / (tp + fn) if tp + fn else None, specificity=tn / (fp + tn) if fp + tn else None,
        prevalence=(tp + fn) / len(human),
    )
