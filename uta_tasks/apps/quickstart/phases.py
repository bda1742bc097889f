"""The quickstart's phases and how long each took, printed at the end.

``make quickstart`` runs ``scripts/setup_env.sh`` first and passes its duration in
:data:`SETUP_SECONDS_ENV`, so the closing line covers the whole command.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

SETUP_SECONDS_ENV = "UTA_QUICKSTART_SETUP_SECONDS"


def clock(seconds: float) -> str:
    """``MmSSs``.

    Args:
        seconds: a duration.
    """
    whole = int(round(seconds))
    return f"{whole // 60}m{whole % 60:02d}s"


@dataclass
class Phases:
    """Durations of named phases, in the order they ran."""

    seconds: dict[str, float] = field(default_factory=dict)

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Phases:
        """Start with the setup phase ``make quickstart`` measured, when it did.

        Args:
            environ: the environment (reads :data:`SETUP_SECONDS_ENV`).
        """
        phases = cls()
        raw = environ.get(SETUP_SECONDS_ENV, "")
        if raw.strip().isdigit():
            phases.seconds["setup"] = float(raw)
        return phases

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Time the block as phase ``name`` (also when it raises).

        Args:
            name: the phase.
        """
        started = time.monotonic()
        try:
            yield
        finally:
            self.add(name, time.monotonic() - started)

    def add(self, name: str, seconds: float) -> None:
        """Count ``seconds`` to phase ``name``.

        Args:
            name: the phase.
            seconds: its duration.
        """
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds

    def line(self) -> str:
        """``time per phase: setup 4m10s, model 0m01s, ...; total 7m02s``."""
        parts = ", ".join(f"{name} {clock(value)}" for name, value in self.seconds.items())
        return f"time per phase: {parts}; total {clock(sum(self.seconds.values()))}"
