"""The one interface every source of saved answers implements, and what it is handed.

A source is a row (:class:`Source`) of :mod:`uta_tasks.saved_answers.registry`: where its files are
(:attr:`Source.files`), its documents, prompts, answers and generation settings as the probe's
:class:`~uta_tasks.schema.probe.SavedAnswer` (:attr:`Source.read`, a :class:`SavedTask`), and what it
does not record (:attr:`Source.unrecorded`: the ``answers_from_settings`` keys its files may lack).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from uta_tasks.saved_answers.task import SavedTask
from uta_tasks.schema.probe import SAVED_LM_EVAL


class SavedFilesError(ValueError):
    """No samples file of the task where ``answers_from`` points; the message names the path and the fix."""


@dataclass(frozen=True)
class SavedFiles:
    """The files one task's saved answers are read from.

    Attributes:
        samples: the samples file (a harness's log).
        results: the results file of the same run, or None when the run has none.
        task: the saved run's name of the task.
        date: the run's ``<date>``.
        kind: the source that wrote it (lm-eval, inspect_ai, lighteval, ...).
        array: the samples file is one JSON array of samples (lm-eval 0.4.0 to 0.4.2), not a line per
            sample.
    """

    samples: Path
    results: Path | None
    task: str
    date: str
    kind: str = SAVED_LM_EVAL
    array: bool = False


@dataclass(frozen=True)
class Ask:
    """What the probe asks a source for.

    Attributes:
        path: ``answers_from`` as the records name it (the folder or file read; the Hub address).
        hub: where on the Hub the files came from (``{"repo", "revision", "folder"}``), or None.
        task: the probe task, for messages.
        stated: ``answers_from_settings``: what the user states the files do not record (None: not set).
    """

    path: str
    hub: dict[str, str] | None
    task: str
    stated: Mapping[str, Any] | None


@dataclass(frozen=True)
class Source:
    """One source of saved answers.

    Attributes:
        kind: its name in the records (``answer_source.harness``) and in :class:`SavedFiles`.
        harness: the harness's own name, in messages (``inspect_ai``).
        shown: how its files are named, in the message of a file no source reads
            (``an inspect_ai log (.eval)``).
        files: where its files are: ``files(path, where)`` gives the files of its log at ``path``, or
            None when ``path`` is not one (``where`` names the task in a refusal).
        read: its documents, prompts, answers and generation settings: ``read(files, ask)`` gives the
            task's :class:`SavedTask` (one :class:`~uta_tasks.schema.probe.SavedAnswer` per document) or
            raises :class:`~uta_tasks.saved_answers.task.SavedRunError` naming the task, the file and the fix.
        unrecorded: the ``answers_from_settings`` keys its files may not record (the user states them;
            never guessed); () when its files record every setting.
        searched: a folder given as ``answers_from`` is searched for its logs (False: its log is named
            itself, as when one run's logs all have the same name).
    """

    kind: str
    harness: str
    shown: str
    files: Callable[[Path, str], SavedFiles | None]
    read: Callable[[SavedFiles, Ask], SavedTask]
    unrecorded: tuple[str, ...] = ()
    searched: bool = True
