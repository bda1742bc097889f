"""Judge throughput against a simulated remote API: fixed concurrency vs the adaptive window.

The endpoint is the fault double of ``tests/judge/fault_server.py`` on 127.0.0.1, in a
child process (its threads must not compete with the client for the GIL), with a
fixed latency per answer and a capacity of K requests in flight; a request above K is
answered at once with HTTP 429 and ``Retry-After``. Its ceiling is K / latency items/s.
In one process, on distinct items of the same shape (no judge cache), it runs:

- ``fixed 8``: the old default, a fixed window of 8 (the baseline);
- ``fixed 64, old retries``: a fixed window of 64 where every 429 uses up one of the
  item's retries (``judge_rate_limit_wait=0``, the client before adaptive concurrency);
- ``fixed 64``: a fixed window of 64 with the rate-limit budget (429s are free retries);
- ``adaptive``: the default settings (``judge_concurrency`` and ``judge_concurrency_max``);
- ``adaptive, start N`` with ``--also-start N``: the same with another first window.

It prints, per run: seconds, verdicts/s (judged items per second: a lost verdict does
not count), that divided by K / latency (goal >= 0.9 for the adaptive window in every
round, on an idle machine; ``fixed 64`` shows what the client reaches by brute force on
this machine, so a loaded machine lowers both), the 429s
the server sent, the verdicts lost (goal 0), calls and the peak window. The machine's
load average is printed too: the client and the double share its cores, so other
processes lower every figure. Run from the repository root::

    PYTHONPATH=$PWD python perf/judge_throughput.py [--items 600] [--capacity 32] [--latency 0.3]
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "judge"))

from fault_server import MODEL, FaultConfig, FaultServer, expected_verdict  # noqa: E402

from uta_tasks.judge import JudgeItem, JudgeSettings, judge_all  # noqa: E402

BASE_SETTINGS: dict[str, Any] = {
    "judge_model": MODEL, "judge_cache": "none", "judge_timeout": 30, "judge_max_retries": 4,
    "judge_backoff_base": 1, "judge_max_tokens": 256,
}
RUNS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("fixed 8", {"judge_concurrency": 8, "judge_concurrency_max": 8}),
    ("fixed 64, old retries", {"judge_concurrency": 64, "judge_concurrency_max": 64, "judge_rate_limit_wait": 0}),
    ("fixed 64", {"judge_concurrency": 64, "judge_concurrency_max": 64}),
    ("adaptive", {}),
)


def retry_after_arg(value: str) -> str | None:
    """``--retry-after``: seconds, or ``none`` for 429s without the header."""
    return None if value.lower() == "none" else value


def _serve(config: FaultConfig, conn: Connection) -> None:
    """Child process: run the double and answer ``"reset"``, ``"count"`` and ``"timings"`` over ``conn``."""
    with FaultServer(config) as server:
        conn.send(server.base_url)
        while True:
            command = conn.recv()
            if command == "reset":
                server.reset_counts()
                conn.send(None)
            elif command == "count":
                conn.send(server.served["capacity_429"])
            elif command == "timings":
                conn.send([(r.at, r.answered, r.status) for r in server.chat_requests()])
            else:
                return


@contextmanager
def simulated_api(config: FaultConfig) -> Iterator[tuple[str, Connection]]:
    """The double in its own process (so its threads do not compete with the client for the GIL).

    Args:
        config: Latency, capacity and Retry-After of the simulated API.

    Yields:
        Its base URL and the command connection.
    """
    parent, child = multiprocessing.Pipe()
    process = multiprocessing.get_context("fork").Process(target=_serve, args=(config, child), daemon=True)
    process.start()
    try:
        if not parent.poll(30):
            raise RuntimeError("the simulated API did not start within 30 s")
        yield parent.recv(), parent
    finally:
        parent.send("stop")
        process.join(timeout=10)
        if process.is_alive():
            process.terminate()


def make_items(count: int, offset: int) -> list[JudgeItem]:
    """``count`` distinct items; every other user turn is a question.

    Args:
        count: How many.
        offset: Shifts the numbers so that two runs never share an item.
    """
    items = []
    for index in range(offset, offset + count):
        question = f"A train travels {50 + index} km in 3 hours. What is its average speed?"
        answer = f"Its average speed is {50 + index} / 3 = {(50 + index) / 3:.1f} km/h."
        user_turn = f"Why divide {50 + index} by 3?" if index % 2 == 0 else question
        items.append(JudgeItem(context=(("user", question), ("assistant", answer)), user_turn=user_turn))
    return items


@dataclass
class Measurement:
    """One timed run."""

    name: str
    items: int
    seconds: float
    calls: int
    rejected: int
    lost: int
    wrong: int
    peak: int

    @property
    def per_second(self) -> float:
        """Verdicts obtained per second (a lost verdict does not count)."""
        return (self.items - self.lost) / self.seconds

    def ratio(self, ceiling: float) -> float:
        """Verdicts/s as a share of the endpoint's ceiling (items/s)."""
        return self.per_second / ceiling


