"""Answers read from a saved run (the task setting ``answers_from``).

A saved run is lm-eval output written with ``--log_samples`` (:mod:`uta_tasks.runs.saved_files`
finds the newest run holding the task, :mod:`uta_tasks.runs.saved_lines` reads its lines): a
plain lm-eval run of the source task of a wrapped ``uta:NAME`` task, or an earlier uta run; or
another harness's log (an inspect_ai eval log, a lighteval details file:
:mod:`uta_tasks.runs.saved_harness`), which keeps its documents in its own form, so the probe
checks that each document's text is in the prompt sent instead of comparing documents.
Per document it holds the prompt the model saw and its raw response. The results file beside it
names the model, its ``model_args``, the lm-eval version and the generation settings.

Everything here is read once per task, when lm-eval builds the task; the refusals that need
no model (no samples, a model other than the run's, a document the run lacks, a file lm-eval
did not write) are raised here, the others by the probe before pass 1
(:func:`uta_tasks.probe.saved.check`). A run whose reasoning lm-eval cut out before logging
(``think_end_token``) holds no pass-1 trace: it runs only as the rendered-history ablation
(:func:`stripped_context`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from uta_tasks.probe.trace import PASS2_CONTEXTS
from uta_tasks.runs import hub_source, saved_files, saved_harness, saved_inspect, saved_lighteval, saved_lines
from uta_tasks.runs.folder import _from_model_args, model_name
from uta_tasks.runs.jsonio import read_json, read_jsonl
from uta_tasks.schema.probe import SAVED_INSPECT, SAVED_LM_EVAL, SavedAnswer, SavedKind


class SavedRunError(ValueError):
    """A saved run cannot give a task its answers; the message names the task, the file and the fix."""


#: ``pass2_context``: the paper's pass 2 (the trace), and the rendered-history ablation a saved run
#: without its reasoning runs as
PAPER_CONTEXT, RENDERED_CONTEXT = PASS2_CONTEXTS[0], PASS2_CONTEXTS[1]
_MODEL_KEYS = ("peft", "delta", "pretrained", "model", "path", "engine")


@dataclass(frozen=True)
class SavedTask:
    """One task's saved answers.

    Attributes:
        task: the saved run's task name the answers come from.
        samples: its samples file.
        answers: doc_id -> the saved answer.
        docs: doc_id -> the saved document (to check it is the same document); for another
            harness's log, the text it sent for the document (which must hold the document's text).
        source: ``{path, model, lm_eval_version, config_digest, samples}``; ``config_digest`` is
            a digest of the saved run's configuration and of every prompt, response and
            generation setting read.
        config: the ``config`` block of the saved run's results file ({} without one).
        kind: the harness that wrote the saved run.
        num_fewshot: the few-shot examples of the saved run's prompts, as its results file gives
            them (``n-shot``, else the task's ``num_fewshot``; None when it says nothing).
    """

    task: str
    samples: Path
    answers: dict[int, SavedAnswer]
    docs: dict[int, Any]
    source: dict[str, Any]
    config: dict[str, Any]
    kind: SavedKind = SAVED_LM_EVAL
    num_fewshot: int | None = None

    def answer(self, task: str, doc_id: int, doc: Mapping[str, Any]) -> SavedAnswer:
        """The saved answer of one document, or a refusal naming it.

        Args:
            task: the probe task (for the message).
            doc_id: the document's index.
            doc: the document the probe evaluates.
        """
        if self.kind != SAVED_LM_EVAL and saved_harness.texts(doc):
            return self._by_text(task, doc_id, doc)
        saved = self.docs.get(doc_id)
        if doc_id in self.answers and (self.kind != SAVED_LM_EVAL or saved is None or _plain(saved) == _plain(dict(doc))):
            return self.answers[doc_id]
        # lm-eval 0.4's --samples hands the task the documents it picks numbered 0, 1, ... and logs them under
        # their own ids (3, 7, ...): the probe's document is then the one saved document equal to it
        same = self._doc_ids.get(_key(doc), []) if self.kind == SAVED_LM_EVAL else []
        if len(same) == 1:
            return self.answers[same[0]]
        if doc_id not in self.answers:
            have = sorted(self.answers)
            raise SavedRunError(
                f"{task}: document {doc_id} is not in the saved run {self.samples} (it holds {len(have)} documents, "
                f"ids {have[0] if have else '-'}..{have[-1] if have else '-'}); run the probe with the saved run's "
                "--limit (or --samples) and data files, or save a run of every document"
            )
        raise SavedRunError(
            f"{task}: document {doc_id} of the saved run {self.samples} is another document than the probe's "
            "(another data set, split or data files); point the probe at the same data (<task>_data_files)"
        )

    @cached_property
    def _doc_ids(self) -> dict[str, list[int]]:
        """The saved documents' ids by their content (an lm-eval run's), to find the probe's document
        where its number is not the saved run's."""
        ids: dict[str, list[int]] = {}
        for doc_id, saved in self.docs.items():
            if saved is not None:
                ids.setdefault(_key(saved), []).append(doc_id)
        return ids

    def _by_text(self, task: str, doc_id: int, doc: Mapping[str, Any]) -> SavedAnswer:
        """Another harness's answer of a document: the sample of its number whose prompt holds the
        document's text, else the one sample whose prompt does (a shuffled draw; lm-eval 0.4's
        ``--samples``, which hands the task the documents it picks numbered 0, 1, ...)."""
        if doc_id in self.answers and saved_harness.holds_text(doc, str(self.docs.get(doc_id) or "")):
            return self.answers[doc_id]
        held = [i for i in sorted(self.answers) if saved_harness.holds_text(doc, str(self.docs.get(i) or ""))]
        if len(held) == 1:
            return self.answers[held[0]]
        shown = repr(saved_harness.texts(doc)[0])  # whole: the text the user must recognise
        if held:
            raise SavedRunError(f"{task}: document {doc_id} ({shown}) is in the prompts of {len(held)} samples of the "
                                f"{self.kind} log {self.samples} (documents {held}); keep one run of each document")
        raise SavedRunError(
            f"{task}: document {doc_id} ({shown}) is in none of the prompts the {self.kind} log {self.samples} sent "
            f"(it holds {len(self.answers)} documents): the log is of other documents; point the probe at the data "
            "the log was made on (<task>_data_files) and at the documents it holds (--limit, --samples)"
        )


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, sort_keys=True, default=str))


