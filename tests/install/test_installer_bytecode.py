"""The setup scripts' installer (``scripts/installer.sh``) compiles bytecode at install only
where Python will not write it itself: with ``PYTHONDONTWRITEBYTECODE`` set. Elsewhere the
quickstart's setup leaves compiling to each module's first import (compiling every installed
module took 77 s of the quickstart's 2-core run, for ~6,000 of ~26,000 modules imported).

Real uv, real packages from the package index, in a fresh venv."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from wheel_env import REPO_ROOT

pytestmark = pytest.mark.slow


def _install(venv: Path, package: str, dont_write: bool) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if dont_write:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    result = subprocess.run(
        ["bash", "-c", 'source scripts/installer.sh && pip_install "$@"', "_", str(venv / "bin" / "python"), package],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]


def test_bytecode_is_compiled_at_install_only_where_python_will_not_write_it(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    uv = Path(sys.executable).parent / "uv"  # the test environment's uv (setup installs it); else the installer fetches one
    if uv.exists():
        (venv / "bin" / "uv").symlink_to(uv)
    site = next((venv / "lib").glob("python3.*/site-packages"))
    tag = sys.implementation.cache_tag

    _install(venv, "six", dont_write=False)
    assert (site / "six.py").is_file()
    assert not (site / "__pycache__" / f"six.{tag}.pyc").exists(), "compiled although Python writes it on import"

    _install(venv, "idna", dont_write=True)
    assert (site / "idna" / "__pycache__" / f"core.{tag}.pyc").is_file(), "not compiled with PYTHONDONTWRITEBYTECODE"
