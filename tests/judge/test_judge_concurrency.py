"""The adaptive window of requests in flight (uta_tasks.judge.concurrency), on a fake clock."""

from __future__ import annotations

import asyncio
import time

import pytest

from uta_tasks.judge.concurrency import CUT, NEAR_END_MARGIN, OK, OTHER, OVERLOAD, PLATEAU, AdaptiveLimit, Slot


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def run(coro):  # noqa: ANN001, ANN201 - tiny helper
    return asyncio.run(coro)


async def fill(limit: AdaptiveLimit) -> list[Slot]:
    """Take every free slot."""
    return [await limit.acquire() for _ in range(limit.window - limit.in_flight)]


async def settle() -> None:
    """Let woken tasks run (slow start grants one request beyond what succeeded per loop pass)."""
    for _ in range(200):
        await asyncio.sleep(0)


class Backlog:
    """``size`` requests waiting for a slot, as in a judge run with many items."""

    def __init__(self, limit: AdaptiveLimit, size: int) -> None:
        self.limit = limit
        self.granted: list[Slot] = []
        self.tasks = [asyncio.create_task(self._one()) for _ in range(size)]

    async def _one(self) -> None:
        slot = await self.limit.acquire()
        self.granted.append(slot)

    async def round_trip(self, clock: FakeClock, seconds: float, signal: str = OK) -> None:
        """Every request in flight answers after ``seconds``; the backlog refills the window."""
        await settle()
        slots, self.granted = self.granted, []
        clock.now += seconds
        for slot in slots:
            self.limit.release(slot, signal)
        await settle()

    def close(self) -> None:
        for task in self.tasks:
            task.cancel()


def test_slow_start_grows_the_window_by_half_per_round_trip_while_busy() -> None:
    async def scenario() -> list[int]:
        clock = FakeClock()
        limit = AdaptiveLimit(4, 64, clock=clock)
        backlog = Backlog(limit, 500)
        windows = []
        for _ in range(3):
            await backlog.round_trip(clock, 0.3)
            windows.append(limit.window)
        backlog.close()
        return windows

    assert run(scenario()) == [6, 9, 13]  # x1.5 per round trip: 4 -> 6 -> 9 -> 13.5


def test_each_overload_cuts_half_a_request_and_growth_below_the_ceiling_is_slow() -> None:
    async def scenario() -> tuple[float, float, float, float]:
        clock = FakeClock()
        limit = AdaptiveLimit(20, 64, clock=clock)
        slots = await fill(limit)
        clock.now += 0.05
        limit.release(slots[0], OVERLOAD, pause=1.0)
        after_first = limit.limit
        limit.release(slots[1], OVERLOAD, pause=1.0)  # the same round trip: half a request more
        after_same_round = limit.limit
        for slot in slots[2:]:
            limit.release(slot, OTHER)
        late = await limit.acquire()
        clock.now += 0.05
        limit.release(late, OVERLOAD, pause=1.0)  # sent after the cut: the next round trip's
        after_next_round = limit.limit
        backlog = Backlog(limit, 5000)
        await backlog.round_trip(clock, 0.3)
        before = limit.limit
        await backlog.round_trip(clock, 0.3)
        backlog.close()
        return after_first, after_same_round, after_next_round, limit.limit - before

    first, same_round, next_round, plateau_growth = run(scenario())
    assert first == pytest.approx(20 - CUT)  # not 20 x 0.9: one refusal leaves the window near capacity
    assert same_round == pytest.approx(20 - 2 * CUT)
    assert next_round == pytest.approx(20 - 3 * CUT)
    # Refused at 19, the window holds 18 and grows one per PLATEAU windows of successes.
    assert plateau_growth == pytest.approx(1 / PLATEAU, rel=0.2)


def test_a_round_trip_half_refused_halves_the_window_at_once() -> None:
    async def scenario() -> tuple[float, int]:
        clock = FakeClock()
        limit = AdaptiveLimit(32, 64, clock=clock)
        slots = await fill(limit)
        clock.now += 0.01
        for slot in slots[16:]:  # the endpoint now takes 16 of them (another client holds the rest)
            limit.release(slot, OVERLOAD, pause=1.0)
        return limit.limit

    # Refused at 32, then 15 more refusals from that round trip: the endpoint took 16, so
    # the window is 17 (one probe above), not 32 - 16 x CUT = 24.
    assert run(scenario()) == 17.0


