"""uta-tasks installed from its wheel into a fresh venv: the tasks are found the three
documented ways (``--include_path "$(python -m uta_tasks)"``, ``uta-eval``,
``uta_tasks.task_manager()``), and the wheel carries every task and template file."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from wheel_env import REPO_ROOT, WheelVenv

pytestmark = pytest.mark.slow

PACKAGE = REPO_ROOT / "uta_tasks"
TASK = "uta_ifbench_trunc"


def _package_data() -> set[str]:
    """Files under uta_tasks/tasks and uta_tasks/templates that the wheel must ship."""
    wanted = set()
    for sub in ("tasks", "templates"):
        for path in (PACKAGE / sub).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                wanted.add(path.relative_to(REPO_ROOT).as_posix())
    return wanted


def test_wheel_ships_every_task_and_template_file(wheel_venv: WheelVenv) -> None:
    names = set(zipfile.ZipFile(wheel_venv.wheel).namelist())
    missing = sorted(_package_data() - names)
    assert not missing, f"the wheel lacks {missing}: add them to [tool.setuptools.package-data] in pyproject.toml"


def test_uta_tasks_is_imported_from_the_wheel_not_the_repo(wheel_venv: WheelVenv) -> None:
    out = wheel_venv.run("python", "-c", "import uta_tasks, json; print(json.dumps(uta_tasks.__file__))").stdout
    location = Path(json.loads(out.strip().splitlines()[-1])).resolve()
    assert not location.is_relative_to(REPO_ROOT.resolve()), f"uta_tasks imported from the repository: {location}"
    assert location.is_relative_to(wheel_venv.site_packages.resolve()), location


def test_python_m_uta_tasks_prints_the_task_folder(wheel_venv: WheelVenv) -> None:
    folder = Path(wheel_venv.run("python", "-m", "uta_tasks").stdout.strip())
    assert folder.is_relative_to(wheel_venv.site_packages.resolve()), folder
    assert (folder / "_default_template_yaml").is_file()
    assert (folder / "ifbench" / f"{TASK}.yaml").is_file()
    yamls = {p.name for p in folder.rglob("*.yaml")}
    expected = {p.name for p in (PACKAGE / "tasks").rglob("*.yaml")}
    assert yamls == expected


def test_lm_eval_ls_tasks_with_include_path(wheel_venv: WheelVenv) -> None:
    folder = wheel_venv.run("python", "-m", "uta_tasks").stdout.strip()
    listing = wheel_venv.run("python", "-m", "lm_eval", "ls", "tasks", "--include_path", folder).stdout
    assert TASK in listing
    assert "uta_ifbench_all" in listing


def test_uta_eval_lists_the_tasks_without_include_path(wheel_venv: WheelVenv) -> None:
    script = wheel_venv.bin / "uta-eval"
    assert script.is_file(), "the wheel's console script uta-eval was not installed"
    listing = wheel_venv.run(str(script), "ls", "tasks").stdout
    assert TASK in listing
    site = str(wheel_venv.site_packages.resolve())
    row = next(line for line in listing.splitlines() if f"|{TASK} " in line or f"| {TASK} " in line)
    assert site in row or str(wheel_venv.site_packages) in row, f"{TASK} listed from elsewhere: {row}"


def test_task_manager_sees_the_tasks(wheel_venv: WheelVenv) -> None:
    code = (
        "import uta_tasks, json; tm = uta_tasks.task_manager(); "
        f"print(json.dumps([{TASK!r} in tm.all_tasks, 'uta' in tm.all_tasks, 'uta_ifbench_all' in tm.all_tasks]))"
    )
    out = wheel_venv.run("python", "-c", code).stdout.strip().splitlines()[-1]
    assert json.loads(out) == [True, True, True]


def test_declared_dependencies_are_installed(wheel_venv: WheelVenv) -> None:
    """Every requirement in the wheel's metadata (no extras) is met in the environment."""
    code = r"""
import importlib.metadata as md, json
from packaging.requirements import Requirement
bad = []
for text in md.requires("uta-tasks") or []:
    req = Requirement(text)
    if req.marker is not None and not req.marker.evaluate({"extra": ""}):
        continue
    try:
        version = md.version(req.name)
    except md.PackageNotFoundError:
        bad.append(f"{req} (missing)")
        continue
    if not req.specifier.contains(version, prereleases=True):
        bad.append(f"{req} (found {version})")
print(json.dumps(bad))
"""
    out = wheel_venv.run("python", "-c", code).stdout.strip().splitlines()[-1]
    assert json.loads(out) == []
