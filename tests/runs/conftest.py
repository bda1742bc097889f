"""Fixtures of the run-reader tests: constructed runs, and the shared real run."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from real_run import uta_real_run  # noqa: F401  (the shared session fixture)
