"""Which files of a saved run hold a task's answers (``answers_from``).

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

Other harnesses' logs are found by their own names: an inspect_ai log (``*.eval``, or its
``.json`` form) and a lighteval details file (``details_<task>_<date>.parquet`` under
``details/<model>/<date>/``, its results file ``results/<model>/results_<date>.json``). Their task
names are not lm-eval's, so ``answers_from`` names the log itself, or a folder holding one.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from uta_tasks.runs import saved_inspect, saved_lighteval
from uta_tasks.runs.folder import SAMPLES_NAME
from uta_tasks.runs.jsonio import read_json
from uta_tasks.schema import output
from uta_tasks.schema.probe import SAVED_INSPECT, SAVED_LIGHTEVAL, SAVED_LM_EVAL, SavedKind

#: the results file of an lm-eval 0.4.0 to 0.4.2 run (their DEFAULT_RESULTS_FILE)
EARLY_RESULTS = "results.json"


class SavedFilesError(ValueError):
    """No samples file of the task where ``answers_from`` points; the message names the path and the fix."""


@dataclass(frozen=True)
class SavedFiles:
    """The files one task's saved answers are read from.

    Attributes:
        samples: the samples file.
        results: the results file of the same run, or None when the run has none.
        task: the saved run's name of the task.
        date: the run's ``<date>``.
        kind: the harness that wrote it (lm-eval, inspect_ai, lighteval).
        array: the samples file is one JSON array of samples (lm-eval 0.4.0 to 0.4.2), not a line per
            sample.
    """

    samples: Path
    results: Path | None
    task: str
    date: str
    kind: SavedKind = SAVED_LM_EVAL
    array: bool = False


def _exists(root: Path, where: str) -> None:
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


def _results_of(samples: Path, date: str) -> Path | None:
    results = samples.with_name(f"{output.RESULTS_PREFIX}{date}.json")
    return results if results.is_file() else None


def _early_runs(results: Path, where: str) -> list[SavedFiles]:
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


def _all_samples(root: Path, where: str) -> list[SavedFiles]:
    """Every lm-eval samples file under ``root``, with its task, date and results file (lm-eval
    0.4.0 to 0.4.2's included)."""
    found = []
    for path in sorted(root.rglob(f"{output.SAMPLES_PREFIX}*")):
        match = SAMPLES_NAME.match(path.name)
        if match is not None:
            found.append(SavedFiles(path, _results_of(path, match["date"]), match["task"], match["date"]))
    return found + [run for results in sorted(root.rglob(EARLY_RESULTS)) for run in _early_runs(results, where)]


def _harness_log(path: Path) -> SavedFiles | None:
    """The files of an inspect_ai log or a lighteval details file, or None for another file."""
    if saved_inspect.is_log(path):
        return SavedFiles(path, None, path.stem, "", SAVED_INSPECT)
    details = saved_lighteval.details_name(path)
    if details is not None:
        task, date = details
        return SavedFiles(path, saved_lighteval.results_of(path, date), task, date, SAVED_LIGHTEVAL)
    return None


def _harness_logs(root: Path, answers_from: str | Path, where: str) -> SavedFiles | None:
    """The one harness log in a folder of no lm-eval samples, or None when it holds none."""
    found = [log for path in sorted(root.rglob("*")) if path.is_file() and (log := _harness_log(path)) is not None]
    if len(found) > 1:
        names = ", ".join(str(log.samples.relative_to(root)) for log in found[:5])
        raise SavedFilesError(f"{where}: answers_from={answers_from} holds {len(found)} inspect_ai or lighteval logs "
                              f"({names}{', ...' if len(found) > 5 else ''}); point answers_from at the one of this task")
    return found[0] if found else None


def _refuse_empty(root: Path, answers_from: str | Path, where: str) -> None:
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


def _named(name: str, where: str) -> str:
    """A task name in a message that starts with ``where``: the task itself is "this task" (a
    message names its task once)."""
    return "this task" if name == where else name


def find(answers_from: str | Path, names: Sequence[str], where: str) -> SavedFiles:
    """The samples file of the first of ``names`` the saved run holds (the newest run holding it).

    Args:
        answers_from: a run folder (``--output_path`` or the model folder in it) or one samples file.
        names: the task names to look for, in order (the task itself, its unperturbed task, the
            source task of a wrapped task).
        where: names the task (or setting) in messages.
    """
    root = Path(answers_from).expanduser()
    _exists(root, where)
    if root.is_file():
        match = SAMPLES_NAME.match(root.name)
        if match is not None:
            return SavedFiles(root, _results_of(root, match["date"]), match["task"], match["date"])
        early = root.with_name(EARLY_RESULTS)
        run = next((run for run in (_early_runs(early, where) if early.is_file() else []) if run.samples == root), None)
        if run is not None:
            return run
        log = _harness_log(root)
        if log is None:
            raise SavedFilesError(f"{where}: answers_from={answers_from}: not an lm-eval samples_<task>_<date>.jsonl "
                                  "(.json, .jsonl.gz) file, an inspect_ai log (.eval), a lighteval "
                                  "details_<task>_<date>.parquet or a run folder")
        return log
    if not root.is_dir():
        raise SavedFilesError(f"{where}: answers_from={answers_from} is neither a file nor a folder")
    every = _all_samples(root, where)
    if not every:
        log = _harness_logs(root, answers_from, where)
        if log is not None:
            return log
        _refuse_empty(root, answers_from, where)
    for name in names:
        held = [run for run in every if run.task == name]
        if not held:
            continue
        folders = sorted({str(run.samples.parent) for run in held})
        if len(folders) > 1:
            raise SavedFilesError(f"{where}: answers_from={answers_from} holds runs of {_named(name, where)} in {len(folders)} "
                                  f"folders ({', '.join(folders)}): point answers_from at one of them")
        return max(held, key=lambda run: (run.date, run.samples.name))
    tasks = sorted({run.task for run in every})
    raise SavedFilesError(f"{where}: answers_from={answers_from}: the run logged samples of {tasks}, not of "
                          f"{' or '.join(_named(name, where) for name in names)}; point answers_from at a run of that "
                          "task")


def every_task(answers_from: str | Path, where: str) -> list[SavedFiles]:
    """For each task the saved run logged, the files :func:`find` reads for it (one samples file
    given: that file).

    Args:
        answers_from: as for :func:`find`.
        where: names the setting in messages.
    """
    root = Path(answers_from).expanduser()
    _exists(root, where)
    if root.is_file():
        return [find(root, (), where)]
    every = _all_samples(root, where)
    if not every:
        return [find(root, (), where)]  # one harness log, or the refusal of a folder without any
    return [find(root, [task], where) for task in sorted({run.task for run in every})]
