"""Where the judge's time goes against the simulated API: one run, request by request.

The judge runs at its default settings (after an untimed warm-up of K items: the first
client of a process imports the HTTP stack, about 0.1 s once) against the latency-and-limit double of
``perf/judge_throughput.py`` (K requests in flight, a fixed latency, 429 above K, with or
without ``Retry-After``). The window (:class:`~uta_tasks.judge.concurrency.AdaptiveLimit`)
is watched from outside (its ``acquire`` and ``release`` are wrapped for the run), so the
product code carries no instrumentation. Printed:

- the endpoint's capacity over the run (K slots x the run's seconds) split into: *useful*
  (N x latency), *client overhead* (slot time of a success beyond the latency: sending,
  the double's answer, reading it, the event loop), *429 answers* (slot time of rejected
  requests), and the idle slots by what the client was doing then: *start-up* (before
  the first request), *window below capacity* (requests were waiting for a slot),
  *back-off* (nothing waited, but items were sleeping out a ``Retry-After`` or a backoff)
  and *tail* (nothing left to send: the last requests were in flight);
- a timeline, one line per bucket: the window, successful requests in flight (mean),
  429s, answers, requests waiting for a slot, items sleeping before a retry.

The client's CPU per request against a bare aiohttp client's is ``perf/judge_client_cpu.py``.

Run from the repository root::

    PYTHONPATH=$PWD python perf/judge_timeline.py [--items 600] [--retry-after 1|none] [--bucket 0.25]
"""

from __future__ import annotations

import argparse
import logging
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from judge_throughput import BASE_SETTINGS, FaultConfig, make_items, retry_after_arg, simulated_api

from uta_tasks.judge import JudgeSettings, judge_all
from uta_tasks.judge.concurrency import OK, OVERLOAD, AdaptiveLimit, Slot

STEP = 0.002  # seconds per sample of the capacity split


@dataclass
class Request:
    """One request as the window saw it."""

    asked: float  # the item asked for a slot
    sent: float  # the slot was granted
    answered: float = 0.0  # the slot was given back
    signal: str = ""
    window: float = 0.0  # the window after the answer


@dataclass
class Trace:
    """Everything the wrapped window saw in one run."""

    requests: list[Request] = field(default_factory=list)
    _open: dict[int, Request] = field(default_factory=dict)


@contextmanager
def traced() -> Iterator[Trace]:
    """Wrap :class:`AdaptiveLimit`'s ``acquire`` and ``release`` for the duration."""
    trace = Trace()
    acquire, release = AdaptiveLimit.acquire, AdaptiveLimit.release

    async def traced_acquire(self: AdaptiveLimit, again: bool = False) -> Slot:
        asked = self._clock()
        slot = await acquire(self, again)
        request = Request(asked, slot.started)
        trace.requests.append(request)
        trace._open[id(slot)] = request
        return slot

    def traced_release(self: AdaptiveLimit, slot: Slot, signal: str, pause: float | None = None) -> None:
        release(self, slot, signal, pause)
        request = trace._open.pop(id(slot))
        request.answered, request.signal, request.window = self._clock(), signal, self.limit

    AdaptiveLimit.acquire = traced_acquire  # type: ignore[method-assign]
    AdaptiveLimit.release = traced_release  # type: ignore[method-assign]
    try:
        yield trace
    finally:
        AdaptiveLimit.acquire, AdaptiveLimit.release = acquire, release  # type: ignore[method-assign]


@dataclass
class Split:
    """The endpoint's capacity over a run, in slot-seconds."""

    total: float
    parts: dict[str, float]


def _count(starts: list[float], ends: list[float], t: float) -> int:
    return sum(1 for start, end in zip(starts, ends, strict=True) if start <= t < end)


def split_capacity(trace: Trace, items: int, capacity: int, latency: float, start: float, end: float) -> Split:
    """Split K x (end - start) slot-seconds by what used them, or why they stood idle.

    Args:
        trace: The run's requests.
        items: Items judged (each one success).
        capacity: K.
        latency: The double's seconds per answer.
        start: Clock time the run began.
        end: Clock time it ended.
    """
    ok = [r for r in trace.requests if r.signal == OK]
    rejected = [r for r in trace.requests if r.signal != OK]
    parts = {
        "useful (N x latency)": len(ok) * latency,
        "client overhead (success slot time beyond the latency)": sum(r.answered - r.sent - latency for r in ok),
        "429 answers (slot time of rejected requests)": sum(r.answered - r.sent for r in rejected),
        "idle: start-up (before the first request)": 0.0,
        "idle: window below capacity (requests waited for a slot)": 0.0,
        "idle: back-off (nothing waited; items slept before a retry)": 0.0,
        "idle: tail (nothing left to send)": 0.0,
    }
    first = min(r.sent for r in trace.requests)
    events = sorted([(r.sent, 1) for r in ok] + [(r.answered, -1) for r in ok])
    asked, granted = sorted(r.asked for r in trace.requests), sorted(r.sent for r in trace.requests)
    finished = sorted(r.answered for r in ok)
    in_flight_all = sorted([(r.sent, 1) for r in trace.requests] + [(r.answered, -1) for r in trace.requests])
    t, i_ok, i_all, n_ok, n_all, i_ask, i_grant, i_done = start, 0, 0, 0, 0, 0, 0, 0
    while t < end:
        while i_ok < len(events) and events[i_ok][0] <= t:
            n_ok += events[i_ok][1]
            i_ok += 1
        while i_all < len(in_flight_all) and in_flight_all[i_all][0] <= t:
            n_all += in_flight_all[i_all][1]
            i_all += 1
        while i_ask < len(asked) and asked[i_ask] <= t:
            i_ask += 1
        while i_grant < len(granted) and granted[i_grant] <= t:
            i_grant += 1
        while i_done < len(finished) and finished[i_done] <= t:
            i_done += 1
        idle = max(0, capacity - n_ok) * STEP
        waiting = i_ask - i_grant
        sleeping = items - i_done - n_all - waiting
        if t < first:
            key = "idle: start-up (before the first request)"
        elif waiting > 0:
            key = "idle: window below capacity (requests waited for a slot)"
        elif sleeping > 0:
            key = "idle: back-off (nothing waited; items slept before a retry)"
        else:
            key = "idle: tail (nothing left to send)"
        parts[key] += idle
        t += STEP
    return Split(capacity * (end - start), parts)