def test_window_stays_below_the_rejected_one_for_several_round_trips() -> None:
    async def scenario() -> list[int]:
        clock = FakeClock()
        limit = AdaptiveLimit(33, 64, clock=clock)
        limit.release(await limit.acquire(), OVERLOAD, pause=1.0)  # 33 refused -> 32.5
        backlog = Backlog(limit, 5000)
        windows = []
        for _ in range(8):
            await backlog.round_trip(clock, 0.3)
            windows.append(limit.window)
        backlog.close()
        return windows

    windows = run(scenario())
    assert windows[:4] == [32] * 4  # it holds what the endpoint took for PLATEAU / 2 round trips ...
    assert windows[-1] == 33  # ... before it probes 33 again (the endpoint may have grown)


def test_near_the_end_the_window_stays_below_what_the_endpoint_took() -> None:
    async def scenario() -> tuple[int, int]:
        out = []
        for backlog_size in (30, 1000):
            clock = FakeClock()
            limit = AdaptiveLimit(20, 64, clock=clock)
            slots = await fill(limit)
            clock.now += 0.3
            limit.release(slots[0], OVERLOAD, pause=1.0)  # refused at 20: it took 19
            backlog = Backlog(limit, backlog_size)
            await settle()
            for slot in slots[1:]:
                limit.release(slot, OK)
            await settle()
            out.append(limit.in_flight)
            backlog.close()
        return out[0], out[1]

    short, long = run(scenario())
    # 30 waiting do not outlast a Retry-After of 1 s at 0.3 s a request: a refusal now
    # would delay the last item by a second, so the window keeps a margin below 19.
    assert short == 19 - NEAR_END_MARGIN
    assert long == 19


def test_no_growth_when_the_queue_would_not_outlast_a_retry_after() -> None:
    async def scenario() -> tuple[float, float]:
        out = []
        for backlog_size in (60, 400):
            clock = FakeClock()
            limit = AdaptiveLimit(20, 64, clock=clock)
            limit.release(await limit.acquire(), OVERLOAD, pause=1.0)  # 20 -> 19.5, Retry-After 1 s
            backlog = Backlog(limit, backlog_size)
            await backlog.round_trip(clock, 0.3)
            before = limit.limit
            await backlog.round_trip(clock, 0.3)
            out.append(limit.limit - before)
            backlog.close()
        return out[0], out[1]

    short, long = run(scenario())
    assert short == 0.0  # ~40 waiting < 19 x (1 s / 0.3 s): a rejected probe would end the run late
    assert long > 0.0


def test_window_never_passes_the_cap_nor_falls_below_one() -> None:
    async def scenario() -> tuple[int, int]:
        clock = FakeClock()
        limit = AdaptiveLimit(4, 10, clock=clock)
        backlog = Backlog(limit, 500)
        for _ in range(6):
            await backlog.round_trip(clock, 0.3)
        top = limit.window
        for _ in range(60):
            await backlog.round_trip(clock, 0.01, OVERLOAD)
        backlog.close()
        return top, limit.window

    assert run(scenario()) == (10, 1)


def test_cap_at_or_below_start_fixes_the_window() -> None:
    async def scenario() -> tuple[int, int]:
        clock = FakeClock()
        limit = AdaptiveLimit(8, 8, clock=clock)
        slots = await fill(limit)
        for slot in slots[:4]:
            limit.release(slot, OVERLOAD, pause=5.0)
        clock.now += 0.3
        for slot in slots[4:]:
            limit.release(slot, OK)
        return limit.window, len(await fill(limit))

    assert run(scenario()) == (8, 8)  # no shrink, no growth, no pause


