"""JSON in and out: lm-eval writes bare ``NaN``; everything this package writes is strict JSON.

Every JSON a command reads from a run folder goes through :func:`loads` (and so
:func:`read_json` and :func:`read_jsonl`), which bounds what it accepts:

- at most :data:`MAX_DEPTH` levels of nesting (lm-eval's files need fewer than 10);
- at most :data:`MAX_BYTES` bytes in one file (:func:`read_json`) or one line
  (:func:`read_jsonl`; decompressed, and at most :data:`MAX_GZIP_BYTES` in all, for a
  gzipped file);
- only regular files, read up to the bound whatever ``stat`` says
  (:mod:`uta_tasks.runs.regular_file`): a FIFO, device, socket, folder or looping link is
  refused at once;
- integers within a float's range (about 309 digits): every number a run holds is read as one.

Anything beyond is refused with a :class:`ValueError` naming the file and line, which every
command reports as a bad input (exit 2), never a traceback.
"""

from __future__ import annotations

import gzip
import json
import logging
import math
import os
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from uta_tasks.runs.atomic import write_text  # the one place run files are written (atomic)
from uta_tasks.runs.regular_file import UnreadableFileError, open_regular, unreadable

log = logging.getLogger(__name__)


MAX_DEPTH = 100
MAX_BYTES = 512 * 2**20
MAX_GZIP_BYTES = 8 * 2**30  # decompressed, one gzipped samples file
_LARGEST_FLOAT = int(sys.float_info.max)


def loads(text: str | bytes, where: str, hint: str = "") -> Any:
    """Decode one JSON document within the bounds above.

    Args:
        text: the JSON text (bytes are decoded as UTF-8).
        where: names it in messages (``path`` or ``path:line``).
        hint: appended to the message of text that is not JSON.

    Raises:
        ValueError: not JSON, or beyond a bound; the message names ``where``, and the line
            of a multi-line text where it is nested too deeply.
    """
    if len(text) > MAX_BYTES:
        raise ValueError(f"{where} holds {len(text):,} bytes of JSON, more than the {MAX_BYTES:,} this reads")
    try:
        value = json.loads(text, parse_int=_checked_int)
        shallow = _brackets(text) <= MAX_DEPTH or _within_depth(value)
    except RecursionError:  # json's C scanner stops at the interpreter's recursion limit
        shallow = False
    except ValueError as exc:  # JSONDecodeError, and an integer beyond Python's digit limit
        raise ValueError(f"{where} is not valid JSON ({exc}){hint}") from None
    if not shallow:
        raise ValueError(f"{where}{_deep_line(text)} nests JSON more than {MAX_DEPTH} levels deep, more than a "
                         "run file holds: this file was not written by lm-eval or uta")
    return value


def _brackets(text: str | bytes) -> int:
    """How many ``[`` and ``{`` the text holds, strings included: a bound on its nesting that
    spares most texts the walk of :func:`_within_depth`."""
    if isinstance(text, bytes):
        return text.count(b"[") + text.count(b"{")
    return text.count("[") + text.count("{")


def _within_depth(value: Any) -> bool:
    """True when ``value`` nests at most :data:`MAX_DEPTH` containers (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if not isinstance(item, (dict, list)):
            continue
        if depth > MAX_DEPTH:
            return False
        for child in item.values() if isinstance(item, dict) else item:
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1))
    return True


def _checked_int(digits: str) -> int:
    """A JSON integer, refused beyond what a float holds (every number a run holds is read as one).

    Raises:
        ValueError: it is longer.
    """
    value = int(digits)
    if len(digits) > 300 and abs(value) > _LARGEST_FLOAT:
        raise ValueError(f"a number of {len(digits.lstrip('-')):,} digits, beyond what a run file's numbers hold")
    return value


def _deep_line(text: str | bytes) -> str:
    """``, line N``: where the nesting first passes :data:`MAX_DEPTH` (strings skipped); ``""`` for one line."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if b"\n" not in data.strip():
        return ""
    depth, line, in_string, escaped = 0, 1, False, False
    for byte in data:
        if in_string:
            escaped, in_string = (False, True) if escaped else (byte == 0x5C, byte != 0x22)
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            if depth > MAX_DEPTH:
                return f", line {line},"
        elif byte in (0x5D, 0x7D):
            depth -= 1
        if byte == 0x0A:
            line += 1
    return ""


