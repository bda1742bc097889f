"""The one writer of a run folder (``uta-rejudge`` writes through it): lm-eval's own files, so
every reader treats the folder as a live run.

For every source run (a ``results_<date>.json`` and the ``samples_<task>_<date>.jsonl`` files
beside it) the output holds, at the same place relative to the folder given on the command
line, the same two kinds of files under the same ``<date>``:

* ``results_<date>.json``: the source's results JSON with the re-judged tasks' rows replaced -
  ``configs``, ``versions``, ``n-shot``, ``n-samples``, ``higher_is_better`` and
  ``group_subtasks`` kept for those tasks, the top-level ``config`` and the model identity
  (``model_name``, ``model_source``, ...) kept as they were. The stale group rows are left
  out (the readers pool groups from their tasks). Each task config's ``metadata`` carries
  the new judge settings in place of the old ones, plus the task's benchmark and
  perturbation (from the probe records, so a folder without its results file still reads
  as uta tasks). A ``rejudge`` block says which judge gave the verdicts, when, and from
  which files (:data:`uta_tasks.runs.output.REJUDGE_KEY`).
* ``samples_<task>_<date>.jsonl``: the logged samples with the new verdicts and metrics.

Everything is strict JSON (NaN written as ``null``).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from pathlib import Path
from typing import Any

from uta_tasks.judge.redact import redact_value
from uta_tasks.runs.folder import model_name
from uta_tasks.runs.jsonio import dumps_strict, write_text
from uta_tasks.runs.rescore import ScoredTask
from uta_tasks.runs.results_file import read_results
from uta_tasks.schema import output

log = logging.getLogger(__name__)

_PER_TASK_KEYS = ("configs", "versions", "n-shot", "higher_is_better", "task_hashes")
_DROPPED_KEYS = ("results", "groups", "samples", output.REJUDGE_KEY)


def _out_dir(task: ScoredTask, output_path: Path) -> Path:
    folder = task.source.path.parent
    if task.root.is_dir() and folder.is_relative_to(task.root):
        return output_path / folder.relative_to(task.root)
    return output_path


def _groups(source: dict[str, Any], kept: set[str]) -> dict[str, list[str]]:
    """The source's ``group_subtasks`` whose every member (task or group) is still there."""
    groups = {str(g): [str(c) for c in children] for g, children in (source.get("group_subtasks") or {}).items()}
    out: dict[str, list[str]] = {}
    changed = True
    while changed:
        changed = False
        for group, children in groups.items():
            if group not in out and children and all(c in kept or c in out for c in children):
                out[group] = children
                changed = True
    return out


def _config(task: ScoredTask, source: dict[str, Any], judge_metadata: dict[str, Any]) -> dict[str, Any]:
    config = dict((source.get("configs") or {}).get(task.task) or {"task": task.task})
    old = config.get("metadata") or {}
    meta = {k: v for k, v in old.items() if not (k == output.META_JUDGE or k.startswith(f"{output.META_JUDGE}_"))}
    first = task.first
    meta.update(judge_metadata)
    meta[output.META_BENCHMARK] = first.benchmark
    meta[output.META_PERTURBATION] = first.perturbation
    config["metadata"] = meta
    config.setdefault("repeats", len(task.docs[0].records))
    return config


def _results(tasks: list[ScoredTask], source_path: Path | None, judge: dict[str, Any],
             judge_metadata: dict[str, Any], date: str) -> dict[str, Any]:
    source: dict[str, Any] = read_results(source_path) if source_path is not None else {}  # its sections checked
    out = {k: redact_value(v) for k, v in source.items() if k not in _DROPPED_KEYS}  # no model_args credential
    names_ = [t.task for t in tasks]
    out["results"] = {
        t.task: {"alias": ((source.get("results") or {}).get(t.task) or {}).get("alias", t.task), **t.metrics}
        for t in tasks
    }
    groups = _groups(source, set(names_))
    out["group_subtasks"] = groups
    for key in _PER_TASK_KEYS:
        if key in source:
            out[key] = {n: v for n, v in (source.get(key) or {}).items() if n in names_ or n in groups}
    out["configs"] = {**out.get("configs", {}), **{t.task: _config(t, source, judge_metadata) for t in tasks}}
    out["higher_is_better"] = {**out.get("higher_is_better", {}), **{t.task: t.higher_is_better for t in tasks}}
    source_n = source.get("n-samples") or {}
    out["n-samples"] = {
        t.task: {"original": (source_n.get(t.task) or {}).get("original", len(t.docs)), "effective": len(t.docs)}
        for t in tasks
    }
    if source_path is None:  # no results file to copy: the model is the one the samples' folder names
        out["model_name"] = model_name(None, tasks[0].source.path.parent)
    out[output.REJUDGE_KEY] = {
        "judge": judge,
        "date": date,
        "source_results": str(source_path) if source_path is not None else None,
        "sources": {t.task: str(t.source.path) for t in tasks},
    }
    return out


def write_run_folders(tasks: list[ScoredTask], output_path: Path, judge_metadata: dict[str, Any],
                      date: str) -> list[Path]:
    """Write one complete run folder per source run under ``output_path``; returns the results files.

    Args:
        tasks: the scored tasks (:func:`uta_tasks.runs.rescore.rescore`).
        output_path: the folder to write into (the source's layout below it is kept).
        judge_metadata: the judge settings used (recorded; ``--metadata`` never holds a key).
        date: when the re-judging ran (recorded in the ``rejudge`` block).
    """
    from uta_tasks.judge.settings import JudgeSettings

    judge = JudgeSettings.from_metadata(judge_metadata).describe()
    runs: dict[tuple[Path, str], list[ScoredTask]] = defaultdict(list)
    for task in tasks:
        runs[(_out_dir(task, output_path), task.source.date)].append(task)
    origin: dict[tuple[Path, str], Path] = {}
    for key, group in runs.items():
        folders = {t.source.path.parent for t in group}
        if len(folders) > 1:
            raise ValueError(
                f"runs in {', '.join(sorted(map(str, folders)))} would all be written to {key[0]} under the date "
                f"{key[1]}: re-judge them into separate --output_path folders"
            )
        origin[key] = folders.pop()
    written = []
    for (folder, date_id), group in sorted(runs.items()):
        results_src = origin[(folder, date_id)] / f"{output.RESULTS_PREFIX}{date_id}.json"
        if not results_src.is_file():
            log.warning("%s is missing: the re-judged run gets no model settings (config) from it", results_src)
        results = _results(group, results_src if results_src.is_file() else None, judge, judge_metadata, date)
        for task in group:
            write_text(folder / f"{output.SAMPLES_PREFIX}{task.task}_{date_id}.jsonl",
                       (dumps_strict(d.line, indent=None) + "\n" for d in task.docs))  # a line at a time
        written.append(write_text(folder / f"{output.RESULTS_PREFIX}{date_id}.json", dumps_strict(results) + "\n"))
    return written
