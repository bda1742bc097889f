"""Fixtures of the comparison tests (``uta-compare``): constructed runs, the scripted backend
in real ``uta-eval`` processes, the judge double and the Hub double."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent
ROOT = TESTS.parent
for folder in (HERE, TESTS / "pipeline", TESTS / "judge", TESTS / "runs"):
    sys.path.insert(0, str(folder))
