"""Supervising child processes: own process group, a signal when the parent dies, a
bounded stop (SIGINT, then SIGTERM, then SIGKILL), and a heartbeat while waiting.

Used by the quickstart (lm_eval with its vLLM engine) and the local judge server.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence

log = logging.getLogger(__name__)

_STOP_GRACE = (("SIGINT", 10.0), ("SIGTERM", 10.0), ("SIGKILL", 5.0))
_HEARTBEAT_SECONDS = 60.0
WATCH_SECONDS = 1.0
_PR_SET_PDEATHSIG = 1


def die_with_parent(sig: int = signal.SIGTERM) -> None:
    """In a child (``preexec_fn``): receive ``sig`` when the parent thread dies (Linux).

    Args:
        sig: the signal.
    """
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, sig)


def new_group_dying_with_parent() -> None:
    """In a child (``preexec_fn``): own process group (a stop reaches its subprocesses
    too) and SIGINT when the parent dies without cleaning up."""
    os.setsid()
    die_with_parent(signal.SIGINT)


def stop_group(process: subprocess.Popen) -> None:
    """Stop a child and its process group: SIGINT, then SIGTERM, then SIGKILL (bounded waits)."""
    for name, grace in _STOP_GRACE:
        try:
            os.killpg(process.pid, getattr(signal, name))
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            continue
        # The leader is gone; make sure nothing else is left in its group.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        return
    log.error("process group %d did not stop after SIGKILL", process.pid)


def _heartbeat(done: threading.Event, started: float, what: str) -> None:
    while not done.wait(_HEARTBEAT_SECONDS):
        log.info("%s still running (%s elapsed)", what, elapsed(started))


def run_child(command: Sequence[str], env: Mapping[str, str], what: str,
              alongside: Callable[[], None] | None = None) -> int:
    """Run a command in its own process group with a heartbeat; stop the group on any exit.

    Args:
        command: the command line.
        env: its environment.
        what: its name in logs.
        alongside: called every :data:`WATCH_SECONDS` while the command runs, to watch what
            runs beside it (a server it needs); whatever it raises stops the command.
    """
    started = time.monotonic()
    process = subprocess.Popen(
        list(command), env=dict(env), stdin=subprocess.DEVNULL, preexec_fn=new_group_dying_with_parent
    )
    done = threading.Event()
    beat = threading.Thread(target=_heartbeat, args=(done, started, what), daemon=True)
    beat.start()
    try:
        while True:
            try:
                return process.wait(timeout=WATCH_SECONDS)
            except subprocess.TimeoutExpired:
                if alongside is not None:
                    alongside()
    finally:
        done.set()
        if process.poll() is None:
            log.warning("stopping %s (pid %d) and its subprocesses", what, process.pid)
        stop_group(process)


def elapsed(started: float) -> str:
    """``MmSSs`` since a ``time.monotonic()`` value.

    Args:
        started: the start.
    """
    seconds = int(time.monotonic() - started)
    return f"{seconds // 60}m{seconds % 60:02d}s"
