"""A bare aiohttp client: the judge's own request bodies sent through one
``aiohttp.ClientSession`` with a fixed window, each answer read as JSON and its message
content taken; a 429 is sent again after its ``Retry-After``. What a hand-written client
that knows the endpoint's capacity reaches on this machine: the benchmarks' yardstick for
the judge client's CPU (``judge_client_cpu.py``) and its throughput on a loaded machine
(``judge_throughput.py``).
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any

import aiohttp

from uta_tasks.judge import JudgeItem, JudgeSettings
from uta_tasks.judge.params import RequestParams
from uta_tasks.judge.prompt import load_template

MAX_SENDS = 20  # a request refused this often is lost


@dataclass
class BareRun:
    """One run of the bare client.

    Attributes:
        seconds: wall seconds.
        cpu: this process's CPU seconds (every thread).
        requests: requests sent, 429s included.
        lost: bodies that got no answer in :data:`MAX_SENDS` sends.
        answers: bodies answered.
    """

    seconds: float
    cpu: float
    requests: int
    lost: int
    answers: int

    @property
    def per_second(self) -> float:
        """Answers per second."""
        return self.answers / self.seconds


def request_bodies(settings: JudgeSettings, items: list[JudgeItem]) -> list[dict[str, Any]]:
    """The bodies the judge with ``settings`` sends for ``items``."""
    template, params = load_template(settings.prompt), RequestParams(settings)
    return [params.build(template.render(item)) for item in items]


async def _send_all(url: str, bodies: list[dict[str, Any]], window: int) -> tuple[int, int]:
    sent = lost = 0
    gate = asyncio.Semaphore(window)
    async with aiohttp.ClientSession() as session:

        async def one(body: dict[str, Any]) -> None:
            nonlocal sent, lost
            for _ in range(MAX_SENDS):
                async with gate:
                    sent += 1
                    async with session.post(f"{url}/chat/completions", json=body) as response:
                        data = await response.read()
                        wait = float(response.headers.get("Retry-After", "1")) if response.status == 429 else None
                if wait is None:
                    _ = json.loads(data)["choices"][0]["message"]["content"]
                    return
                await asyncio.sleep(wait)
            lost += 1

        await asyncio.gather(*(one(body) for body in bodies))
    return sent, lost


def bare_run(url: str, bodies: list[dict[str, Any]], window: int) -> BareRun:
    """Send ``bodies`` with a fixed window of ``window`` requests in flight; time it."""
    cpu, start = time.process_time(), time.perf_counter()
    sent, lost = asyncio.run(_send_all(url, bodies, window))
    return BareRun(time.perf_counter() - start, time.process_time() - cpu, sent, lost, len(bodies) - lost)
