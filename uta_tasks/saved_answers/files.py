"""Where a task's saved answers are (``answers_from``): an lm-eval run, or another harness's log.

A file is read by the first source (:mod:`uta_tasks.saved_answers.registry`) whose files it is:
lm-eval's samples file first, then each harness's log. A folder is an lm-eval run folder when it
holds lm-eval samples (:mod:`uta_tasks.saved_answers.lm_eval_files`: the newest run holding the task),
else it must hold one log of a harness whose logs are searched for (``Source.searched``). Their task
names are not lm-eval's, so ``answers_from`` names the log itself, or a folder holding one.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from uta_tasks.saved_answers import lm_eval_files, registry
from uta_tasks.saved_answers.source import SavedFiles, SavedFilesError, Source

__all__ = ["SavedFiles", "SavedFilesError", "every_task", "find"]


def _log(path: Path, where: str) -> SavedFiles | None:
    """The files of the log at ``path``, read by the first source whose files it is, or None."""
    return _log_of(list(registry.SOURCES.values()), path, where)


def _log_of(sources: list[Source], path: Path, where: str) -> SavedFiles | None:
    """The files of the log at ``path``, read by the first of ``sources`` whose files it is, or None."""
    for source in sources:
        found = source.files(path, where)
        if found is not None:
            return found
    return None


def _logs(root: Path, answers_from: str | Path, where: str) -> SavedFiles | None:
    """The one harness log in a folder of no lm-eval samples, or None when it holds none."""
    searched = [source for source in registry.others() if source.searched]
    found = [log for path in sorted(root.rglob("*")) if path.is_file() and (log := _log_of(searched, path, where))]
    if len(found) > 1:
        names = ", ".join(str(log.samples.relative_to(root)) for log in found[:5])
        harnesses = " or ".join(source.harness for source in searched)
        raise SavedFilesError(f"{where}: answers_from={answers_from} holds {len(found)} {harnesses} logs "
                              f"({names}{', ...' if len(found) > 5 else ''}); point answers_from at the one of this task")
    return found[0] if found else None


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
    lm_eval_files.exists(root, where)
    if root.is_file():
        log = _log(root, where)
        if log is None:
            shown = ", ".join(source.shown for source in registry.others())
            raise SavedFilesError(f"{where}: answers_from={answers_from}: not an lm-eval samples_<task>_<date>.jsonl "
                                  f"(.json, .jsonl.gz) file, {shown} or a run folder")
        return log
    if not root.is_dir():
        raise SavedFilesError(f"{where}: answers_from={answers_from} is neither a file nor a folder")
    every = lm_eval_files.all_samples(root, where)
    if not every:
        log = _logs(root, answers_from, where)
        if log is not None:
            return log
        lm_eval_files.refuse_empty(root, answers_from, where)
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
    lm_eval_files.exists(root, where)
    if root.is_file():
        return [find(root, (), where)]
    every = lm_eval_files.all_samples(root, where)
    if not every:
        return [find(root, (), where)]  # one harness log, or the refusal of a folder without any
    return [find(root, [task], where) for task in sorted({run.task for run in every})]
