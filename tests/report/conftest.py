"""Fixtures shared with tests/runs: the constructed-run builder and the real small run."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runs"))

from real_run import uta_real_run  # noqa: F401  (the shared session fixture)