def test_window_does_not_grow_when_unused_or_when_latency_does_not_hold() -> None:
    async def scenario() -> tuple[int, int]:
        clock = FakeClock()
        idle = AdaptiveLimit(8, 64, clock=clock)
        for _ in range(20):  # one request at a time: the window is not the limit
            slot = await idle.acquire()
            clock.now += 0.3
            idle.release(slot, OK)
        queued = AdaptiveLimit(8, 64, clock=clock)
        backlog = Backlog(queued, 2000)
        await backlog.round_trip(clock, 0.3)  # 8 -> 12
        for _ in range(40):  # a server that queues instead of rejecting: latency keeps rising
            await backlog.round_trip(clock, 3.0)
        backlog.close()
        return idle.window, queued.window

    idle, queued = run(scenario())
    assert idle == 8
    assert 12 <= queued < 64  # growth stopped once the smoothed latency passed twice its lowest


def test_retry_after_holds_new_requests_when_the_window_is_one() -> None:
    async def scenario() -> float:
        limit = AdaptiveLimit(2, 4)
        for _ in range(12):  # shrink to the floor
            limit.release(await limit.acquire(), OVERLOAD)
        assert limit.window == 1
        limit.release(await limit.acquire(), OVERLOAD, pause=0.3)
        start = time.monotonic()
        slot = await limit.acquire()
        limit.release(slot, OK)
        return time.monotonic() - start

    assert run(scenario()) >= 0.28


def test_waiters_are_served_in_order_and_a_cancelled_waiter_frees_nothing() -> None:
    async def scenario() -> tuple[list[int], int]:
        limit = AdaptiveLimit(1, 1)
        held = await limit.acquire()
        order: list[int] = []

        async def waiter(number: int) -> None:
            slot = await limit.acquire()
            order.append(number)
            await asyncio.sleep(0)
            limit.release(slot, OK)

        tasks = [asyncio.create_task(waiter(n)) for n in range(4)]
        await asyncio.sleep(0)
        tasks[1].cancel()
        limit.release(held, OK)
        await asyncio.gather(*tasks, return_exceptions=True)
        return order, limit.in_flight

    assert run(scenario()) == ([0, 2, 3], 0)


def test_a_request_sent_again_takes_the_next_slot_before_the_queue() -> None:
    async def scenario() -> list[str]:
        limit = AdaptiveLimit(1, 1)
        held = await limit.acquire()
        order: list[str] = []

        async def item(name: str, again: bool) -> None:
            slot = await limit.acquire(again=again)
            order.append(name)
            await asyncio.sleep(0)
            limit.release(slot, OK)

        tasks = [asyncio.create_task(item(f"new {n}", False)) for n in range(3)]
        await asyncio.sleep(0)
        tasks.append(asyncio.create_task(item("retry", True)))  # its Retry-After is over: it asks last
        await asyncio.sleep(0)
        limit.release(held, OK)
        await asyncio.gather(*tasks)
        return order

    # Near the end of a run, a retry behind the queue would be the last answer by a round trip.
    assert run(scenario()) == ["retry", "new 0", "new 1", "new 2"]


def test_leaving_slow_start_the_window_falls_to_what_succeeded() -> None:
    async def scenario() -> tuple[int, float]:
        clock = FakeClock()
        limit = AdaptiveLimit(32, 128, clock=clock)
        backlog = Backlog(limit, 1000)
        await backlog.round_trip(clock, 0.3)  # 32 in flight all succeed: the window grows to 48
        grown = limit.window
        await settle()
        limit.release(backlog.granted[-1], OVERLOAD, pause=1.0)  # sent with 48 in flight: rejected
        backlog.close()
        return grown, limit.limit

    grown, after = run(scenario())
    assert grown == 48
    assert after == pytest.approx(32.0)  # not 48 - CUT: no request sent above 32 in flight succeeded


def test_a_success_sent_with_more_in_flight_lifts_the_capped_window_at_once() -> None:
    async def scenario() -> tuple[float, float, float]:
        clock = FakeClock()
        limit = AdaptiveLimit(20, 128, clock=clock)
        backlog = Backlog(limit, 1000)
        await backlog.round_trip(clock, 0.3)  # 20 succeed: slow start grows the window to 30
        await settle()
        sent = {slot.concurrency: slot for slot in backlog.granted}  # the last one sent with each count
        assert max(sent) == 30
        # The first answer back is a 429 (sent with 30 in flight); only 20 in flight had
        # succeeded, so the window falls to 20, not to 30 - CUT.
        limit.release(sent[30], OVERLOAD, pause=1.0)
        capped = limit.limit
        # Then a request sent with 25 in flight succeeds: the endpoint took 25 at once.
        clock.now += 0.3
        limit.release(sent[25], OK)
        lifted = limit.limit
        # One sent with 29 in flight succeeds too: lifted to 29, one below the count refused.
        limit.release(sent[29], OK)
        backlog.close()
        return capped, lifted, limit.limit

    capped, lifted, most = run(scenario())
    assert capped == pytest.approx(20.0)
    assert 25.0 <= lifted < 26.0  # 25, plus the usual growth step of that success
    assert 29.0 <= most < 29.1  # lifted to 29, never to the refused 30, plus one growth step


