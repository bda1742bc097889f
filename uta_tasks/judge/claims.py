"""One judge bill per item when runs share a verdict cache.

Two runs that share ``judge_cache`` (two ``uta-rejudge`` on one folder, two lm-eval runs,
a rejudge beside a live run) would otherwise both miss the cache for the same item and both
pay for it. Each run therefore **claims** the items it is about to send in the cache's
``claims`` table, in one transaction that also looks for a verdict written meanwhile
(:meth:`uta_tasks.judge.cache.VerdictCache.claim`):

- an item with a verdict is taken from the cache, an item claimed by another live run is
  **waited for**, every other item is claimed and judged;
- a claim is a **lease** of :data:`LEASE_S` seconds that the run renews every
  :data:`RENEW_S` seconds while it judges; it is dropped as soon as the item's verdict is
  written, or when its call failed in a way that is not cached (an outage, a timeout), and
  all of a run's claims are dropped when it ends. A run that is killed stops renewing: its
  claims expire within :data:`LEASE_S` seconds and a waiting run claims and judges them.
  On the same machine no one waits that long: a claim whose run (host and process id in its
  owner name) no longer exists is dropped at once, so a run restarted after a kill resumes
  straight away;
- a waiting run looks every :data:`POLL_S` seconds: the verdicts that arrived are read from
  the cache (they count as cache hits: this run did not pay for them), released or expired
  claims are claimed and judged by this run.

So the second run neither blocks the first nor pays twice: items split between the runs as
each claims them, and both end with every verdict. Without a cache (``judge_cache=none``) or
with one that fails, nothing is shared and each run judges all its items.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
from collections.abc import Callable, Coroutine, Iterable
from typing import Any

from .persist import CacheWriter

LEASE_S = 60.0
RENEW_S = 15.0
POLL_S = 0.5


def owner_id() -> str:
    """A name for this run's claims: host, process and a random part (two runs in one process differ)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(6)}"


def _gone(owner: str) -> bool:
    """True when ``owner`` (:func:`owner_id`) names a process of this machine that does not exist."""
    host, _, rest = owner.partition(":")
    pid_text = rest.partition(":")[0]
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return True
    except OSError:  # it exists under another user
        return False
    return False


class ItemClaims:
    """The claims of one judging run in a shared cache.

    Args:
        cache: The run's cache.
        reusable: Whether a stored verdict dict answers its key.
        lease: Seconds a claim holds unless renewed.
    """

    def __init__(self, cache: CacheWriter, reusable: Callable[[dict[str, Any]], bool],
                 lease: float | None = None) -> None:
        self.cache = cache
        self.reusable = reusable
        self.lease = LEASE_S if lease is None else lease
        self.owner = owner_id()

    def take(self, keys: Iterable[str]) -> tuple[set[str], dict[str, dict[str, Any]]]:
        """Claim what is free; returns the claimed keys and the verdicts found instead.

        Args:
            keys: Keys this run has no verdict for.
        """
        wanted = list(keys)
        claimed, found = self.cache.claim(wanted, self.owner, self.lease, self.reusable)
        if len(claimed) + len(found) < len(set(wanted)) and self._drop_dead_owners():
            more, also = self.cache.claim([k for k in wanted if k not in claimed and k not in found], self.owner,
                                          self.lease, self.reusable)
            claimed, found = claimed | more, {**found, **also}
        return claimed, found

    def _drop_dead_owners(self) -> bool:
        """Drop the claims of runs of this machine that no longer exist; True when there were any."""
        dead = [owner for owner in self.cache.claim_owners() if owner != self.owner and _gone(owner)]
        for owner in dead:
            self.cache.release(owner)
        return bool(dead)

    def done(self, key: str) -> None:
        """The item's verdict is written (or its call failed): another run may look again.

        Args:
            key: Its cache key.
        """
        self.cache.release(self.owner, key)

    async def keep_alive(self) -> None:
        """Renew the run's claims every :data:`RENEW_S` seconds until cancelled."""
        while True:
            await asyncio.sleep(min(RENEW_S, self.lease / 4))
            self.cache.renew(self.owner, self.lease)

    async def wait_for(self, keys: Iterable[str], found: Callable[[str, dict[str, Any]], None],
                       judge: Callable[[str], Coroutine[Any, Any, None]]) -> None:
        """Wait for items other runs hold: read their verdicts as they arrive, judge those
        whose claim was released or expired without one.

        Args:
            keys: Keys claimed by other runs.
            found: Called with each verdict another run wrote.
            judge: Judges one key this run has claimed.
        """
        waiting = set(keys)
        started: list[asyncio.Task[None]] = []
        while waiting:
            await asyncio.sleep(POLL_S)
            claimed, verdicts = self.take(sorted(waiting))
            for key, stored in verdicts.items():
                found(key, stored)
            started += [asyncio.create_task(judge(key)) for key in sorted(claimed)]
            waiting -= claimed | set(verdicts)
        await asyncio.gather(*started)

    def close(self) -> None:
        """Drop every claim this run still holds."""
        self.cache.release(self.owner)
