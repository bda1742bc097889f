"""One lm-eval run of uta tasks, read from its output folder: results, samples, groups."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from uta_tasks.datasets import BENCHMARKS
from uta_tasks.runs.folder import RunFiles, single_run
from uta_tasks.runs.from_samples import measure_docs, missing_values
from uta_tasks.runs.observations import Observations, from_measured
from uta_tasks.runs.results_file import read_results
from uta_tasks.runs.samples import DocSample, read_samples
from uta_tasks.schema import output


@dataclass
class TaskRun:
    """One task of a run.

    Attributes:
        name: task name.
        benchmark: ``uta_benchmark`` of the task config (None for tasks that are not uta tasks).
        perturbation: ``none``, ``trunc`` or ``question``.
        repeats: lm-eval ``repeats``.
        n_docs: docs evaluated (lm-eval's effective n-samples), or None when not reported.
        values: metric -> value from the results JSON (NaN where lm-eval wrote NaN).
        stderrs: metric -> lm-eval's bootstrap standard error (NaN or absent when it has none).
        config: the task config lm-eval dumped.
        docs: the logged samples, or None without --log_samples.
        observations: per-turn observations from the samples, or None without them.
        run_config: the run's own settings from the results JSON (``config``: model,
            ``model_args``, ``gen_kwargs``, ``limit``; and ``system_instruction``).
        from_samples: metrics the results file does not hold (a run with ``metrics: headline``),
            computed from the samples into ``values``.
    """

    name: str
    benchmark: str | None
    perturbation: str
    repeats: int
    n_docs: int | None
    values: dict[str, float]
    stderrs: dict[str, float]
    config: dict[str, Any]
    docs: list[DocSample] | None = None
    observations: Observations | None = None
    run_config: dict[str, Any] = field(default_factory=dict)
    from_samples: frozenset[str] = frozenset()

    @property
    def model_args(self) -> Any:
        """lm-eval's ``--model_args`` of the run (string or dict as lm-eval wrote it)."""
        return self.run_config.get("model_args")

    @property
    def gen_kwargs(self) -> Any:
        """lm-eval's ``--gen_kwargs`` of the run."""
        return self.run_config.get("gen_kwargs")

    @property
    def system_instruction(self) -> str | None:
        """lm-eval's ``--system_instruction`` of the run, or None."""
        value = self.run_config.get("system_instruction")
        return None if value in (None, "") else str(value)

    @property
    def primary(self) -> str | None:
        """The benchmark's primary accuracy metric (a wrapped lm-eval task's is in its config)."""
        bench = BENCHMARKS.get(self.benchmark) if self.benchmark else None
        return (self.config.get("metadata") or {}).get("uta_primary") if bench is None else bench.primary

    @property
    def is_uta(self) -> bool:
        """True for a uta task (its config names a uta benchmark)."""
        return self.benchmark is not None

    def value(self, metric: str) -> float | None:
        """A metric's value from the results JSON (None when absent or NaN).

        Args:
            metric: metric name as lm-eval reports it.
        """
        value = self.values.get(metric)
        return None if value is None or not math.isfinite(value) else value


@dataclass
class Run:
    """A run: its files, tasks and groups.

    Attributes:
        files: where it was read from.
        results: the results JSON as lm-eval wrote it (NaN kept as float NaN).
        tasks: task name -> :class:`TaskRun` (groups excluded).
        groups: group name -> its leaf tasks (nested groups flattened).
    """

    files: RunFiles
    results: dict[str, Any]
    tasks: dict[str, TaskRun] = field(default_factory=dict)
    groups: dict[str, list[str]] = field(default_factory=dict)

    @property
    def has_samples(self) -> bool:
        """True when every uta task of the run has logged samples."""
        uta = [t for t in self.tasks.values() if t.is_uta]
        return bool(uta) and all(t.docs is not None for t in uta)

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


def _task(name: str, results: dict[str, Any], files: RunFiles) -> TaskRun:
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
        task.docs = read_samples(path, whole_lines=False)
        specs, measured = measure_docs(name, meta, task.docs, task.primary)
        task.observations = from_measured(name, task.docs, measured)
        extra = missing_values(specs, measured, set(values))
        task.values.update(extra)
        task.from_samples = frozenset(extra)
    return task


def load_run(path: str | Path | RunFiles) -> Run:
    """Read a run (the newest in a folder; see :func:`uta_tasks.runs.folder.single_run`).

    Args:
        path: an lm-eval output folder, a results file, or :class:`RunFiles`.
    """
    files = path if isinstance(path, RunFiles) else single_run(path)
    results = read_results(files.results)
    subtasks = {str(k): list(v) for k, v in (results.get("group_subtasks") or {}).items()}
    run = Run(files=files, results=results)
    run.groups = {group: _flatten(group, subtasks) for group in subtasks}
    for name in results["results"]:
        if name not in subtasks:
            run.tasks[name] = _task(name, results, files)
    return run
