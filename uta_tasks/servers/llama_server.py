"""Run llama.cpp's ``llama-server`` on 127.0.0.1 with a GGUF model (by default the
embedded SmolLM2), as a local OpenAI-compatible judge endpoint (strict ``json_schema``
output included).

Python::

    with llama_server() as base_url:          # e.g. "http://127.0.0.1:40123/v1"
        settings = JudgeSettings.from_metadata({"judge_base_url": base_url,
                                                "judge_model": base_url.model})

Command line (prints the base URL, serves until Ctrl-C or SIGTERM)::

    python -m uta_tasks.servers.llama_server [--model F.gguf] [--alias NAME] [--parallel 8] [--ctx-size 16384]

The served model name (the alias, used as ``judge_model``) is the GGUF file's name
without ``.gguf`` unless given, so two different files are never served, judged and
cached under one name; the embedded SmolLM2 keeps :data:`MODEL_ALIAS`.

Without ``port``, the server is started with ``--port 0``: it binds a port the system
chooses, and the port is read back from the line it logs (``listening on
http://127.0.0.1:PORT``), so no other process can take the port between its choice and
the bind.

The binary is found at ``$UTA_LLAMA_SERVER``, else
``${UTA_TOOLS_DIR:-~/.cache/uta-tasks/tools}/llama-server`` (where
``scripts/build_llama_server.sh`` installs it), else on ``PATH``. The process always
dies with the context (also on exceptions), and on Linux also when its parent dies.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path

from uta_tasks.paths import tools_dir
from uta_tasks.servers.processes import die_with_parent

log = logging.getLogger(__name__)

MODEL_ALIAS = "smollm2-135m-instruct"
_LOG_TAIL = 2000
# What llama-server logs once its socket listens; the port it bound when given --port 0.
_LISTENING = re.compile(rb"listening on http://127\.0\.0\.1:(\d+)")


class LocalServer(str):
    """The base URL (``http://127.0.0.1:PORT/v1``; it *is* the string) with the server's
    details as attributes: ``pid``, ``port``, ``model`` (the alias) and ``log_path``."""

    pid: int
    port: int
    model: str
    log_path: Path

    def __new__(cls, url: str, *, pid: int, port: int, model: str, log_path: Path) -> LocalServer:
        obj = super().__new__(cls, url)
        obj.pid, obj.port, obj.model, obj.log_path = pid, port, model, log_path
        return obj


class LocalServerError(RuntimeError):
    """llama-server is missing or did not become ready; the message says what to do."""


def find_binary() -> Path:
    """Locate ``llama-server`` (see the module docstring for the search order)."""
    explicit = os.environ.get("UTA_LLAMA_SERVER")
    if explicit:
        path = Path(explicit).expanduser()
        if not os.access(path, os.X_OK):
            raise LocalServerError(f"UTA_LLAMA_SERVER={explicit!r} is not an executable file")
        return path
    tools = tools_dir()
    candidate = tools / "llama-server"
    if os.access(candidate, os.X_OK):
        return candidate
    found = shutil.which("llama-server")
    if found:
        return Path(found)
    raise LocalServerError(
        f"llama-server not found in {tools} nor on PATH: run `bash scripts/build_llama_server.sh` "
        "(about 5 minutes on 2 cores) or set UTA_LLAMA_SERVER to the binary"
    )


def default_threads() -> int:
    """Half the cores, at least one: ggml's worker threads spin, and oversubscribed cores
    (other processes, or the judge client itself) slow decoding down severalfold."""
    return max(1, (os.cpu_count() or 2) // 2)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def default_alias(model_path: str | Path) -> str:
    """The served model name for a GGUF file: its name without ``.gguf``.

    Args:
        model_path: The GGUF file.
    """
    return Path(model_path).name.removesuffix(".gguf") or MODEL_ALIAS


def _wait_ready(process: subprocess.Popen, port: int, timeout: float, log_path: Path, log_start: int) -> int:
    """Wait until the server answers ``/health`` with 200 and return its port; ``port`` 0:
    the one it logs it listens on (in its log after byte ``log_start``: the file is appended to)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise LocalServerError(f"llama-server exited with code {process.returncode}:\n{_tail(log_path)}")
        port = port or _logged_port(log_path, log_start)
        if port and _healthy(port):
            return port
        time.sleep(0.2)
    unknown = "" if port else " (it never logged `listening on http://127.0.0.1:PORT`: a build that takes no --port 0?)"
    raise LocalServerError(f"llama-server not ready after {timeout:g}s{unknown}:\n{_tail(log_path)}")


def _logged_port(log_path: Path, log_start: int) -> int:
    """The port llama-server says it listens on (0 while it has not said so)."""
    try:
        with open(log_path, "rb") as log_file:
            log_file.seek(log_start)
            found = _LISTENING.search(log_file.read())
    except OSError:
        return 0
    return int(found.group(1)) if found else 0


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return False


def _tail(path: Path) -> str:
    try:
        return path.read_text(errors="replace")[-_LOG_TAIL:]
    except OSError:
        return "(no log)"


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


@contextlib.contextmanager
def llama_server(
    model_path: str | Path | None = None,
    *,
    alias: str | None = None,
    parallel: int = 8,
    ctx_size: int = 16384,
    threads: int | None = None,
    ready_timeout: float = 120.0,
    extra_args: Sequence[str] = (),
    log_path: str | Path | None = None,
    port: int | None = None,
) -> Iterator[LocalServer]:
    """Start llama-server on a 127.0.0.1 port and yield its base URL (``.../v1``),
    a :class:`LocalServer` string. The process is stopped when the context exits.

    On Linux the server also gets SIGTERM when the thread that started it ends
    (``PR_SET_PDEATHSIG``), so enter and leave the context in the same thread.

    Args:
        model_path: GGUF file; default the embedded SmolLM2 (``uta_tasks.embedded.smollm2.gguf_path()``).
        alias: Model name the server answers to (use it as ``judge_model``); default
            :func:`default_alias` of ``model_path``, or :data:`MODEL_ALIAS` for the embedded model.
        parallel: Server slots (concurrent requests decoded together).
        ctx_size: Total context, shared by the slots.
        threads: CPU threads (default: half the cores, at least 1; on a shared 2-core
            machine two spinning threads decode several times slower than one).
        ready_timeout: Seconds to wait for ``/health`` to answer 200.
        extra_args: More llama-server arguments.
        log_path: Where the server's output goes (default: a temporary file, removed after).
        port: The port (default: one the server chooses, read back; see the module docstring).
    """
    if model_path is None:
        from uta_tasks.embedded.smollm2 import gguf_path

        model_path = gguf_path()
        alias = alias or MODEL_ALIAS
    alias = alias or default_alias(model_path)
    binary = find_binary()
    own_log = log_path is None
    log_file = Path(log_path) if log_path else Path(tempfile.mkstemp(prefix="uta-llama-server-", suffix=".log")[1])
    command = [
        str(binary), "-m", str(model_path), "--host", "127.0.0.1", "--port", str(port or 0),
        "--alias", alias, "--parallel", str(parallel), "--ctx-size", str(ctx_size),
        "--threads", str(threads or default_threads()), "--no-webui", *extra_args,
    ]
    log.info("starting %s", " ".join(command))
    with open(log_file, "ab") as sink:
        log_start = sink.tell()
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
            preexec_fn=die_with_parent,
        )
    try:
        port = _wait_ready(process, port or 0, ready_timeout, log_file, log_start)
        yield LocalServer(
            f"http://127.0.0.1:{port}/v1", pid=process.pid, port=port, model=alias, log_path=log_file
        )
    finally:
        _stop(process)
        if own_log:
            log_file.unlink(missing_ok=True)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line of :func:`main`.

    Args:
        argv: Arguments (default: ``sys.argv[1:]``).
    """
    parser = argparse.ArgumentParser(description="Serve a GGUF judge model with llama-server on 127.0.0.1.")
    parser.add_argument("--model", default=None, help="GGUF path (default: embedded SmolLM2)")
    parser.add_argument("--alias", default=None,
                        help="served model name, the judge_model (default: the GGUF file name without .gguf)")
    parser.add_argument("--parallel", type=int, default=8)
    parser.add_argument("--ctx-size", type=int, default=16384)
    parser.add_argument("--threads", type=int, default=None, help="CPU threads (default: half the cores)")
    parser.add_argument("--ready-timeout", type=float, default=120.0)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    """CLI: serve until interrupted, printing the base URL on stdout."""
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with llama_server(args.model, alias=args.alias, parallel=args.parallel, ctx_size=args.ctx_size,
                      threads=args.threads, ready_timeout=args.ready_timeout) as url:
        print(url, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
