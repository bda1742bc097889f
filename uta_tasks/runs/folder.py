"""Find the runs in an lm-eval output folder: ``results_<date>.json`` and its samples files.

lm-eval writes ``<output_path>/<model>/results_<date>.json`` and, with ``--log_samples``,
``samples_<task>_<date>.jsonl`` beside it with the same ``<date>``.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from uta_tasks.schema import output

log = logging.getLogger(__name__)


# lm-eval's date id in its file names, e.g. ``2026-11-30T00-00-00.123456``. Samples files are
# ``.jsonl``; lm-eval of 2024 (the Open LLM Leaderboard's details) named them ``.json`` (one object
# a line all the same), and a published copy may be gzipped.
SAMPLES_NAME = re.compile(
    r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[0-9.\-]+?)\.(?P<ext>jsonl|json|jsonl\.gz)$")
_MODEL_ARG_KEYS = ("peft", "delta", "pretrained", "model", "path", "engine")


def model_name(results: dict[str, Any] | None, folder: Path | None = None) -> str:
    """The one rule for the name of the model a run measured.

    lm-eval's ``model_name``, else the model named in ``config.model_args`` (``peft``,
    ``delta``, ``pretrained``, ``model``, ``path``, ``engine``, in that order), else the
    backend (``config.model``), else the run's folder name.

    Args:
        results: the results JSON (None when the run has no results file).
        folder: the folder of the run's files (the fallback).
    """
    results = results or {}
    config = results.get("config") or {}
    name = results.get("model_name") or _from_model_args(config.get("model_args"))
    if name:
        return str(name)
    if folder is not None and not results:
        return folder.name
    return str(config.get("model") or (folder.name if folder is not None else "unknown model"))


def _from_model_args(model_args: Any) -> str | None:
    if isinstance(model_args, str):
        model_args = dict(part.split("=", 1) for part in model_args.split(",") if "=" in part)
    if isinstance(model_args, dict):
        for key in _MODEL_ARG_KEYS:
            if model_args.get(key):
                return str(model_args[key])
    return None


class RunNotFoundError(FileNotFoundError):
    """No run (or no single run) where one was expected; the message names the path."""


@dataclass(frozen=True)
class RunFiles:
    """The files of one lm-eval run.

    Attributes:
        results: the ``results_<date>.json`` file.
        samples: task name -> its ``samples_<task>_<date>.jsonl`` file (empty without --log_samples).
    """

    results: Path
    samples: dict[str, Path] = field(default_factory=dict)

    @property
    def date_id(self) -> str:
        """The ``<date>`` part of the file names."""
        return self.results.stem[len(output.RESULTS_PREFIX):]

    @property
    def summary(self) -> Path:
        """Where the strict-JSON summary of this run goes (beside the results)."""
        return self.results.with_name(output.SUMMARY_FILE)


def _samples_of(results: Path) -> dict[str, Path]:
    date_id = results.stem[len(output.RESULTS_PREFIX):]
    found: dict[str, Path] = {}
    for path in sorted(results.parent.glob(f"{output.SAMPLES_PREFIX}*_{date_id}.*")):
        match = SAMPLES_NAME.match(path.name)
        if match is not None and match["date"] == date_id:
            found.setdefault(match["task"], path)  # sorted: .json before .jsonl before .jsonl.gz
    return found


def find_runs(path: str | Path) -> list[RunFiles]:
    """Every run under ``path`` (a folder searched recursively, or one results file), oldest first.

    Args:
        path: an lm-eval ``--output_path`` folder, a model subfolder, or a ``results_*.json`` file.
    """
    root = Path(path)
    if root.is_file():
        if not (root.name.startswith(output.RESULTS_PREFIX) and root.suffix == ".json"):
            raise RunNotFoundError(f"{root} is not an lm-eval results_<date>.json file")
        files = [root]
    elif root.is_dir():
        files = sorted(root.rglob(output.RESULTS_GLOB), key=lambda p: (p.stem, str(p)))
    else:
        raise RunNotFoundError(f"{root} does not exist: pass the folder given to lm-eval's --output_path")
    if not files:
        raise RunNotFoundError(
            f"{root} holds no {output.RESULTS_GLOB}: pass the folder given to lm-eval's --output_path"
        )
    return [RunFiles(results=f, samples=_samples_of(f)) for f in files]


def single_run(path: str | Path) -> RunFiles:
    """The one run a command such as the gate reads from ``path``.

    Several results files in one folder are reruns of the same model: the newest is taken.
    Results files in different folders (several models) are ambiguous and raise.

    Args:
        path: folder or results file, as for :func:`find_runs`.
    """
    runs = find_runs(path)
    folders = sorted({str(r.results.parent) for r in runs})
    if len(folders) > 1:
        raise RunNotFoundError(
            f"{path} holds runs in {len(folders)} folders ({', '.join(folders)}): pass one of them"
        )
    if len(runs) > 1:
        log.info("%s holds %d runs; reading the newest, %s", path, len(runs), runs[-1].results.name)
    return runs[-1]
