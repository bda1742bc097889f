"""Run ``vllm serve`` on 127.0.0.1 as a supervised child process.

Used by the quickstart's local judge and by the scale-out test. The server gets its own
process group (a stop reaches vLLM's engine and worker processes too) and SIGINT when
the parent dies; :func:`vllm_server` waits, bounded, until ``/health`` answers 200 and
stops the whole group when the block ends, also on errors and Ctrl-C.

The port is chosen here and bound by the server some seconds later (after its imports),
and vLLM's engine picks ports of its own the same way; on a busy machine another
process can take one meanwhile. Two defences:

- on Linux the chosen port is held until the block ends by a socket bound to it with
  ``SO_REUSEADDR`` and not listening (:func:`_hold`): the kernel then gives it to no
  ``bind`` to port 0 and no outgoing connection, and a plain ``bind`` of it fails, while
  vLLM, which sets ``SO_REUSEADDR`` on its own socket, binds and listens on it;
- a server that exits with ``Address already in use`` before it is healthy (an engine
  port, or the port on another system) is started again on a fresh port, up to
  :data:`PORT_ATTEMPTS` times in all, when ``port`` is not given and the block waits
  for it (``wait=True``); with ``wait=False`` its URL is already in the caller's hands,
  and the exit is reported by :meth:`VllmServer.check_running`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from uta_tasks.servers.processes import new_group_dying_with_parent, stop_group

log = logging.getLogger(__name__)

_LOG_TAIL = 3000
_POLL_SECONDS = 1.0
PORT_ATTEMPTS = 3
_PORT_TAKEN = re.compile(rb"address already in use", re.IGNORECASE)  # Python's EADDRINUSE, torch's too


class VllmServerError(RuntimeError):
    """``vllm serve`` exited or did not answer in time; the message carries its log's end."""


@dataclass(frozen=True)
class VllmServer:
    """A running server.

    Attributes:
        base_url: ``http://127.0.0.1:PORT/v1``.
        model: the name it serves (``--served-model-name``).
        pid: the server's process id (leader of its process group).
        log_path: where its output goes.
        port: its port on 127.0.0.1.
        process: the process, for :meth:`check_running`.
    """

    base_url: str
    model: str
    pid: int
    log_path: Path
    port: int = 0
    process: subprocess.Popen[bytes] | None = field(default=None, compare=False, repr=False)

    def healthy(self) -> bool:
        """True once ``/health`` answers 200."""
        return _healthy(self.port)

    def check_running(self) -> None:
        """Raise :class:`VllmServerError` (with its log's end) if the server has exited."""
        if self.process is not None and self.process.poll() is not None:
            raise VllmServerError(f"vllm serve exited with code {self.process.returncode}:\n{_tail(self.log_path)}")


def serve_command(model: str | Path, port: int, served_name: str, args: Sequence[str] = ()) -> list[str]:
    """The command line: vLLM's CLI through this interpreter.

    Args:
        model: Hugging Face id or folder.
        port: port on 127.0.0.1.
        served_name: ``--served-model-name``.
        args: more ``vllm serve`` flags.
    """
    return [
        sys.executable, "-m", "vllm.entrypoints.cli.main", "serve", str(model),
        "--host", "127.0.0.1", "--port", str(port), "--served-model-name", served_name, *args,
    ]


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as response:
            return response.status == 200
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return False


def _tail(path: Path) -> str:
    try:
        return path.read_text(errors="replace")[-_LOG_TAIL:]
    except OSError:
        return "(no log)"


@contextlib.contextmanager
def vllm_server(
    model: str | Path,
    *,
    log_path: Path,
    served_name: str | None = None,
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    ready_timeout: float = 600.0,
    port: int | None = None,
    wait: bool = True,
) -> Iterator[VllmServer]:
    """Start ``vllm serve`` on a free 127.0.0.1 port, wait until it is healthy, yield it,
    and stop its process group when the block ends.

    With ``wait=False`` it is yielded at once, still starting: the caller polls
    :meth:`VllmServer.healthy` and :meth:`VllmServer.check_running` (the quickstart runs
    lm_eval meanwhile, and the judge's preflight waits for it, ``judge_start_wait``).

    Args:
        model: Hugging Face id or folder.
        log_path: file for the server's output (appended).
        served_name: the model name clients send (default: ``str(model)``).
        args: more ``vllm serve`` flags.
        env: its environment (default: this process's).
        ready_timeout: seconds to wait for ``/health``.
        port: the port (default: a free one).
        wait: wait until it is healthy before yielding.

    Raises:
        VllmServerError: it exited or was not healthy in time.
    """
    from uta_tasks.servers.llama_server import free_port

    name = served_name or str(model)
    deadline = time.monotonic() + ready_timeout
    attempts = PORT_ATTEMPTS if wait and not port else 1
    held: socket.socket | None = None
    for attempt in range(1, attempts + 1):
        chosen = port or free_port()
        held = None if port else _hold(chosen)
        log.info("starting vllm serve on 127.0.0.1:%d (log %s)", chosen, log_path)
        with open(log_path, "ab") as sink:
            log_start = sink.tell()
            process = subprocess.Popen(
                serve_command(model, chosen, name, args), env=dict(env if env is not None else os.environ),
                stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
                preexec_fn=new_group_dying_with_parent,
            )
        server = VllmServer(f"http://127.0.0.1:{chosen}/v1", name, process.pid, log_path, chosen, process)
        try:
            if wait and not _became_healthy(server, deadline, ready_timeout):
                if attempt < attempts and _port_taken(log_path, log_start):
                    log.warning("vllm serve could not bind a port (address already in use; attempt %d of %d): "
                                "starting it again on a fresh port", attempt, attempts)
                    stop_group(process)  # what is left of its group
                    _release(held)
                    continue
                server.check_running()
        except BaseException:
            stop_group(process)
            _release(held)
            raise
        break
    try:
        yield server
    finally:
        stop_group(process)
        _release(held)


def _hold(port: int) -> socket.socket | None:
    """On Linux, a socket bound to ``port`` on 127.0.0.1 with ``SO_REUSEADDR``, not
    listening (see the module docstring); None elsewhere (BSD's ``SO_REUSEADDR`` would keep
    vLLM off the port too) or when the port is taken already."""
    if not sys.platform.startswith("linux"):
        return None
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError:
        sock.close()
        return None
    return sock


def _release(held: socket.socket | None) -> None:
    if held is not None:
        held.close()


def _became_healthy(server: VllmServer, deadline: float, ready_timeout: float) -> bool:
    """Wait until the server is healthy (True) or has exited (False).

    Raises:
        VllmServerError: it was still starting at ``deadline``.
    """
    while not server.healthy():
        if server.process is not None and server.process.poll() is not None:
            return False
        if time.monotonic() > deadline:
            raise VllmServerError(f"vllm serve was not healthy after {ready_timeout:g} s:\n{_tail(server.log_path)}")
        time.sleep(_POLL_SECONDS)
    return True


def _port_taken(log_path: Path, log_start: int) -> bool:
    """Whether the server's log since byte ``log_start`` says a port was taken."""
    try:
        with open(log_path, "rb") as log_file:
            log_file.seek(log_start)
            return _PORT_TAKEN.search(log_file.read()) is not None
    except OSError:
        return False
