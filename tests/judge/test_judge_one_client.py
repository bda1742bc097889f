"""One judge client per run: the judge runs of one process (``judge_all`` once per batch)
send through one SDK client per endpoint, closed at the end, and an ``http://`` URL builds
no TLS context. Against the fault double, a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import ssl
from collections.abc import Callable
from typing import Any

import pytest
from fault_server import FaultServer

from uta_tasks.judge import JudgeItem, JudgeSettings, judge_all, transport
from uta_tasks.judge.client import JudgeClient


@pytest.fixture
def made_clients(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every SDK client the judge made during the test."""
    made: list[Any] = []
    real = transport.new_client

    def recording(*args: Any) -> Any:
        made.append(real(*args))
        return made[-1]

    monkeypatch.setattr(transport, "new_client", recording)
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
        items: Callable[..., list[JudgeItem]], made_clients: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
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
    assert made_clients == [used[0]]
    assert not used[0].is_closed()  # it stays open between the runs of the process
    transport.shutdown()  # what the process's exit does
    assert used[0].is_closed()


def test_an_http_url_builds_no_tls_context(fault_settings: Callable[..., JudgeSettings],
                                            items: Callable[..., list[JudgeItem]], tls_contexts: list[type]) -> None:
    run = judge_all(items(3), fault_settings())
    assert all(v.judged for v in run.verdicts)
    assert tls_contexts == []
    transport.new_client("https://judge.example/v1", None, 5.0)  # the count sees an https client's context
    assert tls_contexts
