"""Find ``samples_<task>_<date>.jsonl`` files and the model that wrote them.

lm-eval writes, per run, ``OUTPUT/<model_name_sanitized>/results_<date>.json`` and one
``samples_<task>_<date>.jsonl`` per task beside it. The model of a samples file is the
model of the results file with the same ``<date>``, by the one rule of
:func:`uta_tasks.runs.folder.model_name`; without a results file, the folder name.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from uta_tasks.runs.folder import SAMPLES_NAME, model_name
from uta_tasks.runs.results_file import read_results
from uta_tasks.runs.samples import iter_samples
from uta_tasks.schema import output
from uta_tasks.schema.probe import ProbeRecord


@dataclass(frozen=True)
class SamplesFile:
    """One logged-samples file of one task.

    Attributes:
        path: The ``.jsonl`` file.
        task: Task name from the file name.
        date: lm-eval's run date id from the file name.
        model: Model under test (see module docstring).
    """

    path: Path
    task: str
    date: str
    model: str


def find_samples(paths: Sequence[str | Path], task_prefix: str = "uta_") -> list[SamplesFile]:
    """All samples files under the given folders (or files), sorted by path.

    Args:
        paths: lm-eval ``--output_path`` folders, model sub-folders or samples files.
        task_prefix: Only tasks whose name starts with it (the probe's tasks).

    Raises:
        FileNotFoundError: A path does not exist or holds no samples file of a uta task.
    """
    found: dict[Path, SamplesFile] = {}
    for raw in paths:
        root = Path(raw).expanduser()
        if not root.exists():
            raise FileNotFoundError(
                f"{root} does not exist: give an lm-eval --output_path folder run with --log_samples"
            )
        # a path that is not a folder is read as a samples file (a FIFO or device is then refused, named);
        # in a folder, SAMPLES_NAME decides which names are samples files
        candidates = sorted(root.rglob("samples_*")) if root.is_dir() else [root]
        hits = 0
        for path in candidates:
            match = SAMPLES_NAME.match(path.name)
            if match is None or not match["task"].startswith(task_prefix):
                continue
            hits += 1
            named = _resolved(path.parent) / path.name  # the file keeps its own name (a link is named as given)
            found[_resolved(named)] = SamplesFile(named, match["task"], match["date"], _model_of(named, match["date"]))
        if hits == 0:
            raise FileNotFoundError(
                f"{root} holds no samples_{task_prefix}*_<date>.jsonl file: run lm-eval (or uta-eval) with "
                "--log_samples --output_path there"
            )
    return [found[key] for key in sorted(found)]


def read_records(samples: SamplesFile) -> Iterator[tuple[int, int, ProbeRecord]]:
    """The probe records of a samples file.

    Args:
        samples: The file.

    Yields:
        ``(doc_id, repeat, record)`` in file order (lm-eval's: doc order), one line decoded at a
        time, as :func:`uta_tasks.runs.samples.iter_samples` (the one parser of samples lines)
        decodes them: no more than a line is held.

    Raises:
        ValueError: A line is not a logged uta sample; the message names file and line.
    """
    for doc in iter_samples(samples.path, whole_lines=False):
        for repeat, record in enumerate(doc.records):
            yield doc.doc_id, repeat, record


def _resolved(path: Path) -> Path:
    """``path`` with its links resolved; as given (absolute) when they loop (reading it then names the loop)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # RuntimeError: a symbolic link loop (Python < 3.13)
        return path.absolute()


def _model_of(samples_path: Path, date: str) -> str:
    results = samples_path.parent / f"{output.RESULTS_PREFIX}{date}.json"
    # anything of that name is read (a FIFO or a folder is refused, naming it), never taken for no file
    return model_name(read_results(results) if os.path.lexists(results) else None, samples_path.parent)
