"""``--family MODEL=FAMILY`` pairs of ``uta-report`` and ``uta-gate --paper``."""

from __future__ import annotations


def parse_families(pairs: list[str]) -> dict[str, str]:
    """``{model: family}`` from ``MODEL=FAMILY`` strings.

    Args:
        pairs: the repeated option's values.
    """
    out: dict[str, str] = {}
    for pair in pairs:
        model, sep, family = pair.rpartition("=")
        if not sep or not model or not family:
            raise ValueError(f"--family {pair!r}: write MODEL=FAMILY, e.g. --family my-org/my-qwen=Qwen3.5")
        out[model] = family
    return out
