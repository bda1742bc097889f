"""A confidence interval and how it was computed."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Interval:
    """A two-sided confidence interval.

    Attributes:
        low: lower end.
        high: upper end.
        method: ``wilson``, ``newcombe``, ``paired_bootstrap`` or ``normal_stderr``.
        confidence: coverage, e.g. 0.95.
    """

    low: float
    high: float
    method: str
    confidence: float

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies in the closed interval.

        Args:
            value: the number to test.
        """
        return self.low <= value <= self.high

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable copy."""
        return asdict(self)
