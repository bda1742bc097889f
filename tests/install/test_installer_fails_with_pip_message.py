"""When pip cannot install uv, the setup's install step ends there with pip's own message
(the step runs under ``set -e``; before, it went on and failed on the missing ``uv``).

Real bash, a real venv and real pip with no index to install from."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from wheel_env import REPO_ROOT


def _install_step() -> str:
    """The ``bash -c`` script the light setup runs under ``flock`` (as written there)."""
    text = (REPO_ROOT / "scripts" / "setup_light_env.sh").read_text(encoding="utf-8")
    found = re.search(r"flock \S+ bash -c '([^']+)'", text)
    assert found, "setup_light_env.sh no longer runs the installer under flock bash -c"
    return found.group(1)


def test_a_uv_that_pip_cannot_install_stops_the_step_with_pips_message(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": "", "UTA_INSTALLER": "uv"}
    result = subprocess.run(
        ["bash", "-c", _install_step(), "_", str(venv / "bin" / "python"), "six"],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert result.returncode != 0
    assert "Could not find a version that satisfies the requirement uv" in result.stderr, result.stderr
    assert "/uv: No such file" not in result.stderr, result.stderr
