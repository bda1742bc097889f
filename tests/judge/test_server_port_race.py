"""Servers we start bind without a race: a port chosen by us and bound by the child later
can be taken meanwhile by another process (``Address already in use`` lost a benchmark
row). llama-server is started on ``--port 0`` and its port read back, so the port picker
is never asked; ``vllm serve`` gets a port held by us until it ends (on Linux: others
cannot bind it, vLLM can), and one that exits with ``Address already in use`` is started
again on a fresh port. The tests occupy the port the picker gives, or try to take the
port while the server starts, and the real server still starts."""

from __future__ import annotations

import os
import socket
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from uta_tasks.servers import llama_server as local_server
from uta_tasks.servers import vllm_server as vllm_module

VLLM_ENV = {"VLLM_CPU_KVCACHE_SPACE": "1", "VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1",
            "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
VLLM_ARGS = ("--dtype", "float32", "--max-model-len", "1024", "--enforce-eager")


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A port on 127.0.0.1 bound and listening for the whole test."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield int(sock.getsockname()[1])


@pytest.mark.slow
def test_llama_server_starts_when_the_picked_port_is_taken(taken_port: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local_server, "free_port", lambda: taken_port)
    with local_server.llama_server(parallel=1, ctx_size=512, threads=1) as url:
        assert url.port != taken_port
        with urllib.request.urlopen(f"{url}/models", timeout=30) as response:  # it answers on the port read back
            assert local_server.MODEL_ALIAS in response.read().decode()


@pytest.mark.slow
def test_vllm_serve_starts_again_on_a_fresh_port_when_the_picked_one_is_taken(
        taken_port: int, smollm2_dir: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("vllm")
    from uta_tasks.servers.vllm_server import vllm_server

    picked = iter([taken_port])
    real = local_server.free_port
    monkeypatch.setattr(local_server, "free_port", lambda: next(picked, 0) or real())
    log_path = tmp_path / "serve.log"
    env = {**os.environ, **VLLM_ENV}
    with vllm_server(smollm2_dir, log_path=log_path, args=VLLM_ARGS, env=env, ready_timeout=900) as server:
        assert server.port != taken_port and server.healthy()
    assert "address already in use" in log_path.read_text().lower()  # the first attempt met the taken port


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the port is held on Linux only")
def test_a_held_port_refuses_a_plain_bind_and_takes_a_server_that_reuses_addresses() -> None:
    held = vllm_module._hold(local_server.free_port())
    assert held is not None
    port = held.getsockname()[1]
    with held, socket.socket() as other, socket.socket() as server, socket.socket() as client:
        with pytest.raises(OSError):  # another process's bind of the port, or bind to 0, never gets it
            other.bind(("127.0.0.1", port))
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as vLLM's create_server_socket does
        server.bind(("127.0.0.1", port))
        server.listen()
        client.connect(("127.0.0.1", port))


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the port is held on Linux only")
def test_vllm_serve_started_beside_keeps_its_port_while_it_starts(smollm2_dir: object, tmp_path: Path) -> None:
    """The quickstart's way (``wait=False``): its URL is handed out before the server binds."""
    pytest.importorskip("vllm")
    env = {**os.environ, **VLLM_ENV}
    with vllm_module.vllm_server(smollm2_dir, log_path=tmp_path / "serve.log", args=VLLM_ARGS, env=env,
                                 wait=False) as server:
        with socket.socket() as other, pytest.raises(OSError):
            other.bind(("127.0.0.1", server.port))  # another process trying to take it meanwhile
        deadline = time.monotonic() + 900
        while not server.healthy() and time.monotonic() < deadline:
            server.check_running()
            time.sleep(1)
        assert server.healthy()
