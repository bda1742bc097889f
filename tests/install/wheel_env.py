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


def make_wheel_venv(out_dir: Path, wheel: Path | None = None) -> WheelVenv:
    """Build the wheel (unless given) and install it, non-editable, into a new venv under ``out_dir``.

    Args:
        out_dir: scratch directory (a pytest ``tmp_path_factory`` directory).
        wheel: an already built wheel to install.
    """
    wheel = wheel or build_wheel(out_dir)
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


def _dist_top_levels(dist) -> set[str]:
    """The top-level import names a distribution installs (``top_level.txt``, else its file list)."""
    text = dist.read_text("top_level.txt")
    if text:
        return {line.strip() for line in text.splitlines() if line.strip()}
    names = set()
    for file in dist.files or []:
        parts = file.parts
        if not parts or parts[0].endswith((".dist-info", ".egg-info", ".pth")) or parts[0] in ("..", "bin"):
            continue
        top = parts[0]
        names.add(top[:-3] if top.endswith(".py") else top.split(".")[0] if top.endswith(".so") else top)
    return names


def core_closure(requirements: list[str]) -> set[str]:
    """Normalised names of the distributions a plain ``pip install`` of these requirements pulls in
    (markers evaluated without extras, except the extras a requirement itself asks for).

    Args:
        requirements: ``Requires-Dist`` lines of the wheel.
    """
    import importlib.metadata as md

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    seen: set[str] = set()
    todo: list[tuple[str, frozenset[str]]] = [(r, frozenset()) for r in requirements]
    while todo:
        text, extras = todo.pop()
        req = Requirement(text)
        if req.marker is not None and not any(req.marker.evaluate({"extra": e}) for e in (extras or {""})):
            continue
        name = canonicalize_name(req.name)
        key = f"{name}[{','.join(sorted(req.extras))}]"
        if key in seen:
            continue
        seen.add(key)
        seen.add(name)
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            continue
        todo.extend((child, frozenset(req.extras)) for child in dist.requires or [])
    return {s for s in seen if "[" not in s}


def plain_install_guard(site_packages: Path, wheel: Path) -> list[str]:
    """Make the fresh venv behave like a plain ``pip install uta-tasks`` (no extras): importing any
    top-level module of a shared distribution outside the wheel's core dependency closure raises
    ImportError, as it would on a machine that never installed it. Returns the blocked names.

    Args:
        site_packages: the fresh venv's site-packages.
        wheel: the installed wheel (its ``Requires-Dist`` lines give the closure).
    """
    import importlib.metadata as md
    import zipfile
    from email.parser import Parser

    from packaging.utils import canonicalize_name

    with zipfile.ZipFile(wheel) as archive:
        meta_name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(archive.read(meta_name).decode("utf-8"))
    allowed = core_closure(metadata.get_all("Requires-Dist") or []) | {"uta-tasks", "pip", "setuptools"}
    allowed_modules: set[str] = set()
    blocked: set[str] = set()
    for dist in md.distributions():
        name = canonicalize_name(dist.metadata["Name"] or "")
        (allowed_modules if name in allowed else blocked).update(_dist_top_levels(dist))
    blocked -= allowed_modules | set(sys.stdlib_module_names) | {"uta_tasks", "_uta_plain_guard"}
    guard = site_packages / "_uta_plain_guard.py"
    guard.write_text(  # the path finder, minus the blocked names: find_spec() says "absent" as it would
        "import sys\n"
        "from importlib.machinery import PathFinder\n"
        f"BLOCKED = frozenset({sorted(blocked)!r})\n"
        "class PlainInstallFinder(PathFinder):\n"
        "    @classmethod\n"
        "    def find_spec(cls, name, path=None, target=None):\n"
        "        if name.partition('.')[0] in BLOCKED:\n"
        "            return None\n"
        "        return super().find_spec(name, path, target)\n"
        "sys.meta_path[:] = [PlainInstallFinder if f is PathFinder else f for f in sys.meta_path]\n",
        encoding="utf-8",
    )
    (site_packages / "_uta_plain_guard.pth").write_text("import _uta_plain_guard\n", encoding="utf-8")
    return sorted(blocked)
