"""Seeded selections of items to look at again: the balanced hard-case packet that
``uta-agreement --slices`` measures and ``uta-annotate`` hands to annotators."""

from __future__ import annotations

import random
from collections.abc import Sequence


def balanced_hard(disagree: Sequence[str], yes: Sequence[str], no: Sequence[str], limit: int,
                  rng: random.Random) -> list[str]:
    """The balanced hard-case selection: up to ``limit`` disagreements, then as many agreed
    items, half agreed-genuine (rounded up) and half agreed-not-genuine, a short side filled
    from the other.

    Args:
        disagree: items the two judges disagree on (sorted).
        yes: items both call genuine (sorted).
        no: items both call not genuine (sorted).
        limit: most disagreements to take.
        rng: the seeded generator.
    """
    hard = rng.sample(list(disagree), min(len(disagree), limit))
    k = len(hard)
    take_yes = min(len(yes), (k + 1) // 2)
    take_no = min(len(no), k - take_yes)
    take_yes = min(len(yes), k - take_no)
    return hard + rng.sample(list(yes), take_yes) + rng.sample(list(no), take_no)