def _key(doc: Any) -> str:
    """A document's content as one text: equal for documents :func:`_plain` makes equal."""
    return json.dumps(_plain(dict(doc) if isinstance(doc, Mapping) else doc), sort_keys=True)


def run_files(path: str | Path) -> list[Path]:
    """The files ``answers_from`` reads: for each task the saved run logged, the samples file of
    the newest run holding it and that run's results file.

    Args:
        path: the ``answers_from`` setting.
    """
    try:
        every = saved_files.every_task(path, f"answers_from={path}")
    except saved_files.SavedFilesError as exc:
        raise SavedRunError(str(exc)) from None
    return [file for found in every for file in ([found.results] if found.results else []) + [found.samples]]


def _read(path: Path, where: str) -> Any:
    try:
        return read_json(path)
    except (ValueError, OSError) as exc:
        raise SavedRunError(f"{where}: {exc}") from None


def _results(found: saved_files.SavedFiles, where: str) -> dict[str, Any]:
    results = _read(found.results, where) if found.results is not None else {}
    if not isinstance(results, dict):
        raise SavedRunError(f"{where}: {found.results} is a JSON {type(results).__name__}, not lm-eval's results object")
    return results


def _task_config(results: Mapping[str, Any], task: str) -> dict[str, Any]:
    configs = results.get("configs")
    config = configs.get(task) if isinstance(configs, dict) else None
    return config if isinstance(config, dict) else {}


