"""The resume rule: is a model's run folder complete, and was it made with the settings the
comparison asks for now? A complete run made with the same settings is not run again.

The run is read as every command reads it: its newest results file
(:func:`uta_tasks.runs.single_run`) and its summary (:func:`uta_tasks.runs.load_summary`:
``summary.json`` when the SHA-256 of every results and samples file is the one it recorded,
:mod:`uta_tasks.runs.fingerprint`, else rebuilt from the files). The summary's provenance
(:mod:`uta_tasks.runs.provenance`) and lm-eval's own record of the command line decide:

* **missing**: no results file (lm-eval writes it last: a killed run has none);
* **incomplete**: a planned task is not in it, has no samples file, or evaluated another number
  of documents than the plan's;
* **different**: another backend, ``--model_args`` (compared with credentials masked, as lm-eval's
  results record them), ``--limit`` or ``--gen_kwargs``; a ``--metadata`` setting the task's
  configuration records with another value (``answers_from`` and the judge's settings
  included); verdicts where none were asked for, or none where they were (the comparability
  table's ``judged``, :mod:`uta_tasks.runs.comparability`);
* **complete**: none of these.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from uta_tasks.judge.redact import redact_value
from uta_tasks.runs import EstimateSettings, RunFiles, RunNotFoundError, load_summary, single_run
from uta_tasks.schema import output
from uta_tasks.schema.compare import RUN_COMPLETE, RUN_DIFFERENT, RUN_INCOMPLETE, RUN_MISSING, RunStatus


@dataclass(frozen=True)
class Expected:
    """What a model's run must have been made with.

    Attributes:
        backend: ``--model``.
        model_args: ``--model_args``.
        docs: each planned uta task and the documents it evaluates.
        limit: ``--limit``.
        gen_kwargs: ``--gen_kwargs`` as lm-eval parses it.
        metadata: ``--metadata``.
        judged: whether its verdicts are asked for (False for a ``--predict_only`` run).
    """

    backend: str
    model_args: str
    docs: dict[str, int]
    limit: float | None
    gen_kwargs: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    judged: bool = True


@dataclass(frozen=True)
class RunState:
    """Where a model's run folder stands.

    Attributes:
        status: ``missing``, ``incomplete``, ``different`` or ``complete``.
        reason: why, in words (empty when complete).
        files: the run read, or None when there is none.
    """

    status: RunStatus
    reason: str = ""
    files: RunFiles | None = None


def _args(value: Any) -> dict[str, Any]:
    from uta_tasks import lm_eval_compat as compat

    if isinstance(value, dict):
        return {str(k): v for k, v in value.items()}
    return compat.parse_args_string(str(value or ""))


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return math.isclose(float(a), float(b))
    return bool(a == b)


def _command(summary: dict[str, Any], expected: Expected) -> str | None:
    """Why lm-eval's record of the run's command line differs from what is asked, or None."""
    config = (summary.get("lm_eval") or {}).get("config") or {}
    if config.get("model") != expected.backend:
        return f"--model {config.get('model')!r}, asked {expected.backend!r}"
    asked = _args(redact_value({"model_args": expected.model_args})["model_args"])
    recorded = _args(config.get("model_args"))
    if {k: str(v) for k, v in recorded.items()} != {k: str(v) for k, v in asked.items()}:
        return "--model_args differ"
    limit = config.get("limit")
    if (limit is None) != (expected.limit is None) or (limit is not None and not _same(limit, expected.limit)):
        return f"--limit {limit!r}, asked {expected.limit!r}"
    recorded_kwargs = _args(config.get("gen_kwargs"))
    if {k: str(v) for k, v in recorded_kwargs.items()} != {k: str(v) for k, v in expected.gen_kwargs.items()}:
        return f"--gen_kwargs {recorded_kwargs!r}, asked {expected.gen_kwargs!r}"
    return None


def _task(summary: dict[str, Any], task: str, docs: int, expected: Expected) -> tuple[RunStatus, str] | None:
    """Why one planned task of the run is incomplete or different, or None."""
    row = (summary.get("tasks") or {}).get(task)
    if row is None:
        return RUN_INCOMPLETE, f"{task} is not in the run"
    if not row.get("samples"):
        return RUN_INCOMPLETE, f"{task} has no samples file"
    if row.get("n_docs") != docs:
        return RUN_INCOMPLETE, f"{task} evaluated {row.get('n_docs')} documents, the plan {docs}"
    settings = ((summary.get("provenance") or {}).get("tasks") or {}).get(task) or {}
    if bool(settings.get(output.PROV_JUDGED)) != expected.judged:
        return RUN_DIFFERENT, f"{task} {'has' if settings.get(output.PROV_JUDGED) else 'lacks'} verdicts"
    recorded = (((summary.get("lm_eval") or {}).get("configs") or {}).get(task) or {}).get("metadata") or {}
    asked = redact_value(dict(expected.metadata))
    for key, value in asked.items():
        if not _same(recorded.get(key), value):
            return RUN_DIFFERENT, f"{task}: --metadata {key} {recorded.get(key)!r}, asked {value!r}"
    return None


def run_state(folder: Path, expected: Expected, settings: EstimateSettings | None = None) -> RunState:
    """Where the run in ``folder`` stands against ``expected`` (the module's rule).

    Args:
        folder: the model's ``--output_path``.
        expected: what it must have been made with.
        settings: the interval settings its ``summary.json`` is made with.
    """
    try:
        files = single_run(folder)
    except RunNotFoundError:
        return RunState(RUN_MISSING, f"no results file under {folder}")
    summary = load_summary(files, settings)
    reason = _command(summary, expected)
    if reason is not None:
        return RunState(RUN_DIFFERENT, reason, files)
    for task, docs in expected.docs.items():
        found = _task(summary, task, docs, expected)
        if found is not None:
            return RunState(found[0], found[1], files)
    return RunState(RUN_COMPLETE, "", files)
