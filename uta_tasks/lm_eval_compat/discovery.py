"""How lm-eval finds tasks: its ``TaskManager``, the folders every one of them indexes, and
whether the installed lm-eval reads the ``lm_eval.tasks`` entry points."""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .patching import wrap_once
from .version import ENTRY_POINT_GROUP


def task_manager_class() -> type:
    """``lm_eval.tasks.TaskManager``."""
    return importlib.import_module("lm_eval.tasks").TaskManager


@functools.lru_cache(maxsize=1)
def reads_task_entry_points() -> bool:
    """Whether the installed lm-eval discovers task folders through the ``lm_eval.tasks``
    entry point group (upstream PR #4015); neither 0.4.13 nor 0.5.0.dev1 does."""
    source = inspect.getsource(importlib.import_module("lm_eval.tasks.manager"))
    return ENTRY_POINT_GROUP in source and "entry_points" in source


def add_include_path(path: Path) -> None:
    """Make every ``TaskManager`` of this process also index ``path`` (for ``uta-eval``).

    Wraps ``TaskManager.__init__``'s ``include_path`` once; each call adds one more folder
    (idempotent per folder); a path already given is not added twice.

    Args:
        path: a task folder.
    """
    def wrap(original: Callable[..., Any], signature: inspect.Signature, added: list[Any]) -> Callable[..., Any]:
        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            bound = signature.bind(self, *args, **kwargs)
            given = bound.arguments.get("include_path")
            paths = [] if given is None else (list(given) if isinstance(given, (list, tuple)) else [given])
            for extra in added:
                if not any(Path(p).resolve() == extra.resolve() for p in paths):
                    paths.append(extra)
            bound.arguments["include_path"] = paths
            original(*bound.args, **bound.kwargs)
        return __init__

    wrap_once(task_manager_class(), "__init__", path, wrap)
