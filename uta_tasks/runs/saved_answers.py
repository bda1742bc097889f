"""Answers read from a saved run (the task setting ``answers_from``).

A saved run is an lm-eval output folder (or one ``samples_<task>_<date>.jsonl`` in it) written
with ``--log_samples``: a plain lm-eval run of the source task of a wrapped ``uta:NAME`` task,
or an earlier uta run. Per document it holds the prompt the model saw and its raw response:
lm-eval's ``arguments`` and ``resps``, or, in a uta run's samples, the probe record's
``pass1_prompt`` and ``a`` (the whole turn). The results file beside it names the model, its
``model_args``, the lm-eval version and the generation settings.

Everything here is read once per task, when lm-eval builds the task; the refusals that need
no model (no samples, a model other than the run's, a document the run lacks) are raised here,
the others by the probe before pass 1 (:func:`uta_tasks.probe.saved.check`). A run whose
reasoning lm-eval cut out before logging (``think_end_token``) holds no pass-1 trace: it runs
only as the rendered-history ablation (:func:`stripped_context`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from uta_tasks.probe.backend import temperature
from uta_tasks.probe.trace import PASS2_CONTEXTS
from uta_tasks.runs.folder import SAMPLES_NAME, RunNotFoundError, _from_model_args, model_name, single_run
from uta_tasks.runs.jsonio import read_json, read_jsonl
from uta_tasks.schema import output
from uta_tasks.schema.probe import ProbeRecord, SavedAnswer


class SavedRunError(ValueError):
    """A saved run cannot give a task its answers; the message names the task, the file and the fix."""


#: ``pass2_context``: the paper's pass 2 (the trace), and the rendered-history ablation a saved run
#: without its reasoning runs as
PAPER_CONTEXT, RENDERED_CONTEXT = PASS2_CONTEXTS[0], PASS2_CONTEXTS[1]
_MODEL_KEYS = ("peft", "delta", "pretrained", "model", "path", "engine")
# lm-eval's sample keys: the request's arguments and the raw responses (before any filter).
_ARGUMENTS, _RAW_RESPS = "arguments", "resps"


@dataclass(frozen=True)
class SavedTask:
    """One task's saved answers.

    Attributes:
        task: the saved run's task name the answers come from.
        samples: its samples file.
        answers: doc_id -> the saved answer.
        docs: doc_id -> the saved document (to check it is the same document).
        source: ``{path, model, lm_eval_version, config_digest, samples}``.
    """

    task: str
    samples: Path
    answers: dict[int, SavedAnswer]
    docs: dict[int, Any]
    source: dict[str, Any]

    def answer(self, task: str, doc_id: int, doc: Mapping[str, Any]) -> SavedAnswer:
        """The saved answer of one document, or a refusal naming it.

        Args:
            task: the probe task (for the message).
            doc_id: the document's index.
            doc: the document the probe evaluates.
        """
        if doc_id not in self.answers:
            have = sorted(self.answers)
            raise SavedRunError(
                f"{task}: document {doc_id} is not in the saved run {self.samples} (it holds {len(have)} documents, "
                f"ids {have[0] if have else '-'}..{have[-1] if have else '-'}); run the probe with the saved run's "
                "--limit and data files, or save a run of every document"
            )
        saved = self.docs.get(doc_id)
        if saved is not None and _plain(saved) != _plain(dict(doc)):
            raise SavedRunError(
                f"{task}: document {doc_id} of the saved run {self.samples} is another document than the probe's "
                "(another data set, split or data files); point the probe at the same data (<task>_data_files)"
            )
        return self.answers[doc_id]


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, sort_keys=True, default=str))


def _samples_file(path: Path, names: Sequence[str], task: str) -> tuple[Path, Path | None, str]:
    """The samples file of the first of ``names`` the saved run holds, and its results file."""
    if path.is_file():
        match = SAMPLES_NAME.match(path.name)
        if match is None:
            raise SavedRunError(f"{task}: answers_from={path}: not an lm-eval samples_<task>_<date>.jsonl file or a run folder")
        results = path.with_name(f"{output.RESULTS_PREFIX}{match['date']}.json")
        return path, results if results.exists() else None, match["task"]
    try:
        run = single_run(path)
    except RunNotFoundError as exc:
        raise SavedRunError(f"{task}: answers_from={path}: {exc}") from None
    if not run.samples:
        raise SavedRunError(
            f"{task}: answers_from={path}: the run {run.results.name} has no samples files; run it again with --log_samples "
            "(the probe needs every document's prompt and response)"
        )
    for name in names:
        if name in run.samples:
            return run.samples[name], run.results, name
    raise SavedRunError(
        f"{task}: answers_from={path}: the run {run.results.name} logged samples of {sorted(run.samples)}, not of "
        f"{' or '.join(names)}; point answers_from at a run of that task"
    )


def run_files(path: str | Path) -> list[Path]:
    """The files ``answers_from`` reads: the samples file given, or the newest run's results
    and samples files in the folder given.

    Args:
        path: the ``answers_from`` setting.
    """
    root = Path(path).expanduser()
    if root.is_file():
        return [root]
    try:
        run = single_run(root)
    except RunNotFoundError as exc:
        raise SavedRunError(f"answers_from={path}: {exc}") from None
    return [run.results, *run.samples.values()]


def _digest(results: Mapping[str, Any], task: str) -> str:
    config = {"config": results.get("config"), "task": (results.get("configs") or {}).get(task)}
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _arguments(line: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    args = line.get(_ARGUMENTS)
    if isinstance(args, dict):  # lm-eval 0.4: {"gen_args_0": {"arg_0": prompt, "arg_1": gen_kwargs}}
        first: dict[str, Any] = next(iter(args.values()), {})
        return str(first.get("arg_0", "")), dict(first.get("arg_1") or {})
    if isinstance(args, list) and args and isinstance(args[0], list):  # [[prompt, gen_kwargs]]
        return str(args[0][0]), dict(args[0][1] if len(args[0]) > 1 else {})
    return "", {}


def _uta_record(line: Mapping[str, Any]) -> ProbeRecord | None:
    try:
        item = line[output.SAMPLE_RESPS][0][0]
        data = json.loads(item) if isinstance(item, str) else item
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    if not isinstance(data, dict) or "pass1_prompt" not in data or "a" not in data:
        return None
    return ProbeRecord.from_json(data)


def _scores(line: Mapping[str, Any], primary: str | None) -> dict[str, Any]:
    filter_name = line.get("filter")
    out = {}
    for metric in line.get("metrics") or []:
        if metric in line:
            name = metric if filter_name in (None, "none") else f"{metric}_{filter_name}"
            out[name.replace(",", "_")] = line[metric]
    if primary and primary in line:
        out[primary] = line[primary]
    return out


def load(path: str | Path, names: Sequence[str], task: str) -> SavedTask:
    """Read the saved answers of a task.

    Args:
        path: ``answers_from``: a run folder (the newest run in it) or a samples file.
        names: the task names to look for in the saved run, in order (the task itself, its
            unperturbed task, the source task of a wrapped task).
        task: the probe task (for messages).
    """
    root = Path(path).expanduser()
    if not root.exists():
        raise SavedRunError(f"{task}: answers_from={path} does not exist; give the --output_path folder of a run "
                            "made with --log_samples, or one of its samples_<task>_<date>.jsonl files")
    samples, results_path, name = _samples_file(root, names, task)
    results = read_json(results_path) if results_path is not None else {}
    primary = ((results.get("configs") or {}).get(name, {}).get("metadata") or {}).get("uta_primary")
    answers: dict[int, SavedAnswer] = {}
    docs: dict[int, Any] = {}
    stripped = think_end_token(results.get("config")) is not None
    source = {"path": str(root), "samples": samples.name, "task": name,
              "model": model_name(results, samples.parent) if results else None,
              "lm_eval_version": results.get("lm_eval_version"), "config_digest": _digest(results, name),
              "reasoning_stripped": stripped}
    for where, line in read_jsonl(samples):
        if not isinstance(line, dict) or "doc_id" not in line:
            raise SavedRunError(f"{task}: {where} is not an lm-eval sample (no doc_id)")
        doc_id = int(line["doc_id"])
        record = _uta_record(line)
        if record is not None:
            if record.pass1_prompt is None:
                raise SavedRunError(f"{task}: {where}: document {doc_id} has no generated answer (held-out data); "
                                    "held-out tasks take their answers from the data, not from a saved run")
            prompt, text, kwargs = record.pass1_prompt, record.a, dict(record.generation.get("assistant") or {})
        else:
            prompt, kwargs = _arguments(line)
            try:
                text = line[_RAW_RESPS][0][0]
            except (KeyError, IndexError, TypeError):
                raise SavedRunError(f"{task}: {where}: no response (resps) for document {doc_id}") from None
        scores = _scores(line, primary)
        if doc_id in answers:  # lm-eval 0.4 logs one line per filter: the same answer, more scores
            scores = {**answers[doc_id].scores, **scores}
        answers[doc_id] = SavedAnswer(doc_id, str(prompt), str(text), kwargs, scores, source,
                                      stripped and record is None)
        docs[doc_id] = line.get("doc")
    if not answers:
        raise SavedRunError(f"{task}: {samples} holds no samples; run the saved task again with --log_samples")
    return SavedTask(name, samples, answers, docs, source)


def check_model(task: str, saved: SavedTask, results_config: Mapping[str, Any] | None, meta: Mapping[str, Any]) -> None:
    """Refuse a saved run of another model than ``--model_args`` names.

    Args:
        task: the probe task.
        saved: its saved answers.
        results_config: the saved results' ``config`` (None without a results file).
        meta: the task's metadata (lm-eval's command line adds ``--model_args`` to it).
    """
    _check_model(task, saved.samples, saved.source.get("model"), results_config, meta)


def think_end_token(config: Mapping[str, Any] | None) -> str | None:
    """The ``think_end_token`` the saved run's ``--model_args`` named (lm-eval then cut the
    reasoning out of every response before logging it), or None.

    Args:
        config: the saved results' ``config`` (None without a results file).
    """
    saved_args = (config or {}).get("model_args")
    if isinstance(saved_args, str):
        saved_args = dict(part.split("=", 1) for part in saved_args.split(",") if "=" in part)
    token = saved_args.get("think_end_token") if isinstance(saved_args, dict) else None
    return str(token) if token else None


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
                 model_args: Mapping[str, Any]) -> None:
    current = _from_model_args({k: model_args[k] for k in _MODEL_KEYS if model_args.get(k)})
    if current and saved_model and str(current) != str(saved_model):
        raise SavedRunError(
            f"{where}: the saved run {samples} answered with {saved_model}, but --model_args names "
            f"{current}; the user turn must come from the model that wrote the answer. Use --model_args "
            f"pretrained={saved_model} or a run of {current}"
        )


def precheck(path: str | Path, model_args: Mapping[str, Any], gen_kwargs: Mapping[str, Any],
             pass2_context: Any = None) -> None:
    """The refusals that need neither the model nor the tasks, for ``uta-eval`` to raise before
    lm-eval loads the model: no run or no samples, another model, the paper's trace asked of a
    run whose reasoning ``think_end_token`` stripped, another temperature (the first sample of
    each samples file against ``--gen_kwargs`` over the uta tasks' greedy default).

    Args:
        path: the ``answers_from`` setting.
        model_args: ``--model_args``.
        gen_kwargs: ``--gen_kwargs``.
        pass2_context: the ``pass2_context`` of ``--metadata`` (None: not set).
    """
    where = f"answers_from={path}"
    files = run_files(path)
    samples = [f for f in files if SAMPLES_NAME.match(f.name)]
    if not samples:
        raise SavedRunError(f"{where}: the run {files[0].name} has no samples files; run it again with --log_samples "
                            "(the probe needs every document's prompt and response)")
    match = SAMPLES_NAME.match(samples[0].name)
    assert match is not None
    results = samples[0].with_name(f"{output.RESULTS_PREFIX}{match['date']}.json")
    full = read_json(results) if results.exists() else {}
    _check_model(where, samples[0], model_name(full, samples[0].parent) if full else None, full.get("config"),
                 model_args)
    stripped_context(where, samples[0], full.get("config"), pass2_context)
    mine = temperature(gen_kwargs)
    for file in samples:
        for line_where, line in read_jsonl(file):
            record = _uta_record(line)
            kwargs = dict(record.generation.get("assistant") or {}) if record is not None else _arguments(line)[1]
            if temperature(kwargs) != mine:
                raise SavedRunError(
                    f"{line_where}: the saved run sampled at temperature {temperature(kwargs)}, the probe at {mine}; "
                    f"the paper uses one temperature for the answer and the user turn. Run the probe with "
                    f"--gen_kwargs temperature={temperature(kwargs)}, or save a run at {mine}"
                )
            break


def results_config(saved: SavedTask) -> dict[str, Any]:
    """The ``config`` block of the saved run's results file ({} without one)."""
    match = SAMPLES_NAME.match(saved.samples.name)
    if match is None:
        return {}
    results = saved.samples.with_name(f"{output.RESULTS_PREFIX}{match['date']}.json")
    return dict((read_json(results) or {}).get("config") or {}) if results.exists() else {}
