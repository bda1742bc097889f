"""Where a run's numbers come from: model, judge, prompt version, temperatures, the probe's
modes (``pass2_context``, ``truncate_scope``), versions.

Judge model and prompt version are read from the verdicts in the samples when they were
logged (what was actually used); otherwise from the task's ``--metadata``
(``judge_model``, ``judge_prompt``), and failing that they are the package defaults,
marked ``source: default``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import uta_tasks
from uta_tasks.judge.settings import JudgeSettings
from uta_tasks.runs.run import Run, TaskRun
from uta_tasks.schema import output
from uta_tasks.schema.probe import ProbeSpec
from uta_tasks.schema.verdict import Verdict


def _number(value: Any) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def _one(values: set[Any]) -> Any:
    """A single value, a sorted list when they differ, or None when there is none."""
    clean = {v for v in values if v is not None}
    if not clean:
        return None
    return next(iter(clean)) if len(clean) == 1 else sorted(clean, key=str)


def _from_verdicts(task: TaskRun, read: Callable[[Verdict], Any]) -> Any:
    found: set[Any] = set()
    for doc in task.docs or []:
        for record in doc.records:
            for verdict in record.verdicts().values():
                if verdict is not None and read(verdict):
                    found.add(read(verdict))
    return _one(found)


def _temperature(task: TaskRun) -> Any:
    found: set[Any] = set()
    for doc in task.docs or []:
        for record in doc.records:
            gen = (record.generation or {}).get(output.GEN_ASSISTANT) or {}
            found.add(_number(gen.get(output.GEN_TEMPERATURE, 0.0)))
    if found:
        return _one(found)
    gen_kwargs = task.config.get("generation_kwargs") or {}
    return _number(gen_kwargs.get(output.GEN_TEMPERATURE, 0.0))


def _mode(task: TaskRun, key: str) -> Any:
    """``pass2_context`` or ``truncate_scope``: from the records (a record older than version 3
    did what :data:`~uta_tasks.schema.probe.LEGACY_DEFAULTS` says: ``ProbeRecord.from_json``
    fills it in), else the task's metadata, else the package default."""
    found = {getattr(record, key) for doc in task.docs or [] for record in doc.records}
    if found:
        return _one(found)
    meta = task.config.get("metadata") or {}
    return meta.get(key, getattr(ProbeSpec, key))


def task_provenance(task: TaskRun) -> dict[str, Any]:
    """Judge and sampling settings of one task.

    Args:
        task: a task of a run.
    """
    meta = task.config.get("metadata") or {}
    defaults = JudgeSettings()
    judged = str(meta.get(output.META_JUDGE, "")).lower() != output.JUDGE_OFF
    out: dict[str, Any] = {"temperature": _temperature(task), output.PROV_JUDGED: judged}
    for key in output.RUN_MODES:
        out[key] = _mode(task, key)
    fields: tuple[tuple[str, str, Callable[[Verdict], Any], Any], ...] = (
        ("judge_model", output.META_JUDGE_MODEL, lambda v: v.judge_model, defaults.model),
        ("prompt_version", output.META_JUDGE_PROMPT, lambda v: v.prompt_version, defaults.prompt),
    )
    for key, meta_key, read, default in fields:
        logged = _from_verdicts(task, read)
        if logged is not None:
            out[key], out[f"{key}_source"] = logged, "samples"
        elif meta.get(meta_key) is not None:
            out[key], out[f"{key}_source"] = meta[meta_key], "metadata"
        else:
            out[key], out[f"{key}_source"] = (default if judged else None), "default"
    raw = meta.get(output.META_JUDGE_TEMPERATURE, defaults.temperature)
    out["judge_temperature"] = _number(raw) if _number(raw) is not None else raw
    out["task_version"] = meta.get("version")
    return out


def model_name(results: dict[str, Any]) -> str:
    """The model's name as lm-eval recorded it (``model_name``, else ``pretrained=`` of model_args).

    Args:
        results: the results JSON.
    """
    if results.get("model_name"):
        return str(results["model_name"])
    args = (results.get("config") or {}).get("model_args")
    if isinstance(args, dict) and args.get("pretrained"):
        return str(args["pretrained"])
    match = re.search(r"pretrained=([^,]+)", str(args or ""))
    return match.group(1) if match else str((results.get("config") or {}).get("model") or "unknown model")


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
        "model": model_name(results),
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
