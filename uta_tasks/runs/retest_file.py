"""The judge test-retest file, ``retest.json`` (schema ``uta-retest/1``): written by
``uta-rejudge --retest K`` (:mod:`uta_tasks.apps.rejudge.retest`), read here for
``uta-report --retest`` and ``uta-gate --retest``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from uta_tasks.runs.jsonio import MAX_BYTES
from uta_tasks.runs.regular_file import read_bounded

SCHEMA = "uta-retest/1"
FILE_NAME = "retest.json"


def read_retest(path: str | Path) -> dict[str, Any]:
    """Read ``retest.json``; returns task -> its measures (the dicts that ``uta-rejudge --retest`` wrote per task).

    Args:
        path: the file (or the folder holding it).

    Raises:
        ValueError: unreadable or not a retest file.
    """
    p = Path(path).expanduser()
    p = p / FILE_NAME if p.is_dir() else p
    try:
        data = json.loads(read_bounded(p, MAX_BYTES, "retest file").decode("utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read the retest file {p} ({exc}): write it with uta-rejudge --retest K") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise ValueError(f"{p} is not a retest file (schema {SCHEMA}): write it with uta-rejudge --retest K")
    return dict(data["tasks"])


def spread_of(retest_tasks: dict[str, Any], tasks: Sequence[str]) -> float | None:
    """The largest judge spread among ``tasks`` (None when the retest measured none of them).

    Args:
        retest_tasks: from :func:`read_retest`.
        tasks: task names (a group's members).
    """
    found = [retest_tasks[t]["spread"] for t in tasks if t in retest_tasks and retest_tasks[t]["spread"] is not None]
    return max(found) if found else None
