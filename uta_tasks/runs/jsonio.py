"""JSON in and out: lm-eval writes bare ``NaN``; everything this package writes is strict JSON."""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from uta_tasks.runs.atomic import write_text  # the one place run files are written (atomic)

log = logging.getLogger(__name__)


def read_json(path: Path) -> Any:
    """Read a JSON file that may contain bare ``NaN`` or ``Infinity`` (lm-eval's results).

    Args:
        path: the file.
    """
    try:
        return json.loads(path.read_bytes().decode("utf-8", "replace"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not valid JSON ({exc}); is the run still being written?") from None


def read_jsonl(path: Path) -> Iterator[tuple[str, Any]]:
    """Each non-blank line of a JSON Lines file, decoded, with ``path:line`` for messages.

    Args:
        path: the file.

    Bytes that are not UTF-8 become U+FFFD (logged with file and line), and the rest of
    the line is kept; lone surrogates written as JSON escapes (``"\\ud800"``) are kept as
    they are (:mod:`.atomic` writes them back as the same escape).

    Raises:
        ValueError: a line is not valid JSON (the message names file and line).
    """
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            where = f"{path}:{number}"
            line = _decoded(raw, where)
            try:
                row = json.loads(line)
            except ValueError as exc:
                raise ValueError(f"{where} is not valid JSON ({exc})") from None
            yield where, row


def _decoded(raw: bytes, where: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        log.warning("%s holds bytes that are not UTF-8 (%s): read as U+FFFD", where, exc.reason)
        return raw.decode("utf-8", "replace")


def strict(value: Any) -> Any:
    """A copy of ``value`` where every non-finite float is None (JSON ``null``).

    Args:
        value: JSON-like data (dicts, lists, tuples, scalars).
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): strict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict(v) for v in value]
    return value


def dumps_strict(value: Any, indent: int | None = 2) -> str:
    """Serialise as strict JSON (NaN and infinities become ``null``).

    Args:
        value: JSON-like data.
        indent: passed to ``json.dumps``.
    """
    return json.dumps(strict(value), indent=indent, ensure_ascii=False, allow_nan=False, default=str)


def write_json(path: Path, value: Any) -> Path:
    """Write strict JSON to ``path`` atomically (parents created; see :mod:`.atomic`).

    Args:
        path: destination file.
        value: JSON-like data.
    """
    return write_text(path, dumps_strict(value) + "\n")
