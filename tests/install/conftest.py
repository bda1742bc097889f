"""Fixtures of the install tests: the package as a user gets it, from its wheel."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from wheel_env import WheelVenv, make_wheel_venv  # noqa: E402


@pytest.fixture(scope="session")
def wheel_venv(tmp_path_factory: pytest.TempPathFactory) -> WheelVenv:
    """A fresh venv with uta-tasks installed NON-editable from a freshly built wheel
    (heavy dependencies shared with the test environment). Built once per session.

    Use ``wheel_venv.run("python", "-m", "lm_eval", ...)`` or ``wheel_venv.python``.
    """
    return make_wheel_venv(tmp_path_factory.mktemp("wheel_venv"))
