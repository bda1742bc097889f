"""One judge session per process: the judge runs of one process (``judge_all`` once per
batch) send through one aiohttp session per endpoint, closed at the end, and no judge
request builds a TLS context (aiohttp's default context, made at its import, serves an
https URL; an ``http://`` URL uses none). Against the fault double, a real HTTP server on
127.0.0.1."""

from __future__ import annotations

import socket
import ssl
from collections.abc import Callable
from typing import Any

import aiohttp
import pytest
from fault_server import FaultServer

from uta_tasks.judge import JudgeItem, JudgeSettings, judge_all, transport
from uta_tasks.judge.client import JudgeClient


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def made_endpoints(monkeypatch: pytest.MonkeyPatch) -> list[transport.Endpoint]:
    """Every endpoint session the judge made during the test."""
    made: list[transport.Endpoint] = []
    real_init = transport.Endpoint.__init__

    def recording(self: transport.Endpoint, *args: Any) -> None:
        real_init(self, *args)
        made.append(self)

    monkeypatch.setattr(transport.Endpoint, "__init__", recording)
    return made


@pytest.fixture
def tls_contexts(monkeypatch: pytest.MonkeyPatch) -> list[type]:
    """The class of every ``ssl.SSLContext`` made during the test (any subclass too)."""
    made: list[type] = []
    real = ssl.SSLContext.__new__

    def counting(cls: type, *args: Any, **kwargs: Any) -> Any:
        made.append(cls)
        return real(cls, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "__new__", counting)
    return made


def test_two_judge_runs_of_one_process_share_one_client_closed_at_the_end(
        fault_server: FaultServer, fault_settings: Callable[..., JudgeSettings],
        items: Callable[..., list[JudgeItem]], made_endpoints: list[transport.Endpoint],
        monkeypatch: pytest.MonkeyPatch) -> None:
    used: list[Any] = []
    real_init = JudgeClient.__init__

    def init(self: JudgeClient, *args: Any, **kwargs: Any) -> None:
        real_init(self, *args, **kwargs)
        used.append(self._client)

    monkeypatch.setattr(JudgeClient, "__init__", init)
    settings = fault_settings()
    batch = items(6)
    first, second = judge_all(batch[:3], settings), judge_all(batch[3:], settings)
    assert all(v.judged for v in first.verdicts + second.verdicts)
    assert len(fault_server.chat_requests()) == 6  # both runs were sent, not read from the cache
    assert len(used) == 2 and used[0] is used[1]
    assert made_endpoints == [used[0]]
    assert not used[0].is_closed()  # it stays open between the runs of the process
    transport.shutdown()  # what the process's exit does
    assert used[0].is_closed()


def test_judge_requests_build_no_tls_context(fault_settings: Callable[..., JudgeSettings],
                                             items: Callable[..., list[JudgeItem]], tls_contexts: list[type]) -> None:
    run = judge_all(items(3), fault_settings())
    assert all(v.judged for v in run.verdicts)

    async def https_request() -> None:  # to a closed port: the session and its connector are made, then refused
        endpoint = transport.Endpoint(f"https://127.0.0.1:{closed_port()}/v1", None, 5.0)
        try:
            with pytest.raises(aiohttp.ClientConnectionError):
                await endpoint.post({"model": "m", "messages": []})
        finally:
            await endpoint.close()

    transport.run(https_request())
    assert tls_contexts == []
    ssl.create_default_context()  # what the SDK's client did for every client: the count sees it
    assert tls_contexts
