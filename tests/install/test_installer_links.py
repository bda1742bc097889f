"""The setup scripts' installer (``scripts/installer.sh``) in a venv made without pip, as
``scripts/setup_env.sh`` makes it: the base interpreter's pip installs uv into it; uv
hardlinks packages from its cache (a copy of the quickstart's 3.7 GB took up to 9 s), and
copies them under ``UTA_LINK_MODE=copy``, which the NLTK data of llama-index-core needs
(NLTK refuses a multiply-linked data file).

Real bash, uv and packages from the package index, in a fresh venv."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from wheel_env import REPO_ROOT

pytestmark = pytest.mark.slow


def _install(venv: Path, cache: Path, *packages: str, link_mode: str | None = None) -> None:
    env = {**os.environ, "UV_CACHE_DIR": str(cache)}
    env.pop("UTA_LINK_MODE", None)
    if link_mode:
        env["UTA_LINK_MODE"] = link_mode
    result = subprocess.run(
        ["bash", "-c", 'source scripts/installer.sh && pip_install "$@"', "_", str(venv / "bin" / "python"), *packages],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]


def test_a_venv_without_pip_gets_uv_and_links_packages_unless_asked_to_copy(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    assert not (venv / "bin" / "pip").exists()
    site = next((venv / "lib").glob("python3.*/site-packages"))

    _install(venv, tmp_path / "uv-cache", "six")
    assert (venv / "bin" / "uv").is_file(), "uv was not installed into the venv"
    assert (site / "six.py").stat().st_nlink > 1, "six.py was copied, not linked from uv's cache"

    _install(venv, tmp_path / "uv-cache", "idna", link_mode="copy")
    assert (site / "idna" / "core.py").stat().st_nlink == 1, "idna was linked although UTA_LINK_MODE=copy"