def _num_fewshot(results: Mapping[str, Any], task: str) -> int | None:
    shots = results.get("n-shot")
    value = shots.get(task) if isinstance(shots, dict) else None
    if value is None:
        value = _task_config(results, task).get("num_fewshot")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _samples(found: saved_files.SavedFiles) -> Iterator[tuple[str, Any]]:
    """Each sample of a samples file, with where it is for messages: a line of a JSON Lines file, or
    an element of the one JSON array lm-eval 0.4.0 to 0.4.2 write."""
    if not found.array:
        yield from read_jsonl(found.samples)
        return
    data = read_json(found.samples)
    if not isinstance(data, list):
        raise ValueError(f"{found.samples} is a JSON {type(data).__name__}, not the array of samples lm-eval 0.4.0 to "
                         "0.4.2 write")
    for number, sample in enumerate(data, start=1):
        yield f"{found.samples} (sample {number} of its array)", sample


def _filters(results: Mapping[str, Any], task: str) -> list[str] | None:
    """The task's filters in the order lm-eval logs one line per filter (its configuration's
    ``filter_list``; ``none`` without one), or None when the results file does not say."""
    config = _task_config(results, task)
    if not config:
        return None
    listed = config.get("filter_list") or []
    if isinstance(listed, list) and all(isinstance(f, dict) and isinstance(f.get("name"), str) for f in listed):
        return [f["name"] for f in listed] or ["none"]
    return None


def _load_harness(found: saved_files.SavedFiles, shown: str, task: str,
                  stated: Mapping[str, Any] | None) -> SavedTask:
    """The saved answers of an inspect_ai log or a lighteval details file."""
    try:
        if found.kind == SAVED_INSPECT:
            log = saved_inspect.read(found.samples, stated)
        else:
            log = saved_lighteval.read(found.samples, found.results, stated)
        if log.model is None:
            raise saved_harness.refuse_unnamed_model(found.samples)
    except saved_harness.HarnessLogError as exc:
        raise SavedRunError(f"{task}: {exc}") from None
    digest = hashlib.sha256(json.dumps(log.facts, sort_keys=True, default=str).encode())
    for line in log.lines:
        digest.update(json.dumps([line.doc_id, line.prompt, line.messages, line.prompt_tokens, line.padded_tokens,
                                  line.text, line.gen_kwargs], sort_keys=True, default=str).encode())
    source = {"path": shown, "hub": None, "samples": found.samples.name, "task": found.task, "model": log.model,
              "lm_eval_version": None, "config_digest": digest.hexdigest()[:16], "reasoning_stripped": False,
              "harness": log.kind, "harness_log": log.facts}
    answers = {line.doc_id: SavedAnswer(line.doc_id, line.prompt, line.text, line.gen_kwargs, {}, source, False,
                                        line.messages, line.prompt_tokens, line.padded_tokens) for line in log.lines}
    if not answers:
        raise SavedRunError(f"{task}: {found.samples} holds no samples")
    sent = {line.doc_id: line.doc for line in log.lines}
    return SavedTask(found.task, found.samples, answers, sent, source, {}, log.kind)


