"""The progress line of a batch run, on stderr (rewritten in place on a terminal)."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from typing import TextIO

from .store import ChunkRow


class Progress:
    """Writes one line per poll (only when something changed, unless on a terminal).

    Args:
        stream: Where to write (None: nowhere).
    """

    def __init__(self, stream: TextIO | None) -> None:
        self._stream = stream
        self._start = time.monotonic()
        self._last = ""
        self._tty = bool(stream is not None and getattr(stream, "isatty", lambda: False)())

    def say(self, text: str) -> None:
        """Write a message on its own line.

        Args:
            text: The message.
        """
        if self._stream is None:
            return
        if self._tty and self._last:
            self._stream.write("\n")
        self._stream.write(f"uta-batch: {text}\n")
        self._stream.flush()
        self._last = ""

    def update(self, chunks: Sequence[ChunkRow]) -> None:
        """Show the state of the batches being waited on.

        Args:
            chunks: Their last known rows.
        """
        if self._stream is None or not chunks:
            return
        line = describe(chunks)
        if line == self._last and not self._tty:
            return
        self._last = line
        elapsed = int(time.monotonic() - self._start)
        text = f"uta-batch: {line} | {elapsed // 60}m{elapsed % 60:02d}s"
        self._stream.write(("\r" + text + "\x1b[K") if self._tty else text + "\n")
        self._stream.flush()

    def finish(self) -> None:
        """End an in-place line."""
        if self._stream is not None and self._tty and self._last:
            self._stream.write("\n")
            self._stream.flush()
        self._last = ""


def describe(chunks: Sequence[ChunkRow]) -> str:
    """``3 batches (completed 1, in_progress 2) | requests 120/300 done, 2 failed``.

    Args:
        chunks: The batches' rows.
    """
    statuses = Counter(chunk.batch_status or chunk.state for chunk in chunks)
    total = sum(chunk.counts.get("total") or chunk.n_requests for chunk in chunks)
    done = sum(chunk.counts.get("completed", 0) for chunk in chunks)
    failed = sum(chunk.counts.get("failed", 0) for chunk in chunks)
    parts = ", ".join(f"{status} {count}" for status, count in sorted(statuses.items()))
    plural = "es" if len(chunks) != 1 else ""
    return f"{len(chunks)} batch{plural} ({parts}) | requests {done}/{total} done, {failed} failed"
