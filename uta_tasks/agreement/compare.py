"""Compare label sources pairwise on the items they share (matched by item id)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from uta_tasks.judge import LABELS

from .sources import LabelSource
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
    """

    a: str
    b: str
    n: int
    only_a: int
    only_b: int
    genuine: Measure | None
    label: Measure | None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable copy."""
        return {
            "a": self.a, "b": self.b, "n": self.n, "only_a": self.only_a, "only_b": self.only_b,
            "genuine": None if self.genuine is None else self.genuine.to_dict(),
            "label": None if self.label is None else self.label.to_dict(),
            "error": self.error,
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
    return Comparison(a.name, b.name, len(common), only_a, only_b, genuine, label)


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


def report(sources: Sequence[LabelSource], rows: Sequence[Comparison], replicates: int, seed: int) -> dict[str, Any]:
    """The JSON report.

    Args:
        sources: The sources.
        rows: Their comparisons.
        replicates: Bootstrap resamples.
        seed: Bootstrap seed.
    """
    return {
        "bootstrap": {"replicates": replicates, "seed": seed, "level": LEVEL, "method": "percentile"},
        "sources": [
            {"name": s.name, "path": s.path, "rater": s.rater, "items": len(s.answers), "skipped": s.skipped}
            for s in sources
        ],
        "comparisons": [row.to_dict() for row in rows],
    }
