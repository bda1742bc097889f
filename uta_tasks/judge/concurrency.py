"""How many judge requests may be in flight: adaptive, as many as the endpoint takes.

The window starts at ``judge_concurrency`` and never exceeds ``judge_concurrency_max``:

- **Grow** on a success, when at least a window of requests is waiting for a slot (a
  larger window would be used: near the end of a run it would not, and probing then
  only risks a rejection whose ``Retry-After`` delays the last items) and latency holds:
  the smoothed latency (an exponential moving average of successes, weight
  :data:`SMOOTHING`) is within :data:`LATENCY_TOLERANCE` times the lowest smoothed
  latency of the run. Smoothing keeps short and long replies from deciding alone; a
  server that queues requests instead of rejecting them (llama-server, ``vllm serve``)
  raises it and stops growth. Until the first overload the window grows by
  :data:`SLOW_START_STEP` per success (x1.5 every round trip: a slow start, limited as in
  RFC 3742 because a window's answers come back together, so a doubling is sent in one
  burst before the first 429 of it can be read). In that slow start, requests beyond the
  most that have succeeded so far go out one per pass of the event loop, so the loop
  reads the answers that arrived (a 429 comes back at once) before it sends the next
  one. After the first overload the window knows the *ceiling*, the count in flight the
  endpoint refused: below it, it grows by :data:`RECOVERY` per window of successes (back
  to the endpoint's capacity within a round trip or two); within half a request of it,
  by one per :data:`PLATEAU` windows of successes, so the window stays at the capacity
  the endpoint showed instead of probing past it every few round trips. A window that
  has held the ceiling that long raises it (the endpoint grew).
- **Not near the end**: growing needs a queue long enough to keep the larger window busy
  for longer than the last ``Retry-After`` (at least a window of requests per smoothed
  latency it lasts). With a shorter queue the window does not grow, and it stays
  :data:`NEAR_END_MARGIN` below what the endpoint took (the ceiling less one): a request
  rejected then holds the last item back for a whole ``Retry-After``, which costs more
  than the slot a lower window leaves unused. The margin is there because these counts
  are not the endpoint's: a request sent with N in flight here may reach it with fewer
  (answers on their way back) or more (requests arrive in any order, and an endpoint may
  still count a request whose answer the client has read), so the ceiling can be one too
  high, and what succeeded one more (without a margin, 1 run in 8 of
  ``perf/judge_throughput.py`` lost a ``Retry-After`` at its end; with a margin of one,
  once the client read and sent faster, 6 runs of 600 items in 75 fell below 0.9 of
  capacity, none of 75 with two).
- **Shrink** on an overload signal (HTTP 429, 503, a timeout) by :data:`CUT` requests per
  signal: DCTCP's cut (RFC 8257: the window times one minus half the share of a round
  trip's answers that were marked), counted per answer. A 429 for a probe one past the
  endpoint's capacity costs half a request and leaves the window at that capacity, where
  a multiplicative decrease would leave several slots empty for round trips. The ceiling
  is the window the first such request of a round trip was refused at (in slow start,
  where the requests beyond the first window are paced and lag it, the count in flight,
  at least the first window), less one for each further overload answered to a request
  sent before that cut (the endpoint took that many fewer), and never below one more
  than the most in flight a request that succeeded since the previous cut was sent with
  (the endpoint took that many: a single refusal at a window it has been taking, which
  happens, must not hold the window below it for PLATEAU round trips). A cut never
  leaves the window above the ceiling: an endpoint that refuses half of a round trip
  halves the window at once. The rejected requests cost no retries (see
  :mod:`.client`).
- **What succeeded bounds a cut**: the first overload of a round trip caps the window
  at the most requests in flight that a request which succeeded since the previous
  cut was sent with (slow start may have grown far past the endpoint's capacity before
  the first 429 was read; a small endpoint rejects most of a first window that starts
  above its capacity). That cap is only what had *returned* when the 429 arrived: a
  request sent with more in flight that then succeeds proves the endpoint took that
  many, and lifts the window to it at once (never above the cut window, nor to the
  ceiling), instead of the window climbing back a request or two per round trip.
- **Retry-After** is honoured by the request that received it (the client does not send
  it again before then, see :mod:`.client`). When the window is already down to one
  request, no new request starts before it either, so an exhausted endpoint sees one
  request per ``Retry-After``, not a stream of rejected ones.

With ``judge_concurrency_max <= judge_concurrency`` the window is fixed (a plain
semaphore, as before adaptive concurrency existed).

Waiting for a slot is FIFO and costs nothing from an item's retries or timeout. A
request sent again (after a ``Retry-After`` or a backoff) goes to the front: its item has
waited longest, and near the end of a run a retry behind the last items in the queue
would be the run's last answer by a round trip.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

CUT = 0.5
NEAR_END_MARGIN = 2
RECOVERY = 2.0
PLATEAU = 8.0
SLOW_START_STEP = 0.5
LATENCY_TOLERANCE = 2.0
SMOOTHING = 0.05
FLOOR = 1

OK = "ok"
OVERLOAD = "overload"
OTHER = "other"


@dataclass(frozen=True)
class Slot:
    """One granted request slot.

    Attributes:
        epoch: Number of cuts when it was granted.
        started: Clock time when it was granted.
        concurrency: Requests in flight when it was granted, itself included.
    """

    epoch: int
    started: float
    concurrency: int = 1


@dataclass
class LimiterStats:
    """What the window did in a run.

    Attributes:
        peak: Largest window reached.
        decreases: Round trips in which the window was cut (the first overload of each).
        overloads: Overload signals received (429, 503, timeouts).
        pauses: Times new requests were held back for a ``Retry-After`` at a window of 1.
    """

    peak: float = 0.0
    decreases: int = 0
    overloads: int = 0
    pauses: int = 0


class AdaptiveLimit:
    """The window of requests in flight. Create and use inside one event loop.

    Args:
        start: Window at the start (``judge_concurrency``).
        cap: Largest window (``judge_concurrency_max``); ``cap <= start`` fixes the window at ``start``.
        clock: Monotonic clock in seconds (tests pass a fake one).
    """

    def __init__(self, start: int, cap: int, clock: Callable[[], float] = time.monotonic) -> None:
        if start < FLOOR:
            raise ValueError(f"judge_concurrency={start}: use a value >= {FLOOR}")
        self.adaptive = cap > start
        self.cap = float(max(cap, start))
        self.limit = float(start)
        self._start = float(start)
        self.in_flight = 0
        self.stats = LimiterStats(peak=self.limit)
        self._clock = clock
        self._threshold = math.inf  # slow start until the first overload
        self._ceiling = math.inf  # the count in flight the endpoint last refused
        self._retry_after = 0.0  # the last Retry-After seen (seconds)
        self._proven = 0  # most requests in flight when one that succeeded since the last cut was sent
        self._target = 0.0  # the window the cuts since the last round trip aimed at, before the cap at _proven
        self._epoch = 0
        self._smoothed: float | None = None
        self._lowest: float | None = None
        self._resume_at = 0.0
        self._waiters: deque[asyncio.Future[Slot]] = deque()
        self._timer: asyncio.TimerHandle | None = None
        self._pacing = False  # slow start: a request beyond what succeeded was granted in this loop pass
        self._took = 0  # most in flight when a request that succeeded before the last cut was sent
        self._busy = True  # at the last answer, enough requests waited to outlast the last Retry-After

    @property
    def window(self) -> int:
        """Requests that may be in flight now: near the end of a run, :data:`NEAR_END_MARGIN` fewer than
        the endpoint took."""
        window = int(self.limit)
        if not self._busy and self._ceiling != math.inf:
            window = min(window, int(self._ceiling) - 1 - NEAR_END_MARGIN)
        return max(FLOOR, window)

    async def acquire(self, again: bool = False) -> Slot:
        """Wait for a free slot (FIFO) and take it.

        Args:
            again: The item's request is sent again (after a ``Retry-After``, a backoff): it
                goes to the front of the queue, as the item that has waited longest.
        """
        if not self._waiters and self._can_start():
            return self._grant()
        future: asyncio.Future[Slot] = asyncio.get_running_loop().create_future()
        if again:
            self._waiters.appendleft(future)
        else:
            self._waiters.append(future)
        self._wake()
        try:
            return await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self.release(future.result(), OTHER)
            elif future in self._waiters:
                self._waiters.remove(future)
            raise

    def release(self, slot: Slot, signal: str, pause: float | None = None) -> None:
        """Give a slot back and adapt the window.

        Args:
            slot: The slot from :meth:`acquire`.
            signal: :data:`OK` (a valid answer), :data:`OVERLOAD` (429, 503, timeout) or :data:`OTHER`.
            pause: For an overload: the seconds its request will wait before it is sent again
                (the ``Retry-After``); new requests wait as long when the window is 1.
        """
        busy = self._busy = len(self._waiters) >= int(self.limit) * self._queue_factor()
        self.in_flight -= 1
        now = self._clock()
        if signal == OK:
            self._proven = max(self._proven, slot.concurrency)
            self._lift(slot.concurrency)
            self._grow(now - slot.started, busy)
        elif signal == OVERLOAD:
            self._shrink(slot, now, pause)
        self._wake()

    def _queue_factor(self) -> float:
        """Windows of waiting requests needed to grow: enough to outlast the last Retry-After."""
        if not self._retry_after or not self._smoothed:
            return 1.0
        return max(1.0, self._retry_after / self._smoothed)

    def _lift(self, proven: int) -> None:
        """A success sent with ``proven`` in flight: the window may be at least that, up to the target
        and one below the ceiling."""
        top = min(self._target, self._ceiling - 1, float(proven))
        if self.adaptive and self.limit < top:
            self.limit = top

    def _grow(self, latency: float, busy: bool) -> None:
        smoothed = latency if self._smoothed is None else self._smoothed + SMOOTHING * (latency - self._smoothed)
        self._smoothed = smoothed
        self._lowest = smoothed if self._lowest is None else min(self._lowest, smoothed)
        if not self.adaptive or not busy or smoothed > LATENCY_TOLERANCE * self._lowest:
            return
        if self.limit < self._threshold:
            step = SLOW_START_STEP
        elif self.limit < self._ceiling - 0.5:
            step = RECOVERY / self.limit
        else:
            step = 1.0 / (PLATEAU * self.limit)
        self.limit = min(self.cap, self.limit + step)
        self.stats.peak = max(self.stats.peak, self.limit)
        if self.limit >= self._ceiling + 1:  # the ceiling was in flight for PLATEAU windows: taken now
            self._ceiling = float(int(self.limit))

    def _shrink(self, slot: Slot, now: float, pause: float | None) -> None:
        self.stats.overloads += 1
        if not self.adaptive:
            return
        if pause:
            self._retry_after = pause
        if slot.epoch == self._epoch:  # the first overload of a request sent since the last cut
            self._target = self.limit
            self._took, self._proven = self._proven, 0  # the endpoint took that many: the ceiling stays above
            refused = int(self.limit)  # the window it was refused at
            if self._threshold == math.inf:  # in slow start, paced requests lag the window
                refused = min(refused, max(self.in_flight + 1, int(self._start)))
            self._ceiling = float(max(refused, self._took + 1))
            if self._took:  # at most what succeeded since the last cut
                self.limit = min(self.limit, float(self._took))
            self._epoch += 1
            self.stats.decreases += 1
        elif slot.epoch == self._epoch - 1:  # sent before that cut: the endpoint took one fewer
            self._ceiling = max(float(FLOOR + 1), float(self._took + 1), self._ceiling - 1)
        self._target = max(float(FLOOR), self._target - CUT)
        self.limit = max(float(FLOOR), min(self.limit, self._target, self._ceiling))
        self._threshold = self.limit
        if pause and self.limit <= FLOOR and now + pause > self._resume_at:
            self._resume_at = now + pause
            self.stats.pauses += 1

    def _can_start(self) -> bool:
        return self.in_flight < self.window and self._clock() >= self._resume_at

    def _grant(self) -> Slot:
        self.in_flight += 1
        return Slot(self._epoch, self._clock(), self.in_flight)

    def _wake(self) -> None:
        while self._waiters and self._waiters[0].done():
            self._waiters.popleft()  # cancelled waiters
        while self._waiters and self._can_start():
            unproven = self._threshold == math.inf and self.in_flight >= max(self._proven, self._start)
            if unproven and self._pacing:
                break
            future = self._waiters.popleft()
            if not future.done():
                future.set_result(self._grant())
                if unproven:
                    self._pacing = True
                    asyncio.get_running_loop().call_soon(self._unpace)
        if self._waiters and self.in_flight < self.window and self._timer is None:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(max(0.0, self._resume_at - self._clock()), self._on_timer)

    def _unpace(self) -> None:
        self._pacing = False
        self._wake()

    def _on_timer(self) -> None:
        self._timer = None
        self._wake()
