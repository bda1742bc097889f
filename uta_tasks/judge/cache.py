"""Disk cache of verdicts (sqlite), so a rerun pays nothing for what it already has.

- Key: sha256 over the judge model, the prompt version and template digest, the
  sampling settings that can change a verdict (temperature, reasoning effort), the
  item (context + user turn) and, when set, ``judge_cache_namespace``. The endpoint URL
  is not part of it, so a proxy or a mirror of the same model shares verdicts; set a
  namespace to keep verdicts of different backends serving one model name apart (every
  verdict also records the ``model`` and ``system_fingerprint`` its reply named).
  ``judge_max_tokens`` is not part of the key: a reply cut at the limit is never cached.
- Judged verdicts are written, and so are *unjudged* ones whose last attempt got a
  reply that is not a valid verdict (invalid JSON, schema violation, refusal): that
  reply was paid for, so a rerun reuses the unjudged verdict and its reason instead of
  paying again. Every other failure of the last attempt (HTTP errors, timeouts, refused
  connections, unreadable bodies, ``finish_reason=length``) is not written, so the next
  run retries it; such entries written by older versions are ignored when read. To
  retry cached failures, point ``judge_cache`` at a new file.
- sqlite's WAL mode needs shared memory between the writers, which network file
  systems (NFS and the like) do not give across hosts: preflight warns when
  ``judge_cache`` is on one (:func:`filesystem_type`).
- Each verdict is committed as soon as it arrives: killing the process loses at most
  the requests in flight. A write that fails (locked past the busy timeout, disk full,
  read-only) does not abort the run: see :class:`uta_tasks.judge.persist.CacheWriter`.
- Connection, WAL journal, busy timeout and transactions follow the project's sqlite
  policy (:mod:`uta_tasks.stores.sqlite`, which also says why this is not ``diskcache``):
  concurrent writers (threads with their own connection, or several processes) are safe;
  writes are ``INSERT OR REPLACE`` of identical content, so races are harmless.
- The stored verdict holds the prompt messages and the raw reply, never the API key.
- **One bill per item**: runs that share the file (two ``uta-rejudge`` on one folder, two
  lm-eval runs) claim each item in the ``claims`` table before asking the judge
  (:meth:`VerdictCache.claim`, see :mod:`.claims`); a claim is a lease that expires
  unless its run renews it, so a killed run blocks nothing for long.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from uta_tasks.stores.sqlite import IN_CHUNK, SqliteStore

from .errors import JudgeConfigError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS verdicts (
    key TEXT PRIMARY KEY,
    judge_model TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    prompt_sha TEXT NOT NULL,
    verdict TEXT NOT NULL,
    created REAL NOT NULL
)
"""
# a key claimed by a run (owner) until ``expires`` (epoch seconds); the row goes when its verdict is written
_CLAIMS = "CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, owner TEXT NOT NULL, expires REAL NOT NULL)"
_BUSY_TIMEOUT_S = 60.0
_PROBE_KEY = "__uta_preflight_probe__"
MOUNTS = "/proc/mounts"
NETWORK_FILESYSTEMS = ("nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "fuse.sshfs", "lustre", "gpfs", "beegfs")


def cache_key(
    model: str,
    prompt_version: str,
    prompt_sha: str,
    temperature: float | None,
    reasoning_effort: str | None,
    item_fingerprint: str,
    namespace: str | None = None,
) -> str:
    """The cache identity of one verdict.

    Args:
        model: Judge model name.
        prompt_version: Template set name.
        prompt_sha: Template digest.
        temperature: Configured judge temperature (None when not sent).
        reasoning_effort: Configured reasoning effort (None when not sent).
        item_fingerprint: :meth:`JudgeItem.fingerprint`.
        namespace: ``judge_cache_namespace``; None keeps the keys of earlier versions.
    """
    parts: list[object] = [model, prompt_version, prompt_sha, temperature, reasoning_effort, item_fingerprint]
    if namespace is not None:
        parts.append({"namespace": namespace})
    payload = json.dumps(parts, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def filesystem_type(path: str | Path, mounts: str | Path | None = None) -> str | None:
    """The type of the file system holding ``path`` (Linux ``/proc/mounts``), or None.

    Args:
        path: A file or directory (need not exist yet).
        mounts: The mount table to read (default :data:`MOUNTS`).
    """
    target = Path(path).expanduser().absolute()
    best: tuple[int, str] | None = None
    try:
        lines = Path(MOUNTS if mounts is None else mounts).read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        if len(fields) < 3:
            continue
        point = Path(fields[1].replace("\\040", " "))
        if (target == point or point in target.parents) and (best is None or len(str(point)) > best[0]):
            best = (len(str(point)), fields[2])
    return best[1] if best else None


class VerdictCache(SqliteStore):
    """One connection to the cache file; use from one thread (open one per thread).

    Args:
        path: The sqlite file; parent directories are created.
        busy_timeout: Seconds to wait for another writer's lock (default 60).
    """

    def __init__(self, path: str | Path, busy_timeout: float | None = None) -> None:
        timeout = _BUSY_TIMEOUT_S if busy_timeout is None else busy_timeout
        try:
            super().__init__(path, (_SCHEMA, _CLAIMS), timeout, durable=False)
        except (OSError, sqlite3.Error) as exc:
            raise JudgeConfigError(
                f"judge_cache={str(path)!r} cannot be opened ({exc}): point judge_cache "
                "(or UTA_JUDGE_CACHE) to a writable file, or set judge_cache=none"
            ) from exc

    def get_many(self, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        """Look up verdict dicts by key.

        Args:
            keys: Cache keys.

        Returns:
            The found ones, key -> verdict dict.
        """
        rows = self.rows_for_keys("SELECT key, verdict FROM verdicts WHERE key IN ({marks})", keys)
        return {key: json.loads(text) for key, text in rows}

    def put(self, key: str, verdict: dict[str, Any]) -> None:
        """Write one judged verdict and commit at once.

        Args:
            key: Its cache key.
            verdict: ``Verdict.to_dict()``.
        """
        stored = {name: value for name, value in verdict.items() if name != "cached"}
        self._conn.execute(
            "INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?, ?, ?, ?)",
            (
                key,
                stored["judge_model"],
                stored["prompt_version"],
                stored.get("prompt_sha", ""),
                json.dumps(stored, ensure_ascii=False),
                time.time(),
            ),
        )

    def claim(self, keys: Iterable[str], owner: str, lease: float, reusable: Callable[[dict[str, Any]], bool],
              now: float | None = None) -> tuple[set[str], dict[str, dict[str, Any]]]:
        """Claim, in one transaction, every key with neither a reusable verdict nor another
        owner's live claim.

        Args:
            keys: Cache keys the caller is about to judge.
            owner: The claiming run (:func:`uta_tasks.judge.claims.owner_id`).
            lease: Seconds the claims hold unless renewed (:meth:`renew`).
            reusable: Whether a stored verdict dict answers its key (else the key is judged again).
            now: The time (default: now).

        Returns:
            The keys now claimed by ``owner``, and the reusable verdicts found instead, by key.
        """
        now = time.time() if now is None else now
        wanted = list(dict.fromkeys(keys))
        granted: set[str] = set()
        found: dict[str, dict[str, Any]] = {}
        with self.transaction() as conn:
            for start in range(0, len(wanted), IN_CHUNK):
                chunk = wanted[start:start + IN_CHUNK]
                marks = ",".join("?" * len(chunk))
                for key, text in conn.execute(f"SELECT key, verdict FROM verdicts WHERE key IN ({marks})", chunk):
                    stored = json.loads(text)
                    if reusable(stored):
                        found[key] = stored
                held = {key for (key,) in conn.execute(
                    f"SELECT key FROM claims WHERE key IN ({marks}) AND owner != ? AND expires > ?",
                    [*chunk, owner, now])}
                free = [key for key in chunk if key not in found and key not in held]
                conn.executemany("INSERT OR REPLACE INTO claims VALUES (?, ?, ?)",
                                 [(key, owner, now + lease) for key in free])
                granted.update(free)
        return granted, found

    def claim_owners(self, now: float | None = None) -> list[str]:
        """The runs holding a live claim.

        Args:
            now: The time (default: now).
        """
        now = time.time() if now is None else now
        return [str(row[0]) for row in self._conn.execute("SELECT DISTINCT owner FROM claims WHERE expires > ?", (now,))]

    def renew(self, owner: str, lease: float, now: float | None = None) -> None:
        """Extend every claim of ``owner`` to ``lease`` seconds from now.

        Args:
            owner: The run.
            lease: Seconds.
            now: The time (default: now).
        """
        now = time.time() if now is None else now
        self._conn.execute("UPDATE claims SET expires = ? WHERE owner = ?", (now + lease, owner))

    def release(self, owner: str, key: str | None = None) -> None:
        """Drop ``owner``'s claim of ``key`` (after its verdict is written, or its call failed), or all its claims.

        Args:
            owner: The run.
            key: One key (default: every claim of the run).
        """
        if key is None:
            self._conn.execute("DELETE FROM claims WHERE owner = ?", (owner,))
        else:
            self._conn.execute("DELETE FROM claims WHERE key = ? AND owner = ?", (key, owner))

    def check_writable(self) -> None:
        """Write and delete a probe row, in one committed transaction.

        Raises:
            JudgeConfigError: The file cannot be written (locked, full, read-only).
        """
        try:
            with self.transaction() as conn:
                conn.execute("INSERT OR REPLACE INTO verdicts VALUES (?, '', '', '', '{}', ?)", (_PROBE_KEY, time.time()))
                conn.execute("DELETE FROM verdicts WHERE key = ?", (_PROBE_KEY,))
        except sqlite3.Error as exc:
            raise JudgeConfigError(
                f"judge_cache={str(self.path)!r} is not writable ({exc}): free the disk, stop the process "
                "holding its lock, or point judge_cache (or UTA_JUDGE_CACHE) to a writable local file "
                "(not NFS); judge_cache=none runs without a cache"
            ) from exc

    def count(self) -> int:
        """Number of stored verdicts."""
        return int(self._conn.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0])
