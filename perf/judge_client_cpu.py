"""The judge client's CPU per request against a bare aiohttp client's, in one process.

Both send the same requests (the judge's own request bodies for the same items) to the
latency-and-limit double of ``perf/judge_throughput.py`` (a child process: K requests in
flight, a fixed latency, 429 with ``Retry-After`` above K), alternating, after an
untimed warm-up of each:

- ``judge``: :func:`~uta_tasks.judge.judge_all` at its default settings (the adaptive
  window; its 429s are requests too), no cache;
- ``bare aiohttp``: one ``aiohttp.ClientSession``, a fixed window of K, each answer read
  as JSON and its message content taken; a 429 is sent again after its ``Retry-After``.

The figure is the process's CPU time (every thread) / requests sent, per run; the ratio
is the median of the judge's over the median of the bare client's (goal at most 1.5,
issue 45 item 3). The machine's load average is printed with it. Run from the
repository root::

    PYTHONPATH=$PWD python perf/judge_client_cpu.py [--items 600] [--rounds 3] [--capacity 32]
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import time
from dataclasses import dataclass
from typing import Any

from _bare_client import bare_run, request_bodies
from judge_throughput import BASE_SETTINGS, FaultConfig, make_items, simulated_api

from uta_tasks.judge import JudgeSettings, judge_all

GOAL = 1.5
LATENCY = 0.3
RETRY_AFTER = "1"


@dataclass
class Side:
    """One run: CPU seconds, requests sent, verdicts (or answers) lost."""

    cpu: float
    requests: int
    lost: int

    @property
    def per_request_ms(self) -> float:
        return self.cpu / max(1, self.requests) * 1000


def judge_side(url: str, items: int, offset: int) -> Side:
    """The judge on ``items`` distinct items."""
    settings = JudgeSettings.from_metadata({**BASE_SETTINGS, "judge_base_url": url})
    batch = make_items(items, offset=offset)
    cpu = time.process_time()
    run = judge_all(batch, settings)
    cpu = time.process_time() - cpu
    return Side(cpu, run.calls, sum(1 for verdict in run.verdicts if not verdict.judged))


def bare_side(url: str, bodies: list[dict[str, Any]], window: int) -> Side:
    """The bare aiohttp client (``perf/_bare_client.py``) with a fixed window on the same bodies."""
    run = bare_run(url, bodies, window)
    return Side(run.cpu, run.requests, run.lost)


def measure(items: int, rounds: int, capacity: int) -> tuple[list[Side], list[Side], list[float]]:
    """Alternating rounds of both sides against one double (each round on new items)."""
    config = FaultConfig(delay=LATENCY, capacity=capacity, retry_after=RETRY_AFTER)
    judge: list[Side] = []
    bare: list[Side] = []
    load = [os.getloadavg()[0]]
    with simulated_api(config) as (url, api):
        settings = JudgeSettings.from_metadata({**BASE_SETTINGS, "judge_base_url": url})
        judge_side(url, capacity, offset=90_000_000)  # warm-up: imports, the first client
        bare_side(url, request_bodies(settings, make_items(capacity, offset=91_000_000)), capacity)
        for round_ in range(rounds):
            bodies = request_bodies(settings, make_items(items, offset=(2 * round_ + 1) * 1_000_000))
            order = ("judge", "bare") if round_ % 2 == 0 else ("bare", "judge")
            for side in order:
                api.send("reset")
                api.recv()
                if side == "judge":
                    judge.append(judge_side(url, items, offset=2 * round_ * 1_000_000))
                else:
                    bare.append(bare_side(url, bodies, capacity))
                print(f"round {round_ + 1}/{rounds} {side}: "
                      f"{(judge if side == 'judge' else bare)[-1].per_request_ms:.2f} ms per request", flush=True)
            load.append(os.getloadavg()[0])
    return judge, bare, load


def _figures(judge: list[Side], bare: list[Side], load: list[float], items: int, capacity: int) -> tuple[float, str]:
    ratio = statistics.median(s.per_request_ms for s in judge) / statistics.median(s.per_request_ms for s in bare)
    note = (f"{items} items, K={capacity}, {LATENCY * 1000:.0f} ms, Retry-After {RETRY_AFTER}, {len(judge)} alternating "
            f"rounds; client CPU ms per request: judge {', '.join(f'{s.per_request_ms:.2f}' for s in judge)} "
            f"({sum(s.requests for s in judge)} requests, {sum(s.lost for s in judge)} lost), bare aiohttp window "
            f"{capacity} {', '.join(f'{s.per_request_ms:.2f}' for s in bare)} ({sum(s.requests for s in bare)} requests, "
            f"{sum(s.lost for s in bare)} lost); load average {' -> '.join(f'{v:.2f}' for v in load)} "
            f"on {os.cpu_count()} cores")
    return ratio, note


def bench() -> list[dict]:
    """The ``make bench`` row: judge client CPU per request / bare aiohttp's."""
    logging.basicConfig(level=logging.ERROR)
    judge, bare, load = measure(600, 3, 32)
    ratio, note = _figures(judge, bare, load, 600, 32)
    return [{"name": "judge client CPU per request / bare aiohttp's", "ratio": ratio, "goal": GOAL,
             "direction": "at most", "note": note}]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--capacity", type=int, default=32)
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    judge, bare, load = measure(args.items, args.rounds, args.capacity)
    ratio, note = _figures(judge, bare, load, args.items, args.capacity)
    print(f"judge client CPU per request / bare aiohttp's: {ratio:.2f} (goal at most {GOAL})")
    print(note)


if __name__ == "__main__":
    main()