def timeline(trace: Trace, start: float, end: float, bucket: float, items: int) -> list[str]:
    """One Markdown row per bucket (see the module doc)."""
    rows = ["| t (s) | window | successes in flight (mean) | 429s | answers | waiting | sleeping |",
            "|---|---|---|---|---|---|---|"]
    ok = [r for r in trace.requests if r.signal == OK]
    t = start
    while t < end:
        hi = t + bucket
        held = sum(max(0.0, min(hi, r.answered) - max(t, r.sent)) for r in ok) / bucket
        rejected = sum(1 for r in trace.requests if r.signal == OVERLOAD and t <= r.answered < hi)
        answers = sum(1 for r in ok if t <= r.answered < hi)
        before = [r for r in trace.requests if r.answered and r.answered < hi]
        window = f"{before[-1].window:.1f}" if before else "-"
        waiting = sum(1 for r in trace.requests if r.asked <= hi < r.sent)
        in_flight = sum(1 for r in trace.requests if r.sent <= hi < r.answered)
        done = sum(1 for r in ok if r.answered <= hi)
        sleeping = max(0, items - done - in_flight - waiting) if any(r.sent <= hi for r in trace.requests) else 0
        rows.append(f"| {t - start:.2f} | {window} | {held:.1f} | {rejected} | {answers} | {waiting} | {sleeping} |")
        t = hi
    return rows


def traced_run(api: Any, settings: JudgeSettings, items: int, offset: int) -> dict[str, Any]:
    """Judge ``items`` distinct items once against the running double, traced."""
    with traced() as trace:
        batch = make_items(items, offset=offset)
        api.send("reset")
        api.recv()
        cpu = time.process_time()
        start = time.monotonic()
        result = judge_all(batch, settings)
        end = time.monotonic()
        cpu = time.process_time() - cpu
    lost = sum(1 for verdict in result.verdicts if not verdict.judged)
    return {"trace": trace, "start": start, "end": end, "lost": lost, "rate_limited": result.rate_limited,
            "cpu_per_call": cpu / max(1, result.calls)}


def run(items: int, capacity: int, latency: float, retry_after: str | None, overrides: dict[str, Any]) -> dict[str, Any]:
    """Judge ``items`` distinct items once, traced; return the figures and the trace."""
    config = FaultConfig(delay=latency, capacity=capacity, retry_after=retry_after)
    with simulated_api(config) as (url, api):
        settings = JudgeSettings.from_metadata({**BASE_SETTINGS, "judge_base_url": url, **overrides})
        judge_all(make_items(capacity, offset=10_000_000), settings)  # warm-up: the HTTP stack's first import
        out = traced_run(api, settings, items, offset=0)
        api.send("timings")
        out["served"] = api.recv()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=600)
    parser.add_argument("--capacity", type=int, default=32)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--retry-after", type=retry_after_arg, default="1",
                        help="Retry-After of a 429 in seconds, or 'none' for no header")
    parser.add_argument("--bucket", type=float, default=0.25, help="seconds per timeline line")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    load = os.getloadavg()
    out = run(args.items, args.capacity, args.latency, args.retry_after, {})
    trace, start, end = out["trace"], out["start"], out["end"]
    seconds = end - start
    ceiling = args.capacity / args.latency
    ok = sorted(r.answered - r.sent for r in trace.requests if r.signal == OK)
    print(f"{args.items} items, K={args.capacity}, {args.latency * 1000:.0f} ms, Retry-After "
          f"{args.retry_after if args.retry_after is not None else 'none'}; load average {load[0]:.2f} -> "
          f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"{seconds:.2f} s, {(args.items - out['lost']) / seconds / ceiling:.3f} of capacity; "
          f"{out['rate_limited']} 429s, {out['lost']} lost; success slot time p50 {ok[len(ok) // 2] * 1000:.0f} ms, "
          f"p90 {ok[int(len(ok) * 0.9)] * 1000:.0f} ms, max {ok[-1] * 1000:.0f} ms")
    split = split_capacity(trace, args.items, args.capacity, args.latency, start, end)
    answered = [(at, done) for at, done, status in out["served"] if status == 200 and done is not None]
    at_double = sum(done - at for at, done in answered)
    held = sum(r.answered - r.sent for r in trace.requests if r.signal == OK)
    print(f"successes: the double held each {at_double / len(answered) * 1000:.1f} ms on average (its own "
          f"overhead {(at_double / len(answered) - args.latency) * 1000:.1f} ms); the client held its slot "
          f"{(held - at_double) / len(answered) * 1000:.1f} ms longer (sending, transport, reading the answer)")
    print()
    print("| where the capacity went | slot-seconds | share |")
    print("|---|---|---|")
    for name, value in split.parts.items():
        print(f"| {name} | {value:.1f} | {value / split.total:.3f} |")
    print(f"| all (K x seconds) | {split.total:.1f} | 1.000 |")
    print()
    print("\n".join(timeline(trace, start, end, args.bucket, args.items)))


if __name__ == "__main__":
    main()
