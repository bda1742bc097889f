"""Fixtures of the install tests: the package as a user gets it, from its wheel."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from wheel_env import WheelVenv, make_wheel_venv, plain_install_guard  # noqa: E402


@pytest.fixture(scope="session")
def wheel_venv(tmp_path_factory: pytest.TempPathFactory) -> WheelVenv:
    """A fresh venv with uta-tasks installed NON-editable from a freshly built wheel
    (heavy dependencies shared with the test environment). Built once per session.

    Use ``wheel_venv.run("python", "-m", "lm_eval", ...)`` or ``wheel_venv.python``.
    """
    return make_wheel_venv(tmp_path_factory.mktemp("wheel_venv"))


@pytest.fixture(scope="session")
def plain_wheel_venv(wheel_venv: WheelVenv, tmp_path_factory: pytest.TempPathFactory) -> WheelVenv:
    """Like ``wheel_venv`` (same wheel), but as after a plain ``pip install uta-tasks``: every
    shared package outside the wheel's core dependencies (extras, test tools, torch) cannot be imported."""
    venv = make_wheel_venv(tmp_path_factory.mktemp("plain_wheel_venv"), wheel=wheel_venv.wheel)
    blocked = plain_install_guard(venv.site_packages, venv.wheel)
    # matplotlib is no dependency at all any more: blocked where some other package brought it, absent elsewhere
    assert {"torch", "selenium", "pytest"} <= set(blocked), blocked
    return venv
