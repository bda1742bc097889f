"""Which files of an lm-eval run hold a task's answers (``answers_from``).

A saved run is what lm-eval's ``--output_path`` holds after ``--log_samples``, as it exists:
one folder per model, ``results_<date>.json`` beside ``samples_<task>_<date>.jsonl`` (``.json``
in lm-eval of 2024, the Open LLM Leaderboard's details; ``.jsonl.gz`` in a compressed copy),
several runs side by side. A run is the files of one ``<date>``; the task's answers come from
the newest run that holds the task, whatever other runs came later, and its results file is the
one of the same date (none is fine: the samples hold the prompts and responses).

lm-eval 0.4.0 to 0.4.2 wrote another layout (their ``__main__``): ``results.json`` in the
``--output_path`` folder and, for each task of its ``configs``, ``<model_args>_<task>.jsonl`` beside
it (``--model_args`` with every ``/`` and ``=`` made ``__``) holding ONE JSON array of the task's
samples (``indent=2``), not a line per sample. Its run is dated by the results' ``date`` (the start
time, a Unix timestamp), written as lm-eval's later ``<date>``.

Other harnesses' logs are found by their own sources (:mod:`uta_tasks.saved_answers.files`).
"""

from __future__ import annotations

import errno
import os
import re
from datetime import datetime
from pathlib import Path

from uta_tasks.runs.folder import SAMPLES_NAME
from uta_tasks.runs.jsonio import read_json
from uta_tasks.saved_answers.source import SavedFiles, SavedFilesError
from uta_tasks.schema import output

#: the results file of an lm-eval 0.4.0 to 0.4.2 run (their DEFAULT_RESULTS_FILE)
EARLY_RESULTS = "results.json"


def exists(root: Path, where: str) -> None:
    """Refuse a path that does not exist, naming a dangling link or a link loop for what it is."""
    try:
        root.resolve(strict=True)
    except RuntimeError:  # Python < 3.13 reports a symlink loop so
        raise SavedFilesError(f"{where}: {root} is a symbolic link loop; point answers_from at the run itself") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SavedFilesError(f"{where}: {root} is a symbolic link loop; point answers_from at the run "
                                  "itself") from None
        if os.path.islink(root):
            raise SavedFilesError(f"{where}: {root} is a symbolic link to {os.readlink(root)}, which does not exist; "
                                  "point answers_from at the run itself") from None
        raise SavedFilesError(f"{where}: {root} does not exist; give the --output_path folder of a run made with "
                              "--log_samples, or one of its samples_<task>_<date>.jsonl files") from None


def results_of(samples: Path, date: str) -> Path | None:
    results = samples.with_name(f"{output.RESULTS_PREFIX}{date}.json")
    return results if results.is_file() else None


def early_runs(results: Path, where: str) -> list[SavedFiles]:
    """The samples files of an lm-eval 0.4.0 to 0.4.2 run, one per task its ``results.json`` names
    that has one beside it; none when the file is not such a run's results."""
    try:
        data = read_json(results)
    except ValueError as exc:
        raise SavedFilesError(f"{where}: {exc}") from None
    config = data.get("config") if isinstance(data, dict) else None
    configs = data.get("configs") if isinstance(data, dict) else None
    if not isinstance(config, dict) or not isinstance(configs, dict) or "model_args" not in config:
        return []
    prefix = re.sub("/|=", "__", str(config["model_args"] or ""))
    started = data.get("date")
    date = (datetime.fromtimestamp(started).isoformat().replace(":", "-")
            if isinstance(started, (int, float)) and not isinstance(started, bool) else "")
    named = [(task, results.with_name(f"{prefix}_{task}.jsonl")) for task in sorted(configs)]
    return [SavedFiles(path, results, task, date, array=True) for task, path in named if path.is_file()]


def all_samples(root: Path, where: str) -> list[SavedFiles]:
    """Every lm-eval samples file under ``root``, with its task, date and results file (lm-eval
    0.4.0 to 0.4.2's included)."""
    found = []
    for path in sorted(root.rglob(f"{output.SAMPLES_PREFIX}*")):
        match = SAMPLES_NAME.match(path.name)
        if match is not None:
            found.append(SavedFiles(path, results_of(path, match["date"]), match["task"], match["date"]))
    return found + [run for results in sorted(root.rglob(EARLY_RESULTS)) for run in early_runs(results, where)]


def refuse_empty(root: Path, answers_from: str | Path, where: str) -> None:
    results = sorted(root.rglob(output.RESULTS_GLOB))
    if results:
        raise SavedFilesError(
            f"{where}: answers_from={answers_from}: the run {results[-1].name} has no samples files; run it again "
            "with --log_samples (the probe needs every document's prompt and response)")
    early = sorted(root.rglob(EARLY_RESULTS))
    if early:
        raise SavedFilesError(
            f"{where}: answers_from={answers_from}: the lm-eval 0.4.0 to 0.4.2 run {early[-1]} has no samples file "
            "(<model_args>_<task>.jsonl, --model_args with / and = made __, beside it); run it again with "
            "--log_samples (the probe needs every document's prompt and response)")
    raise SavedFilesError(f"{where}: answers_from={answers_from} holds no lm-eval run (no samples_<task>_<date>.jsonl "
                          "and no results_<date>.json); give the --output_path of a run made with --log_samples")


def samples_file(path: Path, where: str) -> SavedFiles | None:
    """The files of the lm-eval samples file at ``path`` (``samples_<task>_<date>.jsonl``, or a task's
    file of an lm-eval 0.4.0 to 0.4.2 run beside its ``results.json``), or None for another file."""
    match = SAMPLES_NAME.match(path.name)
    if match is not None:
        return SavedFiles(path, results_of(path, match["date"]), match["task"], match["date"])
    early = path.with_name(EARLY_RESULTS)
    return next((run for run in (early_runs(early, where) if early.is_file() else []) if run.samples == path), None)
