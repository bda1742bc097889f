"""lm-eval's own task folder, indexed once per test session.

Every ``TaskManager`` (one per ``simple_evaluate`` in the tests) walks lm-eval's installed
task folder and parses its thousands of YAML files again: about 8 s of CPU each time, the
largest share of the fast suite. That folder does not change during a run, so the session
keeps the index of it and hands each ``TaskManager`` a copy; every other folder (the uta
tasks, a test's own tasks) is indexed each time as before. The merge is lm-eval's own:
folders in order, a later one overriding an earlier one with the same warning.

Applies to lm-eval versions whose index is ``lm_eval.tasks._index.TaskIndex.build``
(0.4.13); with another version nothing is changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


@contextmanager
def lm_eval_tasks_indexed_once() -> Iterator[None]:
    """Within the block, lm-eval's own task folder is indexed at most once per ``resolve_includes``."""
    try:
        import lm_eval.tasks
        from lm_eval.tasks import _index
    except ImportError:  # no lm-eval here, or one without this index
        yield
        return
    index_class = getattr(_index, "TaskIndex", None)
    if index_class is None or not isinstance(index_class.__dict__.get("build"), staticmethod):
        yield
        return
    original: Callable[..., dict[str, Any]] = index_class.build
    own_folder = Path(lm_eval.tasks.__file__).resolve().parent
    indexed: dict[bool, dict[str, Any]] = {}

    def build(paths: Iterable[Path], *, resolve_includes: bool = True) -> dict[str, Any]:
        paths = list(paths)
        if not any(Path(p).resolve() == own_folder for p in paths):
            return original(paths, resolve_includes=resolve_includes)
        index: dict[str, Any] = {}
        for root in paths:
            if Path(root).resolve() == own_folder:
                if resolve_includes not in indexed:
                    indexed[resolve_includes] = original([root], resolve_includes=resolve_includes)
                part = indexed[resolve_includes]
            else:
                part = original([root], resolve_includes=resolve_includes)
            for name, entry in part.items():
                if name in index:
                    _index.log.warning("Task '%s' from %s overrides existing task from %s",
                                       name, entry.yaml_path, index[name].yaml_path)
                index[name] = entry
        return index

    index_class.build = staticmethod(build)
    try:
        yield
    finally:
        index_class.build = staticmethod(original)
