"""Test-only: import the scripted lm-eval backend (``--model uta-scripted``) in every process whose
PYTHONPATH holds this folder (the comparison tests' ``uta-eval`` processes)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import scripted_backend  # noqa: E402, F401
