"""Fixtures of the retest tests: saved runs and the judge double of tests/judge."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
for folder in ("annotate", "judge", "runs"):
    sys.path.insert(0, str(HERE.parent / folder))
