"""The judge's HTTP sessions: one per endpoint for a whole process run.

A run judges its records in several batches (:func:`~.runner.judge_all` once per batch
and judge setting). An HTTP session is bound to the event loop of its first request, and
each ``asyncio.run`` makes a new loop, so each batch used to build its own client. The
batches now run on one event loop that lives, for the process, in a thread of its own
(:func:`run`), and the sessions live on that loop (:func:`shared_endpoint`): one per base
URL, API key and timeout, closed when the process exits (or by :func:`shutdown`). What a
judge run learns about its endpoint (the window, adjusted parameters) stays with its
:class:`~.client.JudgeClient`, one per run.

A judge request goes through an ``aiohttp.ClientSession`` of its own (:class:`Endpoint`),
the way lm-eval's API models send theirs, not through the ``openai`` SDK: the SDK's
request and response layers (its options model, an httpx request and response wrapped
around aiohttp's) cost about three times the client CPU of aiohttp alone per request
(``perf/judge_client_cpu.py``), and that CPU decides how long a slot the endpoint has
freed stays empty when a window of answers comes back together. The one-off calls of the
preflight and the batch API stay on the SDK. The session sends what the SDK would: the
key as ``Authorization: Bearer``, JSON, and to OpenAI's own API the organization and
project the SDK reads from ``OPENAI_ORG_ID`` and ``OPENAI_PROJECT_ID``; it goes through
the proxy the environment names (``HTTPS_PROXY``, ``HTTP_PROXY``, ``ALL_PROXY``, less
``NO_PROXY``), as httpx does, read once per endpoint (aiohttp's ``trust_env`` reads the
variables and ``~/.netrc`` again in a worker thread for every request). It builds no TLS
context of its own: aiohttp's verified default context, made once at its import, serves
every https URL, and a plain-http connection uses none.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import os
import threading
from collections.abc import Coroutine, Mapping
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import aiohttp
import yarl
from aiohttp.helpers import get_env_proxy_for_url

from uta_tasks import __version__

from .urls import is_openai_api

log = logging.getLogger(__name__)

T = TypeVar("T")
CLOSE_SECONDS = 10.0  # bound on closing the clients at exit
_ClientKey = tuple[str, str | None, float]


class _JudgeLoop:
    """An event loop running in a daemon thread, and the clients that live on it."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.loop = asyncio.new_event_loop()
        self.clients: dict[_ClientKey, Endpoint] = {}
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


@dataclass(frozen=True)
class Reply:
    """One HTTP answer, read whole.

    Attributes:
        status: The HTTP status.
        headers: Its headers (case-insensitive).
        body: Its body.
    """

    status: int
    headers: Mapping[str, str]
    body: bytes


class Endpoint:
    """An OpenAI-compatible endpoint's chat completions, over one aiohttp session (see the
    module docstring), opened by the first request, on the event loop that sends them all.

    Args:
        base_url: The endpoint (``.../v1``).
        secret: The API key sent to it (None: none).
        timeout: Seconds per request, from sending to the whole answer read.
    """

    def __init__(self, base_url: str, secret: str | None, timeout: float) -> None:
        parts = urlsplit(base_url)
        self.url = urlunsplit(parts._replace(path=f"{parts.path.rstrip('/')}/chat/completions"))
        headers = {"User-Agent": f"uta-tasks/{__version__}", "Accept": "application/json"}
        if secret:
            headers["Authorization"] = f"Bearer {secret}"
        if is_openai_api(base_url):
            for header, variable in (("OpenAI-Organization", "OPENAI_ORG_ID"), ("OpenAI-Project", "OPENAI_PROJECT_ID")):
                if os.environ.get(variable):
                    headers[header] = os.environ[variable]
        self.headers, self._timeout = headers, timeout
        self.proxy, self._proxy_auth = env_proxy(self.url)
        self._session: aiohttp.ClientSession | None = None
        self._closed = False

    async def post(self, body: dict[str, Any]) -> Reply:
        """Send one chat-completion request and read its answer.

        Args:
            body: The request body (sent as JSON).

        Raises:
            aiohttp.ClientError: The request could not be sent or its answer not read.
            asyncio.TimeoutError: The answer was not read within the timeout.
        """
        if self._session is None:
            if self._closed:
                raise RuntimeError(f"the judge session for {self.url} is closed")
            self._session = aiohttp.ClientSession(
                headers=self.headers, timeout=aiohttp.ClientTimeout(total=self._timeout),
                connector=aiohttp.TCPConnector(limit=0),  # the judge's window bounds what is in flight
            )
        async with self._session.post(self.url, json=body, proxy=self.proxy,
                                       proxy_auth=self._proxy_auth) as response:
            return Reply(response.status, response.headers, await response.read())

    def is_closed(self) -> bool:
        """Whether :meth:`close` has run."""
        return self._closed

    async def close(self) -> None:
        """Close its connections."""
        self._closed = True
        if self._session is not None:
            await self._session.close()
            self._session = None


def env_proxy(url: str) -> tuple[yarl.URL | None, aiohttp.BasicAuth | None]:
    """The proxy the environment names for ``url`` and its credentials: what aiohttp's
    ``trust_env`` finds for each request (its own lookup, done once here), (None, None)
    when none is named or ``NO_PROXY`` covers the host.

    Args:
        url: The URL a request goes to.
    """
    try:
        return get_env_proxy_for_url(yarl.URL(url))
    except LookupError:
        return None, None


def shared_endpoint(base_url: str, secret: str | None, timeout: float) -> Endpoint | None:
    """The process's session for this endpoint, key and timeout (made on first use); None
    when the caller does not run on the judge loop (it then makes its own).

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
        judge_loop.clients[key] = Endpoint(base_url, secret, timeout)
    return judge_loop.clients[key]


def shutdown() -> None:
    """Close the process's judge clients and stop their loop (at exit; tests call it to
    leave nothing to the next test). The next judge run starts a new loop."""
    global _current
    with _lock:
        judge_loop, _current = _current, None
    if judge_loop is not None and judge_loop.pid == os.getpid():
        judge_loop.stop()


atexit.register(shutdown)