def read_json(path: Path) -> Any:
    """Read a JSON file that may contain bare ``NaN`` or ``Infinity`` (lm-eval's results).

    Args:
        path: the file; only a regular file is read (:mod:`.regular_file`), at most
            :data:`MAX_BYTES` of it.

    Raises:
        ValueError: not a regular file, unreadable, not JSON or beyond the bounds of
            :func:`loads` (the message names the file).
    """
    with open_regular(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > MAX_BYTES:
            raise UnreadableFileError(f"{path} holds {size:,} bytes, more than the {MAX_BYTES:,} this reads as one "
                                      "JSON file")
        try:
            data = handle.read(MAX_BYTES + 1)
        except OSError as exc:
            raise unreadable(path, exc) from None
    if len(data) > MAX_BYTES:  # it grew while being read
        raise UnreadableFileError(f"{path} holds more than the {MAX_BYTES:,} bytes this reads as one JSON file")
    return loads(data.decode("utf-8", "replace"), str(path), "; is the run still being written?")


def read_jsonl(path: Path) -> Iterator[tuple[str, Any]]:
    """Each non-blank line of a JSON Lines file, decoded, with ``path:line`` for messages.

    Args:
        path: the file: ``.jsonl``, a ``.json`` that holds one JSON value per line (older
            lm-eval samples files), or either gzipped (a name ending in ``.gz``). Only a regular
            file is read (:mod:`.regular_file`); a gzipped file's bound applies to its
            decompressed lines.

    Bytes that are not UTF-8 become U+FFFD (logged with file and line), and the rest of
    the line is kept; lone surrogates written as JSON escapes (``"\\ud800"``) are kept as
    they are (:mod:`.atomic` writes them back as the same escape).

    Raises:
        ValueError: not a regular file, a read error, a damaged gzip stream, or a line that
            is not valid JSON or is beyond the bounds of :func:`loads`; the message names the
            file, the first such line and how many lines are bad.
    """
    bad: list[str] = []
    zipped = path.name.endswith(".gz")
    with open_regular(path) as raw_handle:
        handle: BinaryIO | gzip.GzipFile = gzip.GzipFile(fileobj=raw_handle, mode="rb") if zipped else raw_handle
        read = 0
        for number, raw in enumerate(iter(lambda: _readline(handle, path), b""), start=1):
            where = f"{path}:{number}"
            read += len(raw)
            if zipped and read > MAX_GZIP_BYTES:
                raise UnreadableFileError(f"{path} decompresses to more than {MAX_GZIP_BYTES:,} bytes, more than "
                                          "this reads from one gzipped file")
            if len(raw) > MAX_BYTES:
                bad.append(f"{where} is longer than {MAX_BYTES:,} bytes")
                if zipped:  # the rest of a gzipped line may be many times the file: stop here
                    break
                while raw and not raw.endswith(b"\n"):
                    raw = _readline(handle, path)
                continue
            if not raw.strip():
                continue
            try:
                row = loads(_decoded(raw, where), where)
            except ValueError as exc:
                bad.append(str(exc))
                continue
            if not bad:
                yield where, row
    if bad:
        more = f" ({len(bad)} bad lines in all)" if len(bad) > 1 else ""
        raise ValueError(f"{bad[0]}{more}")


def _readline(handle: BinaryIO | gzip.GzipFile, path: Path) -> bytes:
    """One line, cut at :data:`MAX_BYTES` + 1 bytes (the rest of a longer line comes as the next ones)."""
    try:
        return handle.readline(MAX_BYTES + 1)
    except OSError as exc:  # a read error, and gzip.BadGzipFile
        raise unreadable(path, exc) from None
    except (EOFError, zlib.error) as exc:  # a gzip stream cut short or damaged
        raise UnreadableFileError(f"{path} is not a whole gzip file ({exc})") from None


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
