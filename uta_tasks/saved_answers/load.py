"""Answers read from a saved run (the task setting ``answers_from``), whatever source wrote it.

``answers_from`` names an lm-eval run (a folder, a samples file, a Hub dataset repo:
:mod:`uta_tasks.saved_answers.hub`) or another harness's log; :func:`load` finds the task's files
(:mod:`uta_tasks.saved_answers.files`) and reads them with the source of their kind
(:mod:`uta_tasks.saved_answers.registry`). Every source gives a :class:`~uta_tasks.saved_answers.task.SavedTask`:
per document the prompt the model saw, its raw response and the generation settings.

Everything here is read once per task, when lm-eval builds the task; the refusals that need
no model (no samples, a model other than the run's, a document the run lacks, a file lm-eval
did not write) are raised here, the others by the probe before pass 1
(:func:`uta_tasks.probe.saved.check`). A run whose reasoning lm-eval cut out before logging
(``think_end_token``) holds no pass-1 trace: it runs only as the rendered-history ablation
(:func:`stripped_context`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from uta_tasks.runs.folder import _from_model_args
from uta_tasks.saved_answers import files, hub, registry
from uta_tasks.saved_answers.harness import SETTING
from uta_tasks.saved_answers.lm_eval import think_end_token
from uta_tasks.saved_answers.source import Ask, SavedFilesError
from uta_tasks.saved_answers.task import SavedRunError, SavedTask
from uta_tasks.schema.probe import PASS2_CONTEXTS, SAVED_LM_EVAL

__all__ = ["SavedRunError", "SavedTask", "check_model", "load", "results_config", "run_files", "stripped_context",
           "think_end_token"]

#: ``pass2_context``: the paper's pass 2 (the trace), and the rendered-history ablation a saved run
#: without its reasoning runs as
PAPER_CONTEXT, RENDERED_CONTEXT = PASS2_CONTEXTS[0], PASS2_CONTEXTS[1]
_MODEL_KEYS = ("peft", "delta", "pretrained", "model", "path", "engine")


def run_files(path: str | Path) -> list[Path]:
    """The files ``answers_from`` reads: for each task the saved run logged, the samples file of
    the newest run holding it and that run's results file.

    Args:
        path: the ``answers_from`` setting.
    """
    try:
        every = files.every_task(path, f"answers_from={path}")
    except SavedFilesError as exc:
        raise SavedRunError(str(exc)) from None
    return [file for found in every for file in ([found.results] if found.results else []) + [found.samples]]


def load(path: str | Path, names: Sequence[str], task: str, stated: Mapping[str, Any] | None = None) -> SavedTask:
    """Read the saved answers of a task.

    Args:
        path: ``answers_from``: a run folder (the newest run holding the task) or a samples file;
            or another harness's log (an inspect_ai log, a lighteval details file, ...), or a folder
            holding one.
        names: the task names to look for in the saved run, in order (the task itself, its
            unperturbed task, the source task of a wrapped task).
        task: the probe task (for messages).
        stated: ``answers_from_settings``: what a log does not record.
    """
    try:
        root, at_hub = hub.local_path(str(path), names, task)
        found = files.find(root, names, task)
    except (hub.HubSourceError, SavedFilesError) as exc:
        raise SavedRunError(str(exc)) from None
    return registry.get(found.kind).read(found, Ask(str(path) if at_hub else str(root), at_hub, task, stated))


def check_model(task: str, saved: SavedTask, results_config: Mapping[str, Any] | None, meta: Mapping[str, Any]) -> None:
    """Refuse a saved run of another model than ``--model_args`` names.

    Args:
        task: the probe task.
        saved: its saved answers.
        results_config: the saved results' ``config`` (None without a results file).
        meta: the task's metadata (lm-eval's command line adds ``--model_args`` to it).
    """
    _check_model(task, saved.samples, saved.source.get("model"), results_config, meta, saved.kind != SAVED_LM_EVAL)


def stripped_context(where: str, samples: Path, config: Mapping[str, Any] | None, asked: Any) -> str | None:
    """The ``pass2_context`` a saved run without its reasoning runs as: None when the saved
    responses are whole turns; the rendered-history ablation (``template``) when lm-eval cut the
    reasoning out before logging (``think_end_token``), as no pass-1 trace is left; a refusal
    naming the fix when the user asked for the paper's trace.

    Args:
        where: the task (or ``answers_from=...``), for the message.
        samples: the saved samples file.
        config: the saved results' ``config``.
        asked: the ``pass2_context`` the user's ``--metadata`` set (None: not set).
    """
    token = think_end_token(config)
    if token is None:
        return None
    if asked is not None and str(asked) != RENDERED_CONTEXT:
        raise SavedRunError(
            f"{where}: the saved run {samples} was made with --model_args think_end_token={token}, so lm-eval cut the "
            f"reasoning out of every response before logging it, and pass2_context={asked} (the paper's pass 2) needs "
            f"the whole turn. Leave pass2_context out of --metadata (or set it to {RENDERED_CONTEXT}) to run the "
            "rendered-history ablation, not comparable with the paper, or save the run again without think_end_token"
        )
    return RENDERED_CONTEXT


def _check_model(where: str, samples: Path, saved_model: str | None, config: Mapping[str, Any] | None,
                 model_args: Mapping[str, Any], harness: bool = False) -> None:
    current = _from_model_args({k: model_args[k] for k in _MODEL_KEYS if model_args.get(k)})
    if current and saved_model and str(current) != str(saved_model):
        stated = (f"; if the log names a served alias of {current}, state it with --metadata "
                  f"'{{\"{SETTING}\": {{\"model\": \"{current}\"}}}}'" if harness else "")
        raise SavedRunError(
            f"{where}: the saved run {samples} answered with {saved_model}, but --model_args names "
            f"{current}; the user turn must come from the model that wrote the answer. Use --model_args "
            f"pretrained={saved_model} or a run of {current}{stated}"
        )


def results_config(saved: SavedTask) -> dict[str, Any]:
    """The ``config`` block of the saved run's results file ({} without one)."""
    return saved.config
