"""What a run's files held when a summary was made of them: each file's size, modification
time and SHA-256, recorded in ``summary.json`` under ``sources``.

A summary is current only when the run folder holds the same results and samples files,
each with the same size and digest (:func:`stale_reason`). The digest decides, not the
time: a copy (a CI artifact, ``cp -p``, ``rsync -t``, ``touch``) changes or keeps a file's
time whatever happened to its bytes, and an edit that keeps the size is still an edit. The
time is recorded to say, in the message, when the file changed. Hashing reads each byte
once, several times faster than decoding the JSON it holds (``docs/dev/gate.md``).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from uta_tasks.runs.folder import RunFiles
from uta_tasks.runs.regular_file import open_regular, unreadable

_CHUNK = 2**20


def file_fingerprint(path: Path) -> dict[str, Any]:
    """``{"size", "mtime_ns", "sha256"}`` of a regular file (:func:`open_regular` refuses others).

    Args:
        path: the file.

    Raises:
        UnreadableFileError: not a regular file, or a read error (the message names it).
    """
    digest = hashlib.sha256()
    with open_regular(path) as handle:
        status = os.fstat(handle.fileno())
        try:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
        except OSError as exc:
            raise unreadable(path, exc) from None
    return {"size": status.st_size, "mtime_ns": status.st_mtime_ns, "sha256": digest.hexdigest()}


def run_sources(files: RunFiles) -> dict[str, dict[str, Any]]:
    """File name -> fingerprint, for the run's results file and every samples file.

    Args:
        files: the run's files as found now.
    """
    paths = [files.results, *files.samples.values()]
    return {path.name: file_fingerprint(path) for path in paths}


def stale_reason(recorded: Any, files: RunFiles) -> str | None:
    """Why a summary that recorded ``recorded`` does not describe the files the run holds now,
    or None when it does.

    Args:
        recorded: the summary's ``sources`` (anything: an older summary has none).
        files: the run's files as found now.

    Raises:
        UnreadableFileError: a file of the run cannot be read.
    """
    if not isinstance(recorded, Mapping) or not recorded:
        return "it records no fingerprint of the files it was made from (written by an older uta-tasks)"
    paths = {p.name: p for p in (files.results, *files.samples.values())}
    added = sorted(set(paths) - set(recorded))
    if added:
        return f"{', '.join(added)} appeared after it was written"
    removed = sorted(set(recorded) - set(paths))
    if removed:
        return f"{', '.join(removed)} no longer exist{'s' if len(removed) == 1 else ''}"
    for name, path in paths.items():
        was, now = recorded[name], file_fingerprint(path)
        if _get(was, "size") != now["size"]:
            return f"{name} changed size ({_get(was, 'size')} -> {now['size']} bytes)"
        if _get(was, "sha256") != now["sha256"]:
            return f"{name} changed content (same size, different SHA-256; modified {_when(was)} -> {_when(now)})"
    return None


def _get(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, Mapping) else None


def _when(fingerprint: Any) -> str:
    ns = _get(fingerprint, "mtime_ns")
    return f"mtime_ns {ns}" if isinstance(ns, int) else "unknown"