def load(path: str | Path, names: Sequence[str], task: str, stated: Mapping[str, Any] | None = None) -> SavedTask:
    """Read the saved answers of a task.

    Args:
        path: ``answers_from``: a run folder (the newest run holding the task) or a samples file;
            or an inspect_ai log or a lighteval details file (or a folder holding one).
        names: the task names to look for in the saved run, in order (the task itself, its
            unperturbed task, the source task of a wrapped task).
        task: the probe task (for messages).
        stated: ``answers_from_settings``: what an inspect_ai or lighteval log does not record.
    """
    try:
        root, hub = hub_source.local_path(str(path), names, task)
        found = saved_files.find(root, names, task)
    except (hub_source.HubSourceError, saved_files.SavedFilesError) as exc:
        raise SavedRunError(str(exc)) from None
    if found.kind != SAVED_LM_EVAL:
        return _load_harness(found, str(root), task, stated)
    if stated:
        raise SavedRunError(f"{task}: answers_from_settings states what an inspect_ai or lighteval log does not "
                            f"record; the lm-eval run {found.samples} records its own settings: leave it out")
    results = _results(found, task)
    metadata = _task_config(results, found.task).get("metadata")
    primary = metadata.get("uta_primary") if isinstance(metadata, dict) else None
    answers: dict[int, SavedAnswer] = {}
    docs: dict[int, Any] = {}
    stripped = think_end_token(results.get("config")) is not None
    # what the answers are: the run's configuration and every prompt, response and setting read
    digest = hashlib.sha256(json.dumps({"config": results.get("config"), "task": _task_config(results, found.task)},
                                       sort_keys=True, default=str).encode())
    source = {"path": str(path) if hub else str(root), "hub": hub, "samples": found.samples.name, "task": found.task,
              "model": model_name(results, found.samples.parent) if results else None,
              "lm_eval_version": results.get("lm_eval_version"), "config_digest": None,
              "reasoning_stripped": stripped}
    lines: list[saved_lines.SavedLine] = []
    try:
        for where, raw in _samples(found):
            line = saved_lines.parse(raw, where, primary)
            lines.append(line)
            digest.update(json.dumps([line.doc_id, line.prompt, line.messages, line.text, line.gen_kwargs], sort_keys=True,
                                     default=str).encode())
    except saved_lines.SavedLineError as exc:
        raise SavedRunError(f"{task}: {exc}") from None
    except (ValueError, OSError) as exc:
        raise SavedRunError(f"{task}: {exc}; answers_from reads lm-eval --log_samples files") from None
    source["config_digest"] = digest.hexdigest()[:16]
    for line, told in zip(lines, saved_lines.told_scores(lines, _filters(results, found.task)), strict=True):
        scores = {**line.scores, **told}
        if line.doc_id in answers:  # lm-eval 0.4 logs one line per filter: the same answer, more scores
            scores = {**answers[line.doc_id].scores, **scores}
        answers[line.doc_id] = SavedAnswer(line.doc_id, line.prompt, line.text, line.gen_kwargs, scores, source,
                                           stripped and not line.uta_record, line.messages)
        docs[line.doc_id] = line.doc
    if not answers:
        raise SavedRunError(f"{task}: {found.samples} holds no samples; run the saved task again with --log_samples")
    return SavedTask(found.task, found.samples, answers, docs, source, dict(results.get("config") or {}),
                     num_fewshot=_num_fewshot(results, found.task))


def check_model(task: str, saved: SavedTask, results_config: Mapping[str, Any] | None, meta: Mapping[str, Any]) -> None:
    """Refuse a saved run of another model than ``--model_args`` names.

    Args:
        task: the probe task.
        saved: its saved answers.
        results_config: the saved results' ``config`` (None without a results file).
        meta: the task's metadata (lm-eval's command line adds ``--model_args`` to it).
    """
    _check_model(task, saved.samples, saved.source.get("model"), results_config, meta, saved.kind != SAVED_LM_EVAL)


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
                 model_args: Mapping[str, Any], harness: bool = False) -> None:
    current = _from_model_args({k: model_args[k] for k in _MODEL_KEYS if model_args.get(k)})
    if current and saved_model and str(current) != str(saved_model):
        stated = (f"; if the log names a served alias of {current}, state it with --metadata "
                  f"'{{\"{saved_harness.SETTING}\": {{\"model\": \"{current}\"}}}}'" if harness else "")
        raise SavedRunError(
            f"{where}: the saved run {samples} answered with {saved_model}, but --model_args names "
            f"{current}; the user turn must come from the model that wrote the answer. Use --model_args "
            f"pretrained={saved_model} or a run of {current}{stated}"
        )


def results_config(saved: SavedTask) -> dict[str, Any]:
    """The ``config`` block of the saved run's results file ({} without one)."""
    return saved.config
