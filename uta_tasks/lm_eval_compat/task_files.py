"""The tasks that ship with lm-eval, read as lm-eval reads them: a task's folder, its YAML
(lm-eval's loader) and its Python module (the reference scorer code)."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any


def load_task_yaml(path: Path) -> dict[str, Any]:
    """Parse the lm-eval task YAML file ``path`` with lm-eval's own loader."""
    from lm_eval.tasks._yaml_loader import load_yaml

    return load_yaml(path)


def builtin_task_dir(name: str) -> Path:
    """The folder ``lm_eval/tasks/<name>`` of a task that ships with lm-eval."""
    import lm_eval

    return Path(lm_eval.__file__).parent / "tasks" / name


def builtin_task_module(name: str) -> Any:
    """A module of a task that ships with lm-eval (its reference scorer code), e.g.
    ``ifeval.utils`` is ``lm_eval.tasks.ifeval.utils``.

    Args:
        name: the dotted path below ``lm_eval.tasks``.
    """
    return importlib.import_module(f"lm_eval.tasks.{name}")
