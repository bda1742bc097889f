"""One line of a saved samples file read as a document's answer (``answers_from``).

Two kinds of line, each checked before anything is used, so that a file lm-eval did not write
is refused naming its file and line, never read half-way:

- a line of lm-eval's ``--log_samples`` (0.4.x and 0.5 write the same keys): ``doc_id``, ``doc``,
  ``arguments`` (the prompt and its generation settings; ``{"gen_args_0": {"arg_0": prompt,
  "arg_1": gen_kwargs}}`` since 0.4.3, ``[[prompt, gen_kwargs]]`` before), ``resps`` (the raw
  responses, ``[[text]]``), ``filter``, ``metrics`` and each metric's value;
- a line of an earlier uta run: it holds the probe record (:func:`uta_tasks.runs.samples.logged_records`), whose
  ``pass1_prompt`` and ``a`` (the whole turn) are pass 1.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from uta_tasks.runs.samples import logged_records
from uta_tasks.schema.probe import ProbeRecord

# lm-eval's sample keys: the request's arguments and the raw responses (before any filter).
_ARGUMENTS, _RAW_RESPS = "arguments", "resps"


class SavedLineError(ValueError):
    """A samples line cannot give a document its answer; the message names the file, the line and the fix."""


@dataclass(frozen=True)
class SavedLine:
    """What one samples line says of its document.

    Attributes:
        doc_id: the document's index.
        doc: the saved document (None when the line holds none).
        prompt: the prompt the model saw.
        text: its response, as logged.
        gen_kwargs: the generation settings of that request.
        scores: the saved run's per-document scores on this line (``metric_filter`` -> value).
        uta_record: True when the line is an earlier uta run's probe record.
        messages: the chat messages sent, where the harness logged them instead of the rendered
            prompt (``prompt`` is then "" until the probe renders them with the model's template).
        prompt_tokens: the token ids sent, where the harness logged them instead of the prompt's
            text (``prompt`` is then "" until the probe decodes them with the model's tokenizer).
        padded_tokens: how many of ``prompt_tokens`` are left padding, as the harness recorded it
            (None: not recorded).
    """

    doc_id: int
    doc: Any
    prompt: str
    text: str
    gen_kwargs: dict[str, Any]
    scores: dict[str, Any]
    uta_record: bool
    messages: list[dict[str, Any]] | None = None
    prompt_tokens: list[int] | None = None
    padded_tokens: int | None = None


def _uta_record(line: Mapping[str, Any]) -> ProbeRecord | None:
    try:
        item = logged_records(dict(line))[0]
        data = json.loads(item) if isinstance(item, str) else item
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    if not isinstance(data, dict) or "pass1_prompt" not in data or "a" not in data:
        return None
    return ProbeRecord.from_json(data)


def _arguments(line: Mapping[str, Any], where: str) -> tuple[str, dict[str, Any]]:
    args = line.get(_ARGUMENTS)
    first: Any = None
    if isinstance(args, dict) and args:  # 0.4.3 and later: {"gen_args_0": {"arg_0": prompt, "arg_1": gen_kwargs}}
        first = next(iter(args.values()))
        first = [first.get("arg_0"), first.get("arg_1")] if isinstance(first, dict) else None
    elif isinstance(args, list) and args and isinstance(args[0], list) and args[0]:  # [[prompt, gen_kwargs]]
        first = [args[0][0], args[0][1] if len(args[0]) > 1 else {}]
    if first is None:
        raise SavedLineError(f"{where}: no request arguments (lm-eval's 'arguments', the prompt the model saw) in this "
                             "line; answers_from reads lm-eval --log_samples files, which log them")
    prompt, kwargs = first
    if not isinstance(prompt, str):
        raise SavedLineError(f"{where}: the logged prompt (arguments) is {type(prompt).__name__}, not text: a chat "
                             "prompt logged as messages is not a rendered prompt; save the run with lm-eval's "
                             "--apply_chat_template")
    if kwargs is None:
        kwargs = {}
    if not isinstance(kwargs, dict):
        raise SavedLineError(f"{where}: the logged generation settings (arguments) are {type(kwargs).__name__}, "
                             "not an object: not an lm-eval generate_until sample")
    return prompt, dict(kwargs)


def _response(line: Mapping[str, Any], where: str, doc_id: int) -> str:
    resps = line.get(_RAW_RESPS)
    if resps is None or resps == []:
        raise SavedLineError(f"{where}: no response (resps) for document {doc_id}; answers_from reads lm-eval "
                             "--log_samples files of generation tasks")
    first = resps[0] if isinstance(resps, list) else None
    if isinstance(first, list) and first and isinstance(first[0], str):
        return first[0]
    raise SavedLineError(f"{where}: the response (resps) of document {doc_id} is {json.dumps(resps, ensure_ascii=False)}, not "
                         "lm-eval's [[text]]: not a generation task's samples file")


def _scores(line: Mapping[str, Any], primary: str | None) -> dict[str, Any]:
    filter_name = line.get("filter")
    out = {}
    metrics = line.get("metrics")
    for metric in metrics if isinstance(metrics, list) else []:
        if isinstance(metric, str) and metric in line:
            name = metric if filter_name in (None, "none") else f"{metric}_{filter_name}"
            out[name.replace(",", "_")] = line[metric]
    if primary and primary in line:
        out[primary] = line[primary]
    return out


def parse(line: Any, where: str, primary: str | None = None) -> SavedLine:
    """Read one samples line, refusing what lm-eval or uta did not write.

    Args:
        line: the decoded JSON line.
        where: ``file:line``, for messages.
        primary: a wrapped task's accuracy metric, kept among the scores.

    Raises:
        SavedLineError: the message names ``where`` and what is missing.
    """
    if not isinstance(line, dict):
        raise SavedLineError(f"{where}: a JSON {type(line).__name__}, not an lm-eval sample (an object with doc_id, "
                             "arguments and resps): this is not an lm-eval --log_samples file")
    doc_id = line.get("doc_id")
    if isinstance(doc_id, bool) or not isinstance(doc_id, int):
        raise SavedLineError(f"{where}: no whole-number doc_id ({json.dumps(doc_id, ensure_ascii=False)}): not an lm-eval sample")
    try:
        record = _uta_record(line)
    except (TypeError, ValueError) as exc:
        raise SavedLineError(f"{where}: a uta probe record that cannot be read ({exc})") from None
    if record is not None:
        if record.pass1_prompt is None:
            raise SavedLineError(f"{where}: document {doc_id} has no generated answer (held-out data); held-out "
                                 "tasks take their answers from the data, not from a saved run")
        return SavedLine(doc_id, line.get("doc"), record.pass1_prompt, record.a,
                         dict(record.generation.get("assistant") or {}), _scores(line, primary), True)
    prompt, kwargs = _arguments(line, where)
    return SavedLine(doc_id, line.get("doc"), prompt, _response(line, where, doc_id), kwargs, _scores(line, primary),
                     False)
