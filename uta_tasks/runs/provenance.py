"""Where a run's numbers come from: model, judge, prompt version, temperatures, the probe's
modes (``pass2_context``, ``truncate_scope``), versions.

Each task's settings are read by the comparability table (:mod:`uta_tasks.runs.comparability`),
the one reader of every setting that changes the measurement: judge model and prompt version
from the verdicts when samples were logged (what was actually used), else the task's
``--metadata``, else the package defaults, marked ``source: default``.
"""

from __future__ import annotations

from typing import Any

import uta_tasks
from uta_tasks.runs.comparability import one_value as _one
from uta_tasks.runs.comparability import read_settings
from uta_tasks.runs.folder import model_name
from uta_tasks.runs.run import Run
from uta_tasks.runs.task_run import TaskRun
from uta_tasks.schema import output


def task_provenance(task: TaskRun) -> dict[str, Any]:
    """Every setting of the comparability table (:mod:`uta_tasks.runs.comparability`) of one
    task, with where the judge's model and prompt were read from, and the task's version.

    Args:
        task: a task of a run.
    """
    out = read_settings(task)
    out["task_version"] = (task.config.get("metadata") or {}).get("version")
    out["answers_from"] = answers_source(task)
    return out


def answers_source(task: TaskRun) -> dict[str, Any] | None:
    """Where a task's pass-1 answers were read from (``answers_from``): the saved run's path,
    model, lm-eval version and config digest, from the records, else the task's dumped
    configuration; None when pass 1 generated them. Not a comparability setting: answers read
    from a saved run compare with generated ones exactly when the generation settings of
    :mod:`uta_tasks.runs.comparability` agree (the probe refuses another temperature).

    Args:
        task: a task of a run.
    """
    found = task.facts.answer_source if task.facts is not None else None
    if found is not None:
        return found
    meta = task.config.get("metadata") or {}
    source = meta.get(output.META_ANSWERS_SOURCE)
    return source or ({"path": meta["answers_from"]} if meta.get("answers_from") else None)


def verdicts_source(results: dict[str, Any]) -> dict[str, Any]:
    """Where a run's verdicts came from: ``{"source": "live"}``, or ``{"source": "rejudge", "judge": {...},
    "date": ..., "source_results": path}`` for a folder written by ``uta-rejudge``.

    Args:
        results: the results JSON.
    """
    block = results.get(output.REJUDGE_KEY)
    if not isinstance(block, dict):
        return {"source": output.VERDICTS_LIVE}
    return {"source": output.VERDICTS_REJUDGE, "judge": block.get("judge"), "date": block.get("date"),
            "source_results": block.get("source_results")}


def run_provenance(run: Run) -> dict[str, Any]:
    """Provenance of a whole run: model, versions, and per-task judge and sampling settings.

    Args:
        run: the run.
    """
    results = run.results
    config = results.get("config") or {}
    tasks = {name: task_provenance(t) for name, t in run.tasks.items() if t.is_uta}
    return {
        "model": model_name(results, run.files.results.parent),
        "model_backend": config.get("model"),
        "model_args": config.get("model_args"),
        "gen_kwargs": config.get("gen_kwargs"),
        "limit": config.get("limit"),
        "lm_eval_version": results.get("lm_eval_version"),
        "transformers_version": results.get("transformers_version"),
        "summarized_by": f"uta-tasks {uta_tasks.__version__}",
        "git_hash": results.get("git_hash"),
        "date": results.get("date"),
        "results_file": run.files.results.name,
        "verdicts": verdicts_source(results),
        "samples_logged": run.has_samples,
        "judge_model": _one({_hashable(p["judge_model"]) for p in tasks.values()}),
        "prompt_version": _one({_hashable(p["prompt_version"]) for p in tasks.values()}),
        "judge_temperature": _one({_hashable(p["judge_temperature"]) for p in tasks.values()}),
        "temperature": _one({_hashable(p["temperature"]) for p in tasks.values()}),
        **{key: _one({_hashable(p[key]) for p in tasks.values()}) for key in output.RUN_MODES},
        "tasks": tasks,
    }


def _hashable(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value