def measure(name: str, api: Connection, items: list[JudgeItem], metadata: dict[str, Any]) -> Measurement:
    """Judge ``items`` once against the simulated API and time it.

    Args:
        name: Row name.
        api: Command connection of the simulated API.
        items: The items.
        metadata: Judge settings of this run.
    """
    api.send("reset")
    api.recv()
    settings = JudgeSettings.from_metadata(metadata)
    start = time.perf_counter()
    run = judge_all(items, settings)
    seconds = time.perf_counter() - start
    lost = sum(1 for verdict in run.verdicts if not verdict.judged)
    wrong = sum(
        1 for item, verdict in zip(items, run.verdicts, strict=True)
        if verdict.judged and verdict.label != expected_verdict(item.user_turn)["label"]
    )
    api.send("count")
    rejected = api.recv()
    if rejected != run.rate_limited:
        raise RuntimeError(f"{name}: the server sent {rejected} 429s but the client counted {run.rate_limited}")
    return Measurement(name, len(items), seconds, run.calls, rejected, lost, wrong, run.window_peak)


# Idle runs of 1,200 items, not 600 (until issue 55): K=32 at 300 ms serves 600 items in 19 round
# trips whose last holds 24 of 32 slots, so a run that leaves 9 slots empty anywhere (the near-end
# margin of judge.concurrency alone leaves 6-8) takes a 20th round trip for its last items: 0.928 of
# capacity against 0.97, in 2 runs of 25 on an idle machine. At 1,200 items (38 round trips) one
# more costs 2.6%, so the ratio measures the judge's throughput, not where a run's last slot falls.
BENCH_CASES: tuple[tuple[int, str | None, int], ...] = ((1200, "1", 0), (1200, None, 0), (2400, "1", 0), (600, "1", 2))
BENCH_GOAL = 0.95  # issue 55 item 2 (0.9 until then)
BUSY_GOAL = 0.85  # with two CPU-bound processes beside the client and the double (issue 55; 0.8 from issue 45)
LOADED_HOGS = 4  # with the client and the double: load 4-6 on 2 cores (issue 55 item 2)
LOADED_GOAL = None  # shown beside the bare client's figure (issue 55 item 2 sets no goal at load 4-6)
LOADED_BARE_GOAL = 0.9  # the judge keeps up with a hand-written client that knows K, at the same load


@contextmanager
def cpu_hogs(count: int) -> Iterator[list[float]]:
    """``count`` CPU-bound processes (a Python loop each) running until the block ends; the
    list it yields gets, at the end, their CPU seconds and the block's wall seconds (the
    load average lags behind a run of a few seconds: this says the hogs did run). Their CPU
    seconds are what reaping them adds to this process's children's times (``os.times``).

    Args:
        count: How many (0: none).
    """
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    figures: list[float] = []
    start = time.perf_counter()
    try:
        yield figures
    finally:
        wall, before = time.perf_counter() - start, os.times()
        for hog in hogs:
            hog.kill()
            hog.wait()
        after = os.times()
        figures += [after.children_user + after.children_system - before.children_user - before.children_system,
                    wall]


class Runnable:
    """Samples the kernel's count of runnable tasks (``/proc/loadavg``'s fourth field, the
    sampler itself included) every 50 ms while the block runs: the load during a run of a few
    seconds, which the one-minute load average only approaches."""

    def __init__(self) -> None:
        self.samples: list[int] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(0.05):
            try:
                self.samples.append(int(Path("/proc/loadavg").read_text().split()[3].split("/")[0]))
            except (OSError, ValueError, IndexError):
                return

    def __enter__(self) -> Runnable:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=1)

    @property
    def mean(self) -> float | None:
        """The mean count, or None where ``/proc/loadavg`` cannot be read."""
        return statistics.fmean(self.samples) if self.samples else None


