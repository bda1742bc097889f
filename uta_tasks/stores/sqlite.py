"""The one connection, transaction and WAL policy of the project's sqlite files.

Three stores use it: the judge's verdict cache (:mod:`uta_tasks.judge.cache`), the batch
state kept in the same file (:mod:`uta_tasks.apps.batch.store`), and the annotation
database (:mod:`uta_tasks.apps.annotate.db`). Each is a :class:`SqliteStore` and keeps only
its tables and queries.

The policy:

- **Connection**: one per store object, used from one thread (open one per thread);
  parent folders are created; a busy timeout (the store's own) makes a writer wait for
  another's lock instead of failing at once.
- **WAL journal**: readers never block the writer, and several threads or processes can
  write one file. WAL needs memory shared between the writers, which network file systems
  do not give across hosts (the judge's preflight warns about those).
- **Autocommit, and explicit transactions**: a single statement commits by itself (a
  verdict is on disk as soon as it is written, so killing a run loses only what is in
  flight); several statements that must hold together run in :meth:`SqliteStore.transaction`,
  which takes the write lock first (``BEGIN IMMEDIATE``), so a read-then-write never
  loses a concurrent change, and rolls back on any error.
- **Durability**: ``synchronous=FULL`` by default; ``durable=False`` (the verdict cache,
  where a verdict lost to a power cut is only asked again) uses ``NORMAL``, which in WAL
  mode never corrupts the file.

Why not ``diskcache``: it fits none of the three. It stores pickled values in its own
table, so last round's cache files (the ``verdicts`` table, JSON verdicts) could not be
read, and unpickling a shared cache file runs whatever code it holds. Its default size
limit evicts entries, and a paid verdict must never be dropped silently. The batch state
claims keys for a batch and the annotation database reads and rewrites an answer; both need
several tables changed in one transaction and queries by column (a chunk's keys, an
annotator's answers), which a key-value cache does not offer.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

IN_CHUNK = 500  # keys per "IN (...)" query: well under sqlite's limit on bound parameters
_Store = TypeVar("_Store", bound="SqliteStore")


class SqliteStore:
    """One connection to a sqlite file under the project's policy (see the module's docstring); a context manager.

    Args:
        path: The file (created, with its parent folders, if missing).
        schema: ``CREATE ... IF NOT EXISTS`` statements run at every open.
        busy_timeout: Seconds to wait for another writer's lock.
        durable: ``synchronous=FULL`` (default); False for ``NORMAL``.

    Raises:
        OSError: The folder cannot be made.
        sqlite3.Error: The file cannot be opened or its schema written.
    """

    def __init__(self, path: str | Path, schema: Sequence[str], busy_timeout: float, durable: bool = True) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(str(self.path), timeout=busy_timeout, isolation_level=None)
        try:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
            for statement in schema:
                self._conn.execute(statement)
        except sqlite3.Error:
            self._conn.close()
            raise

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``, rolled back when the block (or the commit) raises."""
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield self._conn
            self._conn.execute("COMMIT")
        except BaseException:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise

    def rows_for_keys(self, query: str, keys: Iterable[str]) -> list[Any]:
        """The rows of ``query`` (ending in ``IN ({marks})``) for each distinct key, in chunks.

        Args:
            query: e.g. ``"SELECT key, verdict FROM verdicts WHERE key IN ({marks})"``.
            keys: The keys to bind.
        """
        wanted = list(dict.fromkeys(keys))
        rows: list[Any] = []
        for start in range(0, len(wanted), IN_CHUNK):
            chunk = wanted[start : start + IN_CHUNK]
            rows.extend(self._conn.execute(query.format(marks=",".join("?" * len(chunk))), chunk).fetchall())
        return rows

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()

    def __enter__(self: _Store) -> _Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
