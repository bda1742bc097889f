"""Every output file is written whole or not at all, and any text survives being written.

- :func:`write_text` writes to a temporary file in the destination's folder, flushes it to
  disk and renames it over the destination: a run that fails half-way (or is killed)
  leaves the previous report, summary or export untouched, never a truncated file.
- Text is UTF-8. A model's output may hold code points UTF-8 cannot carry (lone
  surrogates such as ``"\\ud800"``, which a JSON escape produces): they are written as
  the backslash escape ``\\ud800`` (``errors="backslashreplace"``). In a JSON string that
  is the same JSON escape, so the text reads back exactly; in HTML, Markdown, SVG and XML
  it is visible, inert text. Nothing is dropped and nothing raises.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

ENCODING = "utf-8"
ERRORS = "backslashreplace"
NEW_FILE_MODE = 0o644


def encode(text: str) -> bytes:
    """Text as written to every output file: UTF-8, lone surrogates as ``\\udXXX`` escapes.

    Args:
        text: any Python string.
    """
    return text.encode(ENCODING, ERRORS)


def write_bytes(path: Path | str, data: bytes | Iterable[bytes]) -> Path:
    """Write ``data`` to ``path`` atomically (temporary file in the same folder, then rename).

    Args:
        path: the destination (its folder is created).
        data: the whole content, or its pieces in order (written as they come: a file
            larger than memory).

    Returns:
        The path written.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            for piece in [data] if isinstance(data, bytes) else data:
                stream.write(piece)
            stream.flush()
            os.fsync(stream.fileno())
        with contextlib.suppress(OSError):  # keep the mode an earlier file had (mkstemp's is 0600)
            os.chmod(temporary, path.stat().st_mode & 0o777 if path.exists() else NEW_FILE_MODE)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return path


def write_text(path: Path | str, text: str | Iterable[str]) -> Path:
    """:func:`write_bytes` of ``text`` encoded by :func:`encode`; returns ``path``.

    Args:
        path: as for :func:`write_bytes`.
        text: the whole content, or its pieces in order (a samples file written a line at a time).
    """
    return write_bytes(path, encode(text) if isinstance(text, str) else (encode(piece) for piece in text))
