"""The judge's HTTP clients: one per endpoint for a whole process run.

A run judges its records in several batches (:func:`~.runner.judge_all` once per batch
and judge setting). A client is bound to the event loop of its first request, and each
``asyncio.run`` makes a new loop, so each batch used to build its own SDK client,
aiohttp session and TLS context. The batches now run on one event loop that lives, for
the process, in a thread of its own (:func:`run`), and the clients live on that loop
(:func:`shared_client`): one per base URL, API key and timeout, closed when the process
exits (or by :func:`shutdown`). What a judge run learns about its endpoint (the window,
adjusted parameters) stays with its :class:`~.client.JudgeClient`, one per run.

An ``http://`` URL gets no TLS context: the SDK's aiohttp client builds one from its
``verify`` argument (``True``: the system's CA store, read again for every client) and
hands it to aiohttp's ``TCPConnector(ssl=...)``. For a plain-http URL ``verify`` is
None instead: httpx's ``create_ssl_context`` returns a ``verify`` that is neither a
bool nor a path as it is, and aiohttp reads ``ssl=None`` as its default (contexts it
made once, at its import), which a plain-http connection never uses.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import os
import threading
from collections.abc import Coroutine
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, TypeVar
from urllib.parse import urlsplit

import openai

log = logging.getLogger(__name__)

T = TypeVar("T")
CLOSE_SECONDS = 10.0  # bound on closing the clients at exit
_ClientKey = tuple[str, str | None, float]


class _JudgeLoop:
    """An event loop running in a daemon thread, and the clients that live on it."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.loop = asyncio.new_event_loop()
        self.clients: dict[_ClientKey, openai.AsyncOpenAI] = {}
        self.thread = threading.Thread(target=self.loop.run_forever, name="uta-judge-loop", daemon=True)
        self.thread.start()

    def submit(self, coro: Coroutine[Any, Any, T]) -> asyncio.Future[T]:
        return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self.loop))

    def stop(self) -> None:
        future = asyncio.run_coroutine_threadsafe(self._close_clients(), self.loop)
        try:
            future.result(timeout=CLOSE_SECONDS)
        except (FutureTimeout, Exception) as exc:  # noqa: BLE001 - closing must not fail the exit
            log.debug("judge clients not closed cleanly: %s", exc)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=CLOSE_SECONDS)
        if not self.thread.is_alive():
            self.loop.close()

    async def _close_clients(self) -> None:
        clients, self.clients = list(self.clients.values()), {}
        for client in clients:
            await client.close()


_lock = threading.Lock()
_current: _JudgeLoop | None = None


def _judge_loop() -> _JudgeLoop:
    global _current
    with _lock:
        if _current is None or _current.pid != os.getpid():  # a forked child starts its own
            _current = _JudgeLoop()
        return _current


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on the judge loop and wait for its result (from any thread but the
    loop's own, whether or not that thread runs a loop). Interrupting the wait (Ctrl-C)
    cancels it.

    Args:
        coro: The coroutine.
    """
    judge_loop = _judge_loop()
    if threading.current_thread() is judge_loop.thread:
        coro.close()
        raise RuntimeError("judge_all was called from the judge's own event loop: await ajudge_all instead")
    future = asyncio.run_coroutine_threadsafe(coro, judge_loop.loop)
    try:
        return future.result()
    except BaseException:
        future.cancel()
        raise


async def arun(coro: Coroutine[Any, Any, T]) -> T:
    """Await ``coro`` run on the judge loop (the caller's own loop stays free meanwhile).

    Args:
        coro: The coroutine.
    """
    judge_loop = _judge_loop()
    if asyncio.get_running_loop() is judge_loop.loop:
        return await coro
    return await judge_loop.submit(coro)


def shared_client(base_url: str, secret: str | None, timeout: float) -> openai.AsyncOpenAI | None:
    """The process's SDK client for this endpoint, key and timeout (made on first use);
    None when the caller does not run on the judge loop (it then makes its own).

    Args:
        base_url: The endpoint.
        secret: The API key sent to it (None: none).
        timeout: Seconds per request.
    """
    judge_loop = _current
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        return None
    if judge_loop is None or running is not judge_loop.loop:
        return None
    key = (base_url, secret, timeout)
    if key not in judge_loop.clients:
        judge_loop.clients[key] = new_client(base_url, secret, timeout)
    return judge_loop.clients[key]


def new_client(base_url: str, secret: str | None, timeout: float) -> openai.AsyncOpenAI:
    """An SDK client on aiohttp, with the SDK's retries off (the judge retries itself).

    Args:
        base_url: The endpoint.
        secret: The API key (None: none).
        timeout: Seconds per request.
    """
    plain: dict[str, Any] = {"verify": None} if urlsplit(base_url).scheme == "http" else {}  # see the docstring
    return openai.AsyncOpenAI(
        api_key=secret or "no-key",
        base_url=base_url,
        max_retries=0,
        timeout=timeout,
        http_client=openai.DefaultAioHttpClient(timeout=timeout, **plain),
    )


def shutdown() -> None:
    """Close the process's judge clients and stop their loop (at exit; tests call it to
    leave nothing to the next test). The next judge run starts a new loop."""
    global _current
    with _lock:
        judge_loop, _current = _current, None
    if judge_loop is not None and judge_loop.pid == os.getpid():
        judge_loop.stop()


atexit.register(shutdown)
