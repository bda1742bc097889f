"""The processes a comparison starts, each an ordinary command of this package run by the same
Python: ``uta-eval`` for each model (``python -m uta_tasks.cli``), ``uta-batch`` over every
model's samples, ``uta-rejudge`` for each model. One process at a time; what it prints goes to
``logs/<model>.<step>.log`` under the comparison's folder.

A model's process ends with the comparison: on Linux it is asked to stop (SIGTERM) when the
comparison's process dies, killed or not, so that a resumed comparison never races a model
still running from before. Ctrl-C stops it as well.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from uta_tasks.apps.compare.spec import Comparison, ModelEntry
from uta_tasks.judge.redact import redact, redact_model_args
from uta_tasks.runs.atomic import write_text

_PR_SET_PDEATHSIG = 1
_TAIL_LINES = 12


@dataclass(frozen=True)
class Finished:
    """A process that ended.

    Attributes:
        exit_code: its exit status (negative: the signal that ended it).
        seconds: how long it ran.
        log: its log file.
    """

    exit_code: int
    seconds: float
    log: Path

    def tail(self) -> str:
        """The last lines of its log."""
        try:
            lines = self.log.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return ""
        return "\n".join(lines[-_TAIL_LINES:])


def _number(value: float) -> str:
    return f"{value:g}"


def eval_argv(comparison: Comparison, model: ModelEntry, output_path: Path, *, predict_only: bool) -> list[str]:
    """``uta-eval`` of one model: the comparison's tasks and settings, samples logged.

    Args:
        comparison: the comparison.
        model: the model.
        output_path: its ``--output_path``.
        predict_only: generate only (the judge runs later, through the Batch API).
    """
    argv = [sys.executable, "-m", "uta_tasks.cli", "--model", model.backend, "--model_args", model.model_args,
            "--tasks", ",".join(comparison.tasks), "--log_samples", "--output_path", str(output_path)]
    metadata = comparison.metadata_for(model)
    if metadata:
        argv += ["--metadata", json.dumps(metadata, sort_keys=True)]
    if comparison.limit is not None:
        argv += ["--limit", _number(comparison.limit)]
    if comparison.gen_kwargs:
        argv += ["--gen_kwargs", comparison.gen_kwargs]
    if predict_only:
        argv.append("--predict_only")
    return argv + [*comparison.eval_args, *model.eval_args]


def batch_argv(folders: Sequence[Path], metadata: dict[str, Any], extra: Sequence[str] = ()) -> list[str]:
    """``uta-batch`` over every model's samples at once.

    Args:
        folders: the models' ``--predict_only`` run folders.
        metadata: the judge's settings.
        extra: more ``uta-batch`` flags (``--poll_interval``...).
    """
    return [sys.executable, "-m", "uta_tasks.apps.batch.cli", *map(str, folders),
            "--metadata", json.dumps(metadata, sort_keys=True), *extra]


def rejudge_argv(generated: Path, output_path: Path, metadata: dict[str, Any]) -> list[str]:
    """``uta-rejudge`` of one model's ``--predict_only`` run (its verdicts are in the cache).

    Args:
        generated: the model's ``--predict_only`` run folder.
        output_path: where the judged run goes.
        metadata: the judge's settings.
    """
    return [sys.executable, "-m", "uta_tasks.apps.rejudge.cli", str(generated), "--output_path", str(output_path),
            "--metadata", json.dumps(metadata, sort_keys=True)]


def _die_with_parent() -> None:  # pragma: no cover - runs in the child, between fork and exec
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass


def shown_command(argv: Sequence[str]) -> str:
    """A command as its log shows it: shell-quoted, ``--model_args`` and every text with its
    credentials masked (:mod:`uta_tasks.judge.redact`)."""
    words = [redact_model_args(word, None) if before == "--model_args" else word
             for before, word in zip(["", *argv], argv)]
    return redact(shlex.join(words), None)


def run_process(argv: list[str], log: Path) -> Finished:
    """Run one command to its end, its output appended to ``log`` (after a line naming it, with
    credentials masked). Ctrl-C (or SIGTERM) stops it, then goes on up.

    Args:
        argv: the command.
        log: its log file.
    """
    log.parent.mkdir(parents=True, exist_ok=True)
    shown = shown_command(argv)
    with log.open("a", encoding="utf-8") as sink:
        sink.write(f"\n=== {time.strftime('%Y-%m-%d %H:%M:%S')} {shown}\n")
        sink.flush()
        started = time.perf_counter()
        process = subprocess.Popen(argv, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
                                   env={**os.environ, "PYTHONUNBUFFERED": "1"})
        try:
            code = process.wait()
        except BaseException:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            raise
    return Finished(code, time.perf_counter() - started, log)


def write_state(path: Path, state: dict[str, Any]) -> None:
    """Write the comparison's progress file (what each model's steps did, for a reader of the folder).

    Args:
        path: the file.
        state: what to write.
    """
    write_text(path, json.dumps(state, indent=2, sort_keys=True) + "\n")
