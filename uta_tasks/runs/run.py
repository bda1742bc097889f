"""One lm-eval run of uta tasks, read from its output folder: results, samples, groups."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from uta_tasks.runs.fingerprint import run_sources
from uta_tasks.runs.folder import RunFiles, single_run
from uta_tasks.runs.reading import read_task
from uta_tasks.runs.results_file import read_results
from uta_tasks.runs.task_run import TaskRun
from uta_tasks.schema import output


@dataclass
class Run:
    """A run: its files, tasks and groups.

    Attributes:
        files: where it was read from.
        results: the results JSON as lm-eval wrote it (NaN kept as float NaN).
        tasks: task name -> :class:`TaskRun` (groups excluded).
        groups: group name -> its leaf tasks (nested groups flattened).
        sources: file name -> size, time and SHA-256 of the results and samples files, taken
            before they were read (:mod:`uta_tasks.runs.fingerprint`; ``summary.json`` records them).
    """

    files: RunFiles
    results: dict[str, Any]
    tasks: dict[str, TaskRun] = field(default_factory=dict)
    groups: dict[str, list[str]] = field(default_factory=dict)
    sources: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def has_samples(self) -> bool:
        """True when every uta task of the run has logged samples."""
        uta = [t for t in self.tasks.values() if t.is_uta]
        return bool(uta) and all(t.logged for t in uta)

    def members(self, name: str) -> list[str]:
        """The tasks behind a task or group name (a task stands for itself).

        Args:
            name: task or group name.
        """
        return list(self.groups[name]) if name in self.groups else [name]


def _split_metrics(row: dict[str, Any]) -> tuple[dict[str, float], dict[str, float]]:
    values: dict[str, float] = {}
    stderrs: dict[str, float] = {}
    suffix = f",{output.FILTER}"
    for key, raw in row.items():
        if not key.endswith(suffix):
            continue
        metric = key[: -len(suffix)]
        try:
            number = math.nan if raw is None else float(raw)  # null: a strict-JSON writer's NaN (uta-rejudge)
        except (TypeError, ValueError):
            continue
        if metric.endswith("_stderr"):
            stderrs[metric[: -len("_stderr")]] = number
        else:
            values[metric] = number
    return values, stderrs


def _flatten(group: str, subtasks: dict[str, list[str]], seen: frozenset[str] = frozenset()) -> list[str]:
    out: list[str] = []
    for child in subtasks.get(group, []):
        if child in subtasks and child not in seen:
            out.extend(_flatten(child, subtasks, seen | {group}))
        elif child not in subtasks:
            out.append(child)
    return list(dict.fromkeys(out))


def _task(name: str, results: dict[str, Any], files: RunFiles, examples: int, all_docs: bool) -> TaskRun:
    config = (results.get("configs") or {}).get(name) or {}
    meta = config.get("metadata") or {}
    values, stderrs = _split_metrics((results.get("results") or {}).get(name) or {})
    n_samples = (results.get("n-samples") or {}).get(name) or {}
    benchmark = meta.get(output.META_BENCHMARK)
    task = TaskRun(
        name=name,
        benchmark=str(benchmark) if benchmark else None,
        perturbation=str(meta.get(output.META_PERTURBATION, output.PERTURBATION_NONE)),
        repeats=int(config.get("repeats") or 1),
        n_docs=int(n_samples["effective"]) if "effective" in n_samples else None,
        values=values,
        stderrs=stderrs,
        config=config,
        run_config={**(results.get("config") or {}), "system_instruction": results.get("system_instruction")},
    )
    path = files.samples.get(name)
    if task.is_uta and path is not None:
        found = read_task(path, name, meta, task.primary, set(values), examples, all_docs)
        task.observations, task.facts, task.examples, task.all_docs = (found.observations, found.facts,
                                                                       found.examples, found.docs)
        task.values.update(found.values)
        task.from_samples = frozenset(found.values)
    return task


def load_run(path: str | Path | RunFiles, *, examples: int = 0, all_docs: bool = False) -> Run:
    """Read a run (the newest in a folder; see :func:`uta_tasks.runs.folder.single_run`).

    Each samples file is read in one pass, a doc at a time (:mod:`uta_tasks.runs.reading`):
    the tasks get their measurements, not their docs.

    Args:
        path: an lm-eval output folder, a results file, or :class:`RunFiles`.
        examples: per task, the first logged docs to keep (:attr:`TaskRun.examples`).
        all_docs: keep every logged doc of every task (:attr:`TaskRun.docs`); memory grows with
            the samples files, for a reader that needs each record.
    """
    files = path if isinstance(path, RunFiles) else single_run(path)
    sources = run_sources(files)  # before reading: a file changed while read makes the summary stale, never current
    results = read_results(files.results)
    subtasks = {str(k): list(v) for k, v in (results.get("group_subtasks") or {}).items()}
    run = Run(files=files, results=results, sources=sources)
    run.groups = {group: _flatten(group, subtasks) for group in subtasks}
    for name in results["results"]:
        if name not in subtasks:
            run.tasks[name] = _task(name, results, files, examples, all_docs)
    return run
