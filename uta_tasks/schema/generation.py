"""What a record's generation settings say (lm-eval's ``generation_kwargs``, as the probe
records them under ``generation``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def is_greedy(gen_kwargs: Mapping[str, Any]) -> bool:
    """Whether lm-eval will decode these settings greedily (``normalize_gen_kwargs`` rules).

    Args:
        gen_kwargs: generation settings of one request.
    """
    if gen_kwargs.get("do_sample") is False:
        return True
    return float(gen_kwargs.get("temperature", 0.0) or 0.0) == 0.0
