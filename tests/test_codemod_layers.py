"""scripts/codemods/layers.py on a small repository laid out the old way: the moves, the
rewritten imports and module paths, the contracts, and a second run that changes nothing.

layers-codemod: skip (this file spells the old layout on purpose)
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "codemods" / "layers.py"

OLD_TREE = {
    "uta_tasks/__init__.py": "",
    "uta_tasks/judge/__init__.py": "from .labels import LABELS\n",
    "uta_tasks/judge/labels.py": "LABELS = ('genuine', 'none')\n",
    "uta_tasks/judge/local_server.py": "def free_port() -> int:\n    return 8080\n",
    "uta_tasks/judge/prelabel_check.py": (
        "from .labels import LABELS\nfrom .local_server import free_port\n\n\n"
        "def main() -> int:\n    return len(LABELS) + free_port()\n"
    ),
    "uta_tasks/samples/__init__.py": "from .files import find_samples\nfrom .items import sample_items\n",
    "uta_tasks/samples/files.py": "def find_samples() -> list:\n    return []\n",
    "uta_tasks/samples/items.py": "from .files import find_samples\n\n\ndef sample_items() -> list:\n    return find_samples()\n",
    "uta_tasks/runs/__init__.py": "",
    "uta_tasks/runs/cli.py": "from uta_tasks.samples import find_samples, sample_items\n\n\ndef main() -> int:\n    return len(find_samples() + sample_items())\n",
    "uta_tasks/quickstart/__init__.py": "GREETING = 'quickstart'\n",
    "uta_tasks/quickstart/__main__.py": "from uta_tasks.quickstart import GREETING\n\nprint(GREETING)\n",
    "tests/test_old.py": (
        "from uta_tasks import quickstart\n\n\n"
        "def test_patch(monkeypatch):\n"
        "    monkeypatch.setattr(\"uta_tasks.judge.local_server.free_port\", lambda: 1)\n"
        "    assert quickstart.GREETING\n"
    ),
    "Makefile": "lint:\n\t$(FAST_VENV)/bin/python -m mypy uta_tasks\n\nquickstart:\n\tpython -m uta_tasks.quickstart\n",
    "pyproject.toml": (
        "[project]\nname = \"mini\"\n\n[project.optional-dependencies]\n"
        "test = [\"pytest>=8\", \"mypy>=1.10\", \"ruff>=0.6\"]\n\n[project.scripts]\n"
        "uta-summary = \"uta_tasks.runs.cli:main\"\nuta-prelabel-check = \"uta_tasks.judge.prelabel_check:main\"\n"
    ),
    "CONTRIBUTING.md": "# Contributing\n\n| concept | place |\n|---|---|\n| the quickstart | `uta_tasks/quickstart/` |\n\n## More\n",
    "docs/judge.md": "The local judge is `uta_tasks/judge/local_server.py`; run `python -m uta_tasks.quickstart`.\n",
}


def _git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def codemod():
    spec = importlib.util.spec_from_file_location("layers_codemod", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def old_repo(tmp_path: Path) -> Path:
    for rel, text in OLD_TREE.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "old layout")
    return tmp_path


def test_codemod_moves_rewrites_and_is_idempotent(codemod, old_repo: Path, capsys) -> None:
    assert codemod.main(["--root", str(old_repo)]) == 0
    root = old_repo
    for gone in ("uta_tasks/judge/local_server.py", "uta_tasks/judge/prelabel_check.py", "uta_tasks/samples",
                 "uta_tasks/runs/cli.py", "uta_tasks/quickstart"):
        assert not (root / gone).exists(), gone
    check = (root / "uta_tasks/apps/prelabel_check.py").read_text()
    assert "from uta_tasks.judge.labels import LABELS" in check
    assert "from uta_tasks.servers.llama_server import free_port" in check
    summary = (root / "uta_tasks/apps/summary.py").read_text()
    assert "from uta_tasks.runs.sample_files import find_samples" in summary
    assert "from uta_tasks.runs.sample_items import sample_items" in summary
    assert "from .sample_files import find_samples" in (root / "uta_tasks/runs/sample_items.py").read_text()
    test = (root / "tests/test_old.py").read_text()
    assert "from uta_tasks.apps import quickstart" in test
    assert '"uta_tasks.servers.llama_server.free_port"' in test
    assert "python -m uta_tasks.apps.quickstart" in (root / "Makefile").read_text()
    assert "lint-imports" in (root / "Makefile").read_text()
    pyproject = (root / "pyproject.toml").read_text()
    assert 'uta-summary = "uta_tasks.apps.summary:main"' in pyproject
    assert 'uta-prelabel-check = "uta_tasks.apps.prelabel_check:main"' in pyproject
    assert '"import-linter>=' in pyproject
    assert "`uta_tasks/servers/llama_server.py`" in (root / "docs/judge.md").read_text()
    assert "[importlinter:contract:layers]" in (root / ".importlinter").read_text()
    assert "### Import contracts" in (root / "CONTRIBUTING.md").read_text()

    # the moved tree runs: the command's entry point and python -m of the moved quickstart
    env = {**os.environ, "PYTHONPATH": str(root)}
    entry = "from uta_tasks.apps.summary import main; from uta_tasks.apps.prelabel_check import main as m; print(main(), m())"
    assert subprocess.run([sys.executable, "-c", entry], env=env, cwd=root, capture_output=True, text=True,
                          check=True).stdout.split() == ["0", "8082"]
    assert subprocess.run([sys.executable, "-m", "uta_tasks.apps.quickstart"], env=env, cwd=root,
                          capture_output=True, text=True, check=True).stdout.strip() == "quickstart"

    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "layers")
    capsys.readouterr()
    assert codemod.main(["--root", str(root)]) == 0
    assert "nothing to do" in capsys.readouterr().out
    assert _git(root, "status", "--porcelain") == ""
