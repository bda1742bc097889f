"""One line of a saved samples file read as a document's answer (``answers_from``).

Two kinds of line, each checked before anything is used, so that a file lm-eval did not write
is refused naming its file and line, never read half-way:

- a line of lm-eval's ``--log_samples`` (0.4.x and 0.5 write the same keys): ``doc_id``, ``doc``,
  ``arguments`` (the prompt and its generation settings; ``{"gen_args_0": {"arg_0": prompt,
  "arg_1": gen_kwargs}}`` in the files of 0.4.3 and later, ``[[prompt, gen_kwargs]]`` before), ``resps``
  (the raw responses, ``[[text]]``), ``filter``, ``metrics`` and each metric's value. lm-eval before
  0.4.7 writes neither ``filter`` nor ``metrics``: one line per filter of the task, in the order of its
  ``filter_list``, each metric's value under the metric's bare name (``exact_match``); such a line's
  scores are kept in ``bare_scores`` until the reader of the whole file tells its filter;
- a line of an earlier uta run: it holds the probe record (:func:`uta_tasks.runs.logged.logged_records`), whose
  ``pass1_prompt`` and ``a`` (the whole turn) are pass 1.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from uta_tasks.runs.logged import logged_records
from uta_tasks.schema.probe import ProbeRecord

# lm-eval's sample keys: the request's arguments and the raw responses (before any filter).
_ARGUMENTS, _RAW_RESPS = "arguments", "resps"
#: every key lm-eval (0.4.0 to 0.5) writes in a samples line besides the metrics' values
_SAMPLE_KEYS = frozenset({"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics",
                          "doc_hash", "prompt_hash", "target_hash"})


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
        bare_scores: a line that does not name its filter (lm-eval before 0.4.7): its metrics' values
            by their bare names, keyed as ``scores`` are once its filter is told (:func:`told_scores`);
            None for a line that names it.
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
    bare_scores: dict[str, Any] | None = None


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


def keyed(values: Mapping[str, Any], filter_name: str | None) -> dict[str, Any]:
    """Per-document scores keyed as the probe's metrics are: ``<metric>_<filter>`` (the metric alone
    under lm-eval's filter ``none``).

    Args:
        values: metric -> value, as one samples line logs them.
        filter_name: the line's filter.
    """
    return {(metric if filter_name in (None, "none") else f"{metric}_{filter_name}").replace(",", "_"): value
            for metric, value in values.items()}


def _scores(line: Mapping[str, Any], primary: str | None) -> dict[str, Any]:
    metrics = line.get("metrics")
    named = [m for m in metrics if isinstance(m, str) and m in line] if isinstance(metrics, list) else []
    out = keyed({metric: line[metric] for metric in named}, line.get("filter"))
    if primary and primary in line:
        out[primary] = line[primary]
    return out


def _bare_scores(line: Mapping[str, Any]) -> dict[str, Any] | None:
    """The metrics' values of a line of lm-eval before 0.4.7 (no ``filter``, no ``metrics``): every
    key but lm-eval's own; None for a line that names its filter."""
    if "filter" in line or "metrics" in line:
        return None
    return {key: value for key, value in line.items() if key not in _SAMPLE_KEYS}


def told_scores(lines: Sequence[SavedLine], filters: Sequence[str] | None) -> list[dict[str, Any]]:
    """The scores of each line that does not name its filter, keyed by the filter its place tells:
    lm-eval before 0.4.7 logs one line per filter of the task for each document, filter by filter in
    the order of the task's ``filter_list`` (its results file's ``configs``), so a document's k-th
    line is of the k-th filter. Where that cannot be told (no filter list, or a document with
    another number of lines than filters) no such line keeps scores ({}); a line that names its
    filter gets {} here too (its ``scores`` are keyed already).

    Args:
        lines: the samples file's lines, in its order.
        filters: the task's filters in order (None: not known).
    """
    bare = [line for line in lines if line.bare_scores is not None]
    counts = Counter(line.doc_id for line in bare)
    if not filters or any(count != len(filters) for count in counts.values()):
        return [{} for _ in lines]
    seen: Counter[int] = Counter()
    out: list[dict[str, Any]] = []
    for line in lines:
        if line.bare_scores is None:
            out.append({})
            continue
        out.append(keyed(line.bare_scores, filters[seen[line.doc_id]]))
        seen[line.doc_id] += 1
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
                     False, bare_scores=_bare_scores(line))