def test_a_small_endpoint_brings_a_large_first_window_down_in_one_round_trip() -> None:
    async def scenario() -> tuple[float, float]:
        clock = FakeClock()
        limit = AdaptiveLimit(16, 64, clock=clock)
        first = await fill(limit)  # an endpoint that takes 4 at once: 12 of these are rejected
        backlog = Backlog(limit, 100)  # a run's other items, waiting
        await settle()
        clock.now += 0.01
        for slot in first[4:]:
            limit.release(slot, OVERLOAD, pause=1.0)
        after_rejections = limit.limit  # refused at 16, 11 more refusals: it took 4
        await settle()
        again = backlog.granted  # sent after the cut, while the first 4 are still served
        clock.now += 0.3
        for slot in first[:4]:
            limit.release(slot, OK)
        limit.release(again[0], OVERLOAD, pause=1.0)
        backlog.close()
        return after_rejections, limit.limit

    after_rejections, settled = run(scenario())
    assert after_rejections == pytest.approx(5.0)  # one probe above what it took, not 16 - 12 x CUT
    assert settled == pytest.approx(4.0)  # what succeeded since the last cut


def test_slow_start_sends_one_request_beyond_what_succeeded_per_loop_pass() -> None:
    async def scenario() -> tuple[int, int, float, int]:
        clock = FakeClock()
        limit = AdaptiveLimit(8, 64, clock=clock)
        backlog = Backlog(limit, 100)
        await settle()
        first, backlog.granted = backlog.granted, []
        clock.now += 0.3
        for slot in first:  # 8 succeed at once: the window grows to 12
            limit.release(slot, OK)
        at_once = limit.in_flight  # at most 1 of the 4 new requests beyond what succeeded went out
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        unproven = [slot for slot in backlog.granted if slot.concurrency > 8]
        # That one is rejected before the next loop pass: no more go out beyond 8.
        limit.release(unproven[0], OVERLOAD, pause=1.0)
        await settle()
        backlog.close()
        return at_once, len(unproven), limit.limit, limit.in_flight

    at_once, unproven, window, in_flight = run(scenario())
    assert at_once <= 9  # not 12
    assert unproven <= 2  # not 4: the rest waited for the loop to read the answers first
    assert window == pytest.approx(8.0)  # what succeeded
    assert in_flight == 8 + unproven - 1  # the one already sent stays; none is added after the 429


def test_one_refusal_at_a_window_the_endpoint_has_been_taking_keeps_the_ceiling() -> None:
    async def scenario() -> int:
        clock = FakeClock()
        limit = AdaptiveLimit(20, 64, clock=clock)
        backlog = Backlog(limit, 5000)
        await settle()
        clock.now += 0.3
        first, backlog.granted = backlog.granted, []
        limit.release(first[-1], OVERLOAD, pause=1.0)  # the one sent with 20 in flight is refused
        for slot in first[:-1]:
            limit.release(slot, OK)
        await backlog.round_trip(clock, 0.3)  # 19 in flight, all taken
        await settle()
        limit.release(backlog.granted.pop(), OVERLOAD, pause=1.0)  # then one refusal at 19
        backlog.close()
        await settle()
        for slot in backlog.granted:  # the rest answer with nothing left waiting: the end of a run
            limit.release(slot, OK)
        return limit.window

    # The endpoint had taken 19 at once since the last cut, so the ceiling stays 20 and the
    # window at the end is 20 - 1 - NEAR_END_MARGIN, not a request lower.
    assert run(scenario()) == 20 - 1 - NEAR_END_MARGIN
