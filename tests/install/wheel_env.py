"""A fresh virtual environment with uta-tasks installed from its built wheel.

The heavy dependencies (lm-eval, torch, vLLM, transformers) are not reinstalled: the
fresh environment reads the test environment's site-packages through a ``.pth`` file,
*after* its own site-packages, so ``uta_tasks`` (and its ``uta-eval`` command) come from
the wheel while everything else is shared. The wheel is built from a copy of the
source tree, so building leaves nothing in the repository.
"""

from __future__ import annotations

import shutil
import site
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
_NOT_SOURCE = shutil.ignore_patterns(
    ".git", ".venv", "venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".cache", "out", "*.db"
)


@dataclass(frozen=True)
class WheelVenv:
    """The fresh environment.

    Attributes:
        root: the venv directory.
        python: its interpreter.
        bin: its scripts directory (``uta-eval`` is there).
        wheel: the wheel it was installed from.
        site_packages: its own site-packages (where ``uta_tasks`` is).
    """

    root: Path
    python: Path
    bin: Path
    wheel: Path
    site_packages: Path

    def run(self, *args: str, timeout: float = 300, check: bool = True, **kwargs) -> subprocess.CompletedProcess:
        """Run a command with this environment's ``bin`` first on PATH, from a neutral cwd.

        Args:
            args: the command; a bare ``python`` means this environment's interpreter.
            timeout: seconds before the command is killed.
            check: raise (with the command's output) on a non-zero exit.
        """
        import os

        command = [str(self.python) if args[0] == "python" else args[0], *args[1:]]
        env = dict(os.environ, PATH=f"{self.bin}{os.pathsep}{os.environ.get('PATH', '')}")
        env.pop("PYTHONPATH", None)
        env.setdefault("HF_HUB_OFFLINE", "1")
        env.setdefault("HF_DATASETS_OFFLINE", "1")
        result = subprocess.run(
            command, cwd=self.root, env=env, capture_output=True, text=True, timeout=timeout, **kwargs
        )
        if check and result.returncode != 0:
            raise AssertionError(
                f"{' '.join(command)} exited {result.returncode}\n--- stdout ---\n{result.stdout[-4000:]}"
                f"\n--- stderr ---\n{result.stderr[-4000:]}"
            )
        return result


def build_wheel(out_dir: Path) -> Path:
    """Build the uta-tasks wheel from a copy of the source tree.

    Args:
        out_dir: scratch directory; the wheel lands in ``out_dir/dist``.
    """
    source = out_dir / "src"
    shutil.copytree(REPO_ROOT, source, ignore=_NOT_SOURCE)
    dist = out_dir / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-input",
         "-w", str(dist), str(source)],
        check=True, capture_output=True, text=True, timeout=300,
    )
    wheels = sorted(dist.glob("uta_tasks-*.whl"))
    if len(wheels) != 1:
        raise AssertionError(f"expected one uta_tasks wheel in {dist}, found {wheels}")
    return wheels[0]


def make_wheel_venv(out_dir: Path) -> WheelVenv:
    """Build the wheel and install it, non-editable, into a new venv under ``out_dir``.

    Args:
        out_dir: scratch directory (a pytest ``tmp_path_factory`` directory).
    """
    wheel = build_wheel(out_dir)
    root = out_dir / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, timeout=120)
    python = root / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True, timeout=60,
    ).stdout.strip()
    site_packages = Path(purelib)
    shared = [p for p in dict.fromkeys([*site.getsitepackages(), sysconfig.get_paths()["purelib"]]) if Path(p).is_dir()]
    (site_packages / "_uta_shared_test_env.pth").write_text("".join(f"{p}\n" for p in shared))
    # --force-reinstall: the shared environment already has uta-tasks (editable); pip
    # leaves that one alone ("outside environment") and installs the wheel here.
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
         "--force-reinstall", "--no-input", str(wheel)],
        check=True, capture_output=True, text=True, timeout=300,
    )
    return WheelVenv(root=root, python=python, bin=root / "bin", wheel=wheel, site_packages=site_packages)
