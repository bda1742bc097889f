"""Use the verdict cache during a run without ever letting it abort the run.

The judge calls of a run are paid for, and the generation before them too, so a cache
that cannot be opened, read or written (locked by another process past the busy
timeout, a full disk, a read-only or NFS file system) costs only the cache:

- the first failure logs one warning naming ``judge_cache`` and the error; from then on
  the run stops touching the file (each further attempt could wait the whole busy
  timeout) and keeps every verdict in memory;
- the run finishes normally; verdicts that should have been written are counted in
  :attr:`JudgeRun.not_persisted <uta_tasks.judge.records.JudgeRun>` and a last warning
  says how many, so the user knows the next run pays for them again.

:func:`uta_tasks.judge.preflight` checks before generation that the file is writable.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

from .cache import VerdictCache

log = logging.getLogger(__name__)

# sqlite3.Error, OSError and JudgeConfigError are the expected faults; anything else the
# cache raises is treated the same way: the cache is never worth a paid run.
_FAULTS = (Exception,)


class CacheWriter:
    """The run's view of the cache.

    Args:
        path: ``judge_cache`` (None: no cache, nothing counts as not persisted).
    """

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.not_persisted = 0
        self._cache: VerdictCache | None = None
        self._broken = False
        if path is not None:
            try:
                self._cache = VerdictCache(path)
            except _FAULTS as exc:
                self._fail("cannot be opened", exc)

    def get_many(self, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        """Stored verdict dicts by key; nothing when the cache is unusable.

        Args:
            keys: Cache keys.
        """
        if self._cache is None or self._broken:
            return {}
        try:
            return self._cache.get_many(keys)
        except _FAULTS as exc:
            self._fail("cannot be read", exc)
            return {}

    def put(self, key: str, verdict: dict[str, Any]) -> None:
        """Write one verdict, or count it as not persisted.

        Args:
            key: Its cache key.
            verdict: ``Verdict.to_dict()``.
        """
        if self.path is None:
            return
        if self._cache is None or self._broken:
            self.not_persisted += 1
            return
        try:
            self._cache.put(key, verdict)
        except _FAULTS as exc:
            self.not_persisted += 1
            self._fail("cannot be written", exc)

    def claim(self, keys: Iterable[str], owner: str, lease: float,
              reusable: Callable[[dict[str, Any]], bool]) -> tuple[set[str], dict[str, dict[str, Any]]]:
        """:meth:`VerdictCache.claim <uta_tasks.judge.cache.VerdictCache.claim>`; without a usable
        cache every key is the caller's (nothing to share with another run).

        Args:
            keys: Cache keys.
            owner: The claiming run.
            lease: Seconds.
            reusable: Whether a stored verdict answers its key.
        """
        if self._cache is None or self._broken:
            return set(keys), {}
        try:
            return self._cache.claim(keys, owner, lease, reusable)
        except _FAULTS as exc:
            self._fail("cannot be written", exc)
            return set(keys), {}

    def claim_owners(self) -> list[str]:
        """The runs holding a live claim (none when the cache is unusable)."""
        if self._cache is None or self._broken:
            return []
        try:
            return self._cache.claim_owners()
        except _FAULTS as exc:
            self._fail("cannot be read", exc)
            return []

    def renew(self, owner: str, lease: float) -> None:
        """Extend the run's claims (a fault only costs the cache).

        Args:
            owner: The run.
            lease: Seconds.
        """
        self._quietly(lambda cache: cache.renew(owner, lease))

    def release(self, owner: str, key: str | None = None) -> None:
        """Drop the run's claim of ``key``, or all of them (a fault only costs the cache).

        Args:
            owner: The run.
            key: One key (default: all).
        """
        self._quietly(lambda cache: cache.release(owner, key))

    def _quietly(self, action: Callable[[VerdictCache], None]) -> None:
        if self._cache is None or self._broken:
            return
        try:
            action(self._cache)
        except _FAULTS as exc:
            self._fail("cannot be written", exc)

    def close(self) -> None:
        """Close the file and warn about verdicts that were not persisted."""
        if self._cache is not None:
            try:
                self._cache.close()
            except _FAULTS:
                pass
        if self.not_persisted:
            log.warning(
                "judge_cache=%r: %d verdict(s) were not persisted; they are in this run's results, "
                "but a rerun pays for them again",
                self.path, self.not_persisted,
            )

    def _fail(self, what: str, exc: BaseException) -> None:
        self._broken = True
        log.warning(
            "judge_cache=%r %s (%s): the run goes on and keeps its verdicts in memory; fix the "
            "cache (free disk, stop the process holding its lock, use a local writable file) "
            "before the next run",
            self.path, what, exc,
        )
