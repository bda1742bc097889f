"""Open a file a command reads only when it is a regular file, and read it within a bound.

A run folder (or a calibration, retest or labels file) may hold anything a file name can
name: a named pipe (FIFO), a device (a link to ``/dev/zero`` or ``/dev/urandom``), a socket,
a folder, a symbolic link that loops, a disk that fails. :func:`open_regular` opens the path
without blocking (``O_NONBLOCK``: a FIFO without a writer does not wait), asks the opened
file what it is (``fstat``, so the answer is about the file that is read, not a name that
may change after a ``stat``), and refuses anything but a regular file at once. Symbolic
links are followed by the kernel, which reports a loop (``ELOOP``). :func:`read_bounded`
then reads at most one byte more than its bound, whatever size ``stat`` gives (a device
says 0 and never ends). Every refusal is an :class:`UnreadableFileError` (a
:class:`ValueError`, which every command reports as a bad input, exit 2) naming the file.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)

# st_mode test -> what the file is, for messages
_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class UnreadableFileError(ValueError):
    """A file that is not a regular file, or that cannot be opened or read; the message names it."""


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _named(path: Path) -> str:
    """The path, and where its links lead when they lead elsewhere (``os.path.realpath`` never
    raises on a loop)."""
    real = os.path.realpath(path)
    return f"{path} (a link to {real})" if os.path.islink(path) and real != str(path) else str(path)


def unreadable(path: Path, exc: OSError) -> UnreadableFileError:
    """The error for an :class:`OSError` met while opening or reading ``path``.

    Args:
        path: the file.
        exc: what the system said.
    """
    if exc.errno == errno.ELOOP:
        return UnreadableFileError(f"{path} is a symbolic link that loops (or links more than the system follows): "
                                   "point it at a file")
    return UnreadableFileError(f"{_named(path)} cannot be read ({exc.strerror or exc})")


def open_regular(path: Path) -> BinaryIO:
    """Open ``path`` for reading in binary, when it is a regular file (after its links).

    Args:
        path: the file.

    Raises:
        UnreadableFileError: it does not exist, loops, cannot be opened, or is a folder, FIFO,
            device or socket; the message names the file.
    """
    try:
        fd = os.open(path, _FLAGS)
    except OSError as exc:
        raise unreadable(path, exc) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise UnreadableFileError(f"{_named(path)} is {_kind(mode)}, not a regular file: "
                                      "give the file lm-eval or uta wrote")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bounded(path: Path, bound: int, what: str = "file") -> bytes:
    """The bytes of the regular file ``path``, at most ``bound`` of them.

    Args:
        path: the file.
        bound: the most bytes accepted; one more is read to tell.
        what: names the kind of file in the message of one too large.

    Raises:
        UnreadableFileError: as :func:`open_regular`, a read error, or more than ``bound`` bytes.
    """
    with open_regular(path) as handle:
        try:
            data = handle.read(bound + 1)
        except OSError as exc:
            raise unreadable(path, exc) from None
    if len(data) > bound:
        raise UnreadableFileError(f"{path} holds more than {bound:,} bytes, more than this reads as one {what}")
    return data
