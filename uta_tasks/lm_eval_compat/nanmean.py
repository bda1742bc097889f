"""lm-eval's ``nanmean`` aggregation (the probe's rates leave unjudged docs out)."""

from __future__ import annotations

from collections.abc import Sequence


def nanmean(values: Sequence[float]) -> float:
    """lm-eval's ``nanmean`` of per-doc ``values`` (NaN, i.e. unjudged, docs left out)."""
    from lm_eval.api.metrics import nanmean as lm_nanmean

    return float(lm_nanmean(values))