def loaded_rows(repeats: int = 3, capacity: int = 32, latency: float = 0.3,
                hogs: int = LOADED_HOGS) -> tuple[list[dict[str, Any]], int, int]:
    """600 items at load 4-6 (``hogs`` CPU-bound processes beside the client and the double),
    the judge at its default settings and the bare aiohttp client of ``_bare_client.py`` (a
    fixed window of K: it knows the endpoint's capacity) in alternating runs, each on new
    items, after a warm-up of each: the judge's worst run against the endpoint's ceiling,
    and the judge's median verdicts/s against the bare client's median answers/s.

    Returns:
        The two rows, and the judge's verdicts lost and items.
    """
    from _bare_client import bare_run, request_bodies

    ceiling = capacity / latency
    config = FaultConfig(delay=latency, capacity=capacity, retry_after="1")
    judged: list[Measurement] = []
    bare = []
    with simulated_api(config) as (url, api), cpu_hogs(hogs) as hog_figures:
        metadata = {**BASE_SETTINGS, "judge_base_url": url}
        settings = JudgeSettings.from_metadata(metadata)
        judge_all(make_items(capacity, offset=80_000_000), settings)  # warm-ups
        bare_run(url, request_bodies(settings, make_items(capacity, offset=81_000_000)), capacity)
        load = [os.getloadavg()[0]]
        with Runnable() as runnable:
            for repeat in range(repeats):
                for side in ("judge", "bare") if repeat % 2 == 0 else ("bare", "judge"):
                    batch = make_items(600, offset=(70 + 2 * repeat + (side == "bare")) * 1_000_000)
                    if side == "judge":
                        judged.append(measure("adaptive", api, batch, metadata))
                    else:
                        bare.append(bare_run(url, request_bodies(settings, batch), capacity))
                load.append(os.getloadavg()[0])
    judge_rate = statistics.median(m.per_second for m in judged)
    bare_rate = statistics.median(b.per_second for b in bare)
    during = "" if runnable.mean is None else f"; runnable tasks during the runs {runnable.mean:.1f} on average"
    bare_429s = sum(b.requests - b.answers for b in bare)
    note = (f"{hogs} CPU-bound processes beside the client and the double; load average "
            f"{' -> '.join(f'{value:.1f}' for value in load)}{during}; the hogs took {hog_figures[0]:.0f} CPU s in "
            f"{hog_figures[1]:.0f} s; judge {' / '.join(f'{m.ratio(ceiling):.3f}' for m in judged)} of the ceiling "
            f"({sum(m.rejected for m in judged)} 429s, {sum(m.lost for m in judged)} lost), bare aiohttp window "
            f"{capacity} {' / '.join(f'{b.per_second / ceiling:.3f}' for b in bare)} ({bare_429s} 429s, "
            f"{sum(b.lost for b in bare)} lost); K={capacity}, "
            f"{latency * 1000:.0f} ms, ceiling {ceiling:.1f}/s")
    return [
        {"name": "judge at default settings / endpoint capacity, 600 items, load 4-6", "ratio":
         min(m.ratio(ceiling) for m in judged), "goal": LOADED_GOAL, "direction": "at least", "note": note},
        {"name": "judge verdicts/s / bare aiohttp answers/s, 600 items, load 4-6 (medians)",
         "ratio": judge_rate / bare_rate, "goal": LOADED_BARE_GOAL, "direction": "at least", "note": note},
    ], sum(m.lost for m in judged), sum(m.items for m in judged)


