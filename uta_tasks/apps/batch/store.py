"""Batch state in the verdict cache's sqlite file, so a stopped run resumes its batches.

Two tables beside ``verdicts`` (owned by :mod:`uta_tasks.judge.cache`):

``batch_chunks``, one row per input file, moving through
``prepared`` (its requests are claimed; nothing sent yet) -> ``uploaded`` (the file id is
known) -> ``submitted`` (the batch id is known) -> ``collected`` (terminal, results
processed). ``batch_requests``, one row per request (cache key, PRIMARY KEY): the chunk
that holds it, ``submitted``, ``done`` (its verdict is in the cache) or ``failed`` (with
the reason; the caller falls back to live calls).

A key is claimed once, ever: a claimed key is never put into another batch. The only
state from which a batch may exist without its id being recorded is ``uploaded``
(killed between ``batches.create`` and the write); the caller then looks the batch up by
its ``uta_chunk`` metadata before creating anything. A ``prepared`` chunk has no file id,
so no batch can exist for it; it is discarded on resume and its keys claimed again.

Connection, WAL and transactions: :mod:`uta_tasks.stores.sqlite`.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from uta_tasks.judge.errors import JudgeConfigError
from uta_tasks.stores.sqlite import SqliteStore

_SCHEMA = (
    """
    CREATE TABLE IF NOT EXISTS batch_chunks (
        chunk_id TEXT PRIMARY KEY,
        state TEXT NOT NULL,
        base_url TEXT NOT NULL,
        judge_model TEXT NOT NULL,
        n_requests INTEGER NOT NULL,
        n_bytes INTEGER NOT NULL,
        input_file_id TEXT,
        batch_id TEXT,
        batch_status TEXT,
        counts TEXT,
        created REAL NOT NULL,
        updated REAL NOT NULL
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS batch_requests (
        key TEXT PRIMARY KEY,
        chunk_id TEXT NOT NULL,
        state TEXT NOT NULL,
        reason TEXT
    )
    """,
    "CREATE INDEX IF NOT EXISTS batch_requests_chunk ON batch_requests (chunk_id)",
)
_BUSY_TIMEOUT_S = 60.0
PREPARED, UPLOADED, SUBMITTED, COLLECTED = "prepared", "uploaded", "submitted", "collected"
REQ_SUBMITTED, REQ_DONE, REQ_FAILED = "submitted", "done", "failed"


@dataclass(frozen=True)
class ChunkRow:
    """One batch input file and what is known of its batch.

    Attributes:
        chunk_id: Local id, also the batch's ``uta_chunk`` metadata.
        state: ``prepared``, ``uploaded``, ``submitted`` or ``collected``.
        base_url: Endpoint it was sent to.
        n_requests: Requests in the file.
        input_file_id: Uploaded file id, once known.
        batch_id: Batch id, once known.
        batch_status: Last status seen (``validating``, ``in_progress``, ``completed`` ...).
        counts: Last ``request_counts`` seen (``total``, ``completed``, ``failed``).
        created: Epoch seconds when the chunk was made.
    """

    chunk_id: str
    state: str
    base_url: str
    n_requests: int
    input_file_id: str | None
    batch_id: str | None
    batch_status: str | None
    counts: dict[str, int]
    created: float


class BatchStore(SqliteStore):
    """One connection to the batch tables of a cache file (one thread).

    Args:
        path: The ``judge_cache`` sqlite file.
    """

    def __init__(self, path: str | Path) -> None:
        try:
            super().__init__(path, _SCHEMA, _BUSY_TIMEOUT_S)
        except (OSError, sqlite3.Error) as exc:
            raise JudgeConfigError(
                f"judge_cache={str(path)!r} cannot hold the batch state ({exc}): point judge_cache to a "
                "writable file"
            ) from exc

    def claims(self, keys: Iterable[str]) -> dict[str, tuple[str, str, str | None]]:
        """Keys already put into a batch: key -> (chunk_id, state, reason).

        Args:
            keys: Cache keys to look up.
        """
        rows = self.rows_for_keys("SELECT key, chunk_id, state, reason FROM batch_requests WHERE key IN ({marks})", keys)
        return {key: (chunk_id, state, reason) for key, chunk_id, state, reason in rows}

    def add_chunk(self, chunk_id: str, keys: list[str], n_bytes: int, base_url: str, judge_model: str) -> None:
        """Claim ``keys`` for a new chunk in one transaction.

        Args:
            chunk_id: The chunk's id.
            keys: Its requests' cache keys (none may be claimed already).
            n_bytes: Size of its input file.
            base_url: Endpoint.
            judge_model: Judge model.

        Raises:
            sqlite3.IntegrityError: A key is claimed already (nothing is written then).
        """
        now = time.time()
        with self.transaction():
            self._conn.execute(
                "INSERT INTO batch_chunks VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, NULL, '{}', ?, ?)",
                (chunk_id, PREPARED, base_url, judge_model, len(keys), n_bytes, now, now),
            )
            self._conn.executemany(
                "INSERT INTO batch_requests VALUES (?, ?, ?, NULL)", [(key, chunk_id, REQ_SUBMITTED) for key in keys]
            )

    def set_uploaded(self, chunk_id: str, file_id: str) -> None:
        """Record the uploaded input file.

        Args:
            chunk_id: The chunk.
            file_id: Its file id.
        """
        self._update(chunk_id, state=UPLOADED, input_file_id=file_id)

    def set_submitted(self, chunk_id: str, batch_id: str, status: str) -> None:
        """Record the created batch.

        Args:
            chunk_id: The chunk.
            batch_id: The batch id.
            status: Its status.
        """
        self._update(chunk_id, state=SUBMITTED, batch_id=batch_id, batch_status=status)

    def set_status(self, chunk_id: str, status: str, counts: dict[str, int]) -> None:
        """Record the last status seen.

        Args:
            chunk_id: The chunk.
            status: Batch status.
            counts: Its request counts.
        """
        self._update(chunk_id, batch_status=status, counts=json.dumps(counts))

    def set_collected(self, chunk_id: str) -> None:
        """Mark a chunk's results as processed.

        Args:
            chunk_id: The chunk.
        """
        self._update(chunk_id, state=COLLECTED)

    def mark_requests(self, done: Iterable[str], failed: dict[str, str]) -> None:
        """Record the outcome of requests in one transaction.

        Args:
            done: Keys whose verdict is in the cache.
            failed: Key -> reason, for requests without a valid verdict.
        """
        with self.transaction():
            self._conn.executemany(
                "UPDATE batch_requests SET state = ?, reason = NULL WHERE key = ?", [(REQ_DONE, key) for key in done]
            )
            self._conn.executemany(
                "UPDATE batch_requests SET state = ?, reason = ? WHERE key = ?",
                [(REQ_FAILED, reason, key) for key, reason in failed.items()],
            )

    def chunk_keys(self, chunk_id: str, state: str | None = None) -> list[str]:
        """Keys of a chunk (optionally only those in ``state``).

        Args:
            chunk_id: The chunk.
            state: ``submitted``, ``done`` or ``failed``; None for all.
        """
        query = "SELECT key FROM batch_requests WHERE chunk_id = ?"
        args: tuple[str, ...] = (chunk_id,)
        if state is not None:
            query += " AND state = ?"
            args += (state,)
        return [row[0] for row in self._conn.execute(query + " ORDER BY rowid", args)]

    def chunks(self, states: Iterable[str] | None = None) -> list[ChunkRow]:
        """Chunks, oldest first (optionally only those in ``states``).

        Args:
            states: Chunk states to keep; None for all.
        """
        rows = self._conn.execute(
            "SELECT chunk_id, state, base_url, n_requests, input_file_id, batch_id, batch_status, counts, created "
            "FROM batch_chunks ORDER BY created, rowid"
        ).fetchall()
        wanted = None if states is None else set(states)
        return [
            ChunkRow(row[0], row[1], row[2], row[3], row[4], row[5], row[6], json.loads(row[7] or "{}"), row[8])
            for row in rows
            if wanted is None or row[1] in wanted
        ]

    def discard_prepared(self) -> int:
        """Drop chunks that never got a file id (no batch can exist for them); free their keys.

        Returns:
            Number of keys freed.
        """
        with self.transaction():
            rows = self._conn.execute("SELECT chunk_id FROM batch_chunks WHERE state = ?", (PREPARED,))
            ids = [row[0] for row in rows]
            freed = 0
            for chunk_id in ids:
                freed += self._conn.execute("DELETE FROM batch_requests WHERE chunk_id = ?", (chunk_id,)).rowcount
                self._conn.execute("DELETE FROM batch_chunks WHERE chunk_id = ?", (chunk_id,))
        return freed

    def _update(self, chunk_id: str, **values: object) -> None:
        names = ", ".join(f"{name} = ?" for name in values)
        self._conn.execute(
            f"UPDATE batch_chunks SET {names}, updated = ? WHERE chunk_id = ?",
            (*values.values(), time.time(), chunk_id),
        )
