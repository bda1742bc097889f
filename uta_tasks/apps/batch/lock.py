"""One batch run per cache file at a time (an exclusive ``flock`` beside the file).

Two runs on the same cache could otherwise both see a chunk as unsent and submit it
twice. The lock is released by the kernel when the process dies, so a killed run never
blocks the next one.
"""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator
from pathlib import Path

from uta_tasks.judge.errors import JudgeConfigError


@contextlib.contextmanager
def exclusive(cache_path: str | Path) -> Iterator[None]:
    """Hold ``<cache>.batch-lock`` for the duration of the block.

    Args:
        cache_path: The ``judge_cache`` file.

    Raises:
        JudgeConfigError: Another process holds the lock.
    """
    path = Path(f"{cache_path}.batch-lock")
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise JudgeConfigError(
                f"judge_cache={str(cache_path)!r} is in use by another batch run (lock {path}): wait for it to "
                "finish, or stop it; a stopped run resumes where it left off"
            ) from None
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
