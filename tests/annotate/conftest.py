"""Fixtures of the annotation tests: saved runs judged through the real judge path."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "judge"))

from saved_runs import judge_double, judge_meta  # noqa: E402,F401 - shared fixtures


