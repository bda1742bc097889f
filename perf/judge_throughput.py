"""Judge throughput at a given concurrency vs one request at a time, against the local
llama-server (embedded SmolLM2), in one process. Prints items/s for both and the ratio.

    python perf/judge_throughput.py [--items 16] [--concurrency 8]

Fairness: both runs use the same server, distinct but same-shaped items (so neither
run hits the other's prompt cache), no judge cache, and every server slot is first
primed with the shared system prompt by an untimed warm-up round. The baseline runs
first. On a CPU the judge prompt's prefill dominates and does not gain from batching,
so the ratio measures decode batching; against a remote API, where a request mostly
waits on the network, concurrency gains far more.
"""

from __future__ import annotations

import argparse
import logging
import os
import time
from dataclasses import dataclass

from uta_tasks.judge import JudgeItem, JudgeSettings, judge_all
from uta_tasks.judge.local_server import MODEL_ALIAS, default_threads, llama_server

_QUESTIONS = (
    ("{n} apples are shared by {k} children. How many does each child get, and how many are left?",
     "Each child gets {q} apples and {r} are left over, because {k} x {q} + {r} = {n}.",
     "Why is the remainder {r} and not {r1}?"),
    ("A train travels {n} km in {k} hours. What is its average speed?",
     "Its average speed is {n} / {k} = {s:.1f} km/h.",
     "A train travels {n} km in {k} hours. What is its average speed?"),
    ("Write a two-line poem about the number {n}.",
     "{n} steps up the hill,\n{k} more and we rest.",
     "Can you make it rhyme and mention {k} again?"),
    ("List {k} prime numbers larger than {n}.",
     "Here are {k} primes larger than {n}: (list follows).",
     ""),
)


def make_items(count: int, offset: int) -> list[JudgeItem]:
    """``count`` distinct judge items of a few realistic shapes.

    Args:
        count: How many.
        offset: Shifts the numbers so that two sets never share an item.
    """
    items = []
    for index in range(count):
        n, k = 50 + 7 * (index + offset), 3 + (index + offset) % 5
        values = {"n": n, "k": k, "q": n // k, "r": n % k, "r1": n % k + 1, "s": n / k}
        question, answer, user_turn = (part.format(**values) for part in _QUESTIONS[index % len(_QUESTIONS)])
        items.append(JudgeItem(context=(("user", question), ("assistant", answer)), user_turn=user_turn))
    return items


@dataclass
class Measurement:
    """One timed run."""

    concurrency: int
    items: int
    seconds: float
    calls: int
    input_tokens: int
    output_tokens: int
    unjudged: int

    @property
    def items_per_second(self) -> float:
        return self.items / self.seconds


def measure(items: list[JudgeItem], settings: JudgeSettings) -> Measurement:
    """Judge ``items`` once and time it.

    Args:
        items: The items.
        settings: Settings (concurrency included).
    """
    start = time.perf_counter()
    run = judge_all(items, settings)
    seconds = time.perf_counter() - start
    return Measurement(settings.concurrency, len(items), seconds, run.calls, run.input_tokens,
                       run.output_tokens, run.unjudged)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=16, help="items per timed run")
    parser.add_argument("--concurrency", type=int, default=JudgeSettings().concurrency)
    parser.add_argument("--threads", type=int, default=default_threads(), help="llama-server threads")
    parser.add_argument("--max-tokens", type=int, default=300)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    parallel = max(args.concurrency, 1)
    with llama_server(parallel=parallel, ctx_size=2048 * parallel, threads=args.threads) as url:
        def settings(concurrency: int) -> JudgeSettings:
            return JudgeSettings.from_metadata({
                "judge_base_url": url, "judge_model": MODEL_ALIAS, "judge_cache": "none",
                "judge_concurrency": concurrency, "judge_timeout": 900, "judge_max_retries": 1,
                "judge_max_tokens": args.max_tokens,
            })

        load_before = os.getloadavg()[0]
        measure(make_items(parallel, offset=10_000), settings(parallel))  # prime every slot, untimed
        baseline = measure(make_items(args.items, offset=0), settings(1))
        concurrent = measure(make_items(args.items, offset=1_000), settings(args.concurrency))
        load_after = os.getloadavg()[0]

    print(f"llama-server {MODEL_ALIAS}: {parallel} slots, {args.threads} thread(s); "
          f"load average {load_before:.1f} -> {load_after:.1f} on {os.cpu_count()} cores")
    print(f"{'concurrency':>11} {'items':>5} {'seconds':>8} {'items/s':>8} {'calls':>5} "
          f"{'in tok':>7} {'out tok':>7} {'unjudged':>8}")
    for m in (baseline, concurrent):
        print(f"{m.concurrency:>11} {m.items:>5} {m.seconds:>8.1f} {m.items_per_second:>8.3f} {m.calls:>5} "
              f"{m.input_tokens:>7} {m.output_tokens:>7} {m.unjudged:>8}")
    ratio = concurrent.items_per_second / baseline.items_per_second
    print(f"throughput ratio (concurrency {args.concurrency} / concurrency 1): {ratio:.2f}x")


if __name__ == "__main__":
    main()
