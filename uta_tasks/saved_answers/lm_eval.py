"""The lm-eval samples reader: a run made with ``--log_samples`` as the task's saved answers.

A plain lm-eval run of the source task of a wrapped ``uta:NAME`` task, or an earlier uta run
(:mod:`uta_tasks.saved_answers.lm_eval_files` finds the newest run holding the task,
:mod:`uta_tasks.saved_answers.lm_eval_lines` reads its lines). Per document it holds the prompt the
model saw and its raw response; the results file beside it names the model, its ``model_args``, the
lm-eval version and the generation settings. It records every setting itself: nothing is stated.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from uta_tasks.runs.folder import model_name
from uta_tasks.runs.jsonio import read_json, read_jsonl
from uta_tasks.saved_answers import lm_eval_files, lm_eval_lines
from uta_tasks.saved_answers.source import Ask, SavedFiles
from uta_tasks.saved_answers.task import SavedRunError, SavedTask
from uta_tasks.schema.probe import SavedAnswer

files = lm_eval_files.samples_file


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


def _read(path: Path, where: str) -> Any:
    try:
        return read_json(path)
    except (ValueError, OSError) as exc:
        raise SavedRunError(f"{where}: {exc}") from None


def _results(found: SavedFiles, where: str) -> dict[str, Any]:
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


def _samples(found: SavedFiles) -> Iterator[tuple[str, Any]]:
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


def read(found: SavedFiles, ask: Ask) -> SavedTask:
    """The saved answers of an lm-eval run's samples file (and its results file).

    Args:
        found: the files of the task.
        ask: what the probe asks (the task, the path as shown).
    """
    task = ask.task
    if ask.stated:
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
    source = {"path": ask.path, "hub": ask.hub, "samples": found.samples.name, "task": found.task,
              "model": model_name(results, found.samples.parent) if results else None,
              "lm_eval_version": results.get("lm_eval_version"), "config_digest": None,
              "reasoning_stripped": stripped}
    lines: list[lm_eval_lines.SavedLine] = []
    try:
        for where, raw in _samples(found):
            line = lm_eval_lines.parse(raw, where, primary)
            lines.append(line)
            digest.update(json.dumps([line.doc_id, line.prompt, line.messages, line.text, line.gen_kwargs], sort_keys=True,
                                     default=str).encode())
    except lm_eval_lines.SavedLineError as exc:
        raise SavedRunError(f"{task}: {exc}") from None
    except (ValueError, OSError) as exc:
        raise SavedRunError(f"{task}: {exc}; answers_from reads lm-eval --log_samples files") from None
    source["config_digest"] = digest.hexdigest()[:16]
    for line, told in zip(lines, lm_eval_lines.told_scores(lines, _filters(results, found.task)), strict=True):
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