def bench(repeats: int = 3, capacity: int = 32, latency: float = 0.3) -> list[dict[str, Any]]:
    """``make bench`` rows (perf/README.md): the default settings against the endpoint's ceiling.

    For 1,200 and 2,400 items with ``Retry-After: 1`` and 1,200 without a ``Retry-After``
    (:data:`BENCH_CASES`), ``repeats`` runs each, and 600 items with ``Retry-After: 1`` while
    two CPU-bound processes run beside the client and the double (:func:`cpu_hogs`; goal
    :data:`BUSY_GOAL`); the ratio is the worst run's verdicts/s / (K / latency) (the goal
    holds in every run or not at all). Then :func:`loaded_rows` (load 4-6, beside the bare
    aiohttp client), and one row counts the verdicts lost in all.
    """
    ceiling = capacity / latency
    rows: list[dict[str, Any]] = []
    lost = items = 0
    for case, (count, retry_after, hogs) in enumerate(BENCH_CASES):
        config = FaultConfig(delay=latency, capacity=capacity, retry_after=retry_after)
        with simulated_api(config) as (url, api), cpu_hogs(hogs) as hog_figures:
            metadata = {**BASE_SETTINGS, "judge_base_url": url}
            judge_all(make_items(capacity, offset=90_000_000), JudgeSettings.from_metadata(metadata))  # warm-up
            load = [os.getloadavg()[0]]
            runs = []
            for repeat in range(repeats):
                batch = make_items(count, offset=(case * repeats + repeat) * 100_000)
                runs.append(measure("adaptive", api, batch, metadata))
                load.append(os.getloadavg()[0])
        lost += sum(m.lost for m in runs)
        items += sum(m.items for m in runs)
        header = "no Retry-After" if retry_after is None else f"Retry-After: {retry_after}"
        busy = f", {hogs} CPU-bound processes beside it" if hogs else ""
        hogged = f"; the {hogs} hogs took {hog_figures[0]:.0f} CPU s in {hog_figures[1]:.0f} s" if hogs else ""
        rows.append({
            "name": f"judge at default settings / endpoint capacity, {count} items, 429 with {header}{busy}",
            "ratio": min(m.ratio(ceiling) for m in runs), "goal": BUSY_GOAL if hogs else BENCH_GOAL,
            "direction": "at least",
            "note": f"worst of {repeats}: {' / '.join(f'{m.ratio(ceiling):.3f}' for m in runs)}; "
                    f"{sum(m.rejected for m in runs)} 429s; K={capacity}, {latency * 1000:.0f} ms, ceiling "
                    f"{ceiling:.1f}/s; load average {' -> '.join(f'{value:.1f}' for value in load)}{hogged}",
        })
    loaded, loaded_lost, loaded_items = loaded_rows(repeats, capacity, latency)
    rows += loaded
    lost, items = lost + loaded_lost, items + loaded_items
    rows.append({"name": "judge: verdicts lost / items (all runs above)", "ratio": lost / items, "goal": 0.0,
                 "direction": "at most", "note": f"{lost} of {items}"})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=600, help="items per run")
    parser.add_argument("--capacity", type=int, default=32, help="K: requests the endpoint serves at once")
    parser.add_argument("--latency", type=float, default=0.3, help="seconds per answer")
    parser.add_argument("--retry-after", type=retry_after_arg, default="1",
                        help="Retry-After header of a 429 (seconds), or 'none' for no header")
    parser.add_argument("--repeats", type=int, default=3, help="rounds of the four runs (the median is reported)")
    parser.add_argument("--also-start", type=int, action="append", default=[], metavar="N",
                        help="add an adaptive run whose window starts at N (judge_concurrency; repeatable)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    ceiling = args.capacity / args.latency
    config = FaultConfig(delay=args.latency, capacity=args.capacity, retry_after=args.retry_after)
    base = dict(BASE_SETTINGS)
    runs = RUNS + tuple((f"adaptive, start {n}", {"judge_concurrency": n}) for n in args.also_start)
    results: dict[str, list[Measurement]] = {name: [] for name, _ in runs}
    load_before = os.getloadavg()[0]
    with simulated_api(config) as (url, api):
        base["judge_base_url"] = url
        for repeat in range(args.repeats):
            for index, (name, overrides) in enumerate(runs):
                items = make_items(args.items, offset=(repeat * len(runs) + index) * 100_000)
                results[name].append(measure(name, api, items, {**base, **overrides}))
    load_after = os.getloadavg()[0]
    print(f"simulated API: K={args.capacity} in flight, {args.latency * 1000:.0f} ms per answer, 429 with "
          f"Retry-After: {args.retry_after} above K; ceiling {ceiling:.1f} items/s; {args.items} items per run, "
          f"{args.repeats} round(s); load average {load_before:.1f} -> {load_after:.1f} on {os.cpu_count()} cores")
    print("| run | round | seconds | verdicts/s | verdicts/s / (K/latency) | 429s | verdicts lost | wrong | calls "
          "| peak window |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, rows in results.items():
        for repeat, m in enumerate(rows, start=1):
            print(f"| {name} | {repeat} | {m.seconds:.1f} | {m.per_second:.1f} | {m.ratio(ceiling):.2f} | {m.rejected} "
                  f"| {m.lost} | {m.wrong} | {m.calls} | {m.peak} |")
    print()
    print("| run | median verdicts/s / (K/latency) | range | 429s (all rounds) | verdicts lost (all rounds) |")
    print("|---|---|---|---|---|")
    medians = {}
    for name, rows in results.items():
        ratios = [m.ratio(ceiling) for m in rows]
        medians[name] = statistics.median(ratios)
        print(f"| {name} | {medians[name]:.2f} | {min(ratios):.2f}-{max(ratios):.2f} "
              f"| {sum(m.rejected for m in rows)} | {sum(m.lost for m in rows)} |")
    print(f"adaptive / fixed 8 (medians): {medians['adaptive'] / medians['fixed 8']:.2f}x")


if __name__ == "__main__":
    main()
