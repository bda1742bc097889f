"""A lighteval details file read as saved answers (``answers_from`` a
``details_<task>_<date>.parquet`` written by ``--save-details``).

lighteval writes its details with ``datasets`` (``Dataset.to_parquet``) and reads them back with
``load_dataset("parquet", ...)``; they are read here with pyarrow, which ``datasets`` brings, so no
extra is needed. Per row:

- **the document**: ``doc.id``, lighteval's index of the document in its evaluation split, is the
  probe's ``doc_id`` (lighteval draws ``--max-samples`` documents at random, seed 42: probe those
  with lm-eval's ``--samples``; lm-eval 0.4 hands the task the documents it picks numbered 0, 1, ...
  (its samples file logs their own ids), so the probe finds each document's sample by its text,
  :meth:`uta_tasks.saved_answers.task.SavedTask.answer`);
- **pass 1**: the prompt as sent: ``model_response.input`` where the backend logs it (a rendered
  string, or the chat messages of the endpoint backends, which the probe renders with the model's
  chat template); lighteval 0.13's transformers backend logs ``input`` empty and the token ids
  sent in ``input_tokens``, which the probe decodes with the model's tokenizer (special tokens
  kept). With ``batch_size`` above 1 those ids hold the batch's left padding in front of the
  prompt (lighteval pads with its tokenizer's end-of-sequence token, which it makes the pad
  token), and ``padded_tokens_count`` says how many: the probe leaves them out
  (:mod:`uta_tasks.probe.saved_tokens`). The document's text is looked for in the prompt, else in
  lighteval's ``doc.query``;
- **the answer**: ``model_response.text[0]``, the raw generation (lighteval's reasoning-tag removal
  writes ``text_post_processed`` and leaves ``text`` whole);
- **generation settings**: the results file of the same run (``results/<model>/results_<date>.json``)
  gives ``generation_parameters``' ``temperature`` and ``max_new_tokens`` (else the task's
  ``doc.generation_size``); ``until`` is every stop string lighteval may have applied, the model's
  ``stop_tokens`` and the task's ``doc.stop_sequences`` (its backends differ: transformers with a
  chat template stops at the end of turn only), so an answer cut at one is completed and one the
  model had ended adds only its end of turn;
- **the model**: the results file's ``config_general.model_name``. Without the results file the
  temperature and the model are not recorded and must be stated.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from uta_tasks.saved_answers import harness
from uta_tasks.saved_answers.harness import HarnessLog, HarnessLogError
from uta_tasks.saved_answers.lm_eval_lines import SavedLine
from uta_tasks.saved_answers.source import SavedFiles
from uta_tasks.schema.probe import SAVED_LIGHTEVAL

# lighteval's details file name: details_<task>_<date>, the date datetime.isoformat() with ':' as '-'
_DETAILS = re.compile(r"^details_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.parquet$")
#: the columns of a details file the probe reads: the document and what the model was sent and answered
_COLUMNS = ("doc", "model_response")


def details_name(path: Path) -> tuple[str, str] | None:
    """``(task, date)`` of a lighteval details file's name, or None."""
    match = _DETAILS.match(path.name)
    return (match["task"], match["date"]) if match else None


def results_of(details: Path, date: str) -> Path | None:
    """The results file of the run a details file belongs to (lighteval's layout:
    ``<out>/details/<model>/<date>/`` beside ``<out>/results/<model>/results_<date>.json``), or None."""
    folder = details.parent
    for above in folder.parents:
        if above.name == "details":
            model = folder.parent.relative_to(above)
            results = above.parent / "results" / model / f"results_{date}.json"
            return results if results.is_file() else None
    return None


def _results(path: Path | None) -> dict[str, Any]:
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise HarnessLogError(f"{path}: not a readable lighteval results file ({harness.reason(exc)})") from None
    return data if isinstance(data, dict) else {}


def _object(data: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def _rows(path: Path) -> list[dict[str, Any]]:
    """The details' ``doc`` and ``model_response`` columns, row by row; a file without them is refused
    naming the missing column."""
    import pyarrow.parquet as pq

    def unreadable(exc: Exception) -> HarnessLogError:
        return HarnessLogError(f"{path}: not a lighteval details file ({harness.reason(exc)}); answers_from "
                               "reads the parquet --save-details writes")

    try:
        names = pq.read_schema(path).names
    except Exception as exc:  # pyarrow raises its own errors for a file that is not its parquet
        raise unreadable(exc) from None
    missing = [column for column in _COLUMNS if column not in names]
    if missing:
        raise HarnessLogError(f"{path}: no {' and no '.join(missing)} column (it holds {', '.join(names) or 'none'}): "
                              "not the details of a lighteval generative task; answers_from reads the parquet "
                              "--save-details writes")
    try:
        return pq.read_table(path, columns=list(_COLUMNS)).to_pylist()
    except Exception as exc:  # as above
        raise unreadable(exc) from None


def _padding(where: str, response: Mapping[str, Any]) -> int | None:
    """How many of the logged ``input_tokens`` are the batch's left padding: lighteval's
    ``padded_tokens_count`` (its transformers backend pads a batch on the left to its longest
    prompt and logs every row whole); None where it is not recorded (the endpoint backends log -1)."""
    count = response.get("padded_tokens_count")
    if count is None or (isinstance(count, int) and not isinstance(count, bool) and count < 0):
        return None
    if isinstance(count, bool) or not isinstance(count, int):
        raise HarnessLogError(f"{where}: model_response.padded_tokens_count is {json.dumps(count, default=str)}, "
                              "not a count of tokens: not a details file lighteval wrote")
    return count


def _prompt(where: str, response: Mapping[str, Any]) -> tuple[str, list[dict[str, Any]] | None, list[int] | None]:
    """The prompt sent: its text, or its messages, or (lighteval's transformers backend logs no
    ``input``) its token ids, which the probe decodes with the model's tokenizer."""
    sent, tokens = response.get("input"), response.get("input_tokens")
    if isinstance(sent, str):
        return sent, None, None
    if isinstance(sent, list) and sent and all(isinstance(m, dict) and isinstance(m.get("content"), str)
                                               for m in sent):
        return "", [{"role": m.get("role"), "content": m["content"]} for m in sent], None
    if sent is None and isinstance(tokens, list) and tokens and all(isinstance(t, int) for t in tokens):
        return "", None, list(tokens)
    raise HarnessLogError(f"{where}: model_response holds neither the prompt sent (input) nor its tokens "
                          "(input_tokens)")


def _line(where: str, row: Mapping[str, Any], parameters: Mapping[str, Any], stated: Mapping[str, Any] | None,
          recorded: bool) -> SavedLine:
    doc, response = row.get("doc") or {}, row.get("model_response") or {}
    try:
        doc_id = int(str(doc.get("id")))
    except ValueError:
        raise HarnessLogError(f"{where}: doc.id {doc.get('id')!r} is not lighteval's index of the document") from None
    texts = response.get("text") or []
    if not texts or not isinstance(texts[0], str):
        raise HarnessLogError(f"{where}: document {doc_id} has no generated text (model_response.text); answers_from "
                              "reads the details of generative tasks")
    prompt, messages, tokens = _prompt(where, response)
    sent = prompt or "\n".join(m["content"] for m in messages or []) or str(doc.get("query") or "")
    until = [*(parameters.get("stop_tokens") or []), *(doc.get("stop_sequences") or [])]
    logged = {"temperature": parameters.get("temperature") if recorded else None,
              "max_gen_toks": parameters.get("max_new_tokens") or doc.get("generation_size"),
              "until": list(dict.fromkeys(until))}
    return SavedLine(doc_id, sent, prompt, texts[0], harness.gen_kwargs(where, logged, stated), {}, False,
                     messages, tokens, _padding(where, response) if tokens is not None else None)


def files(path: Path, where: str) -> SavedFiles | None:
    """The files of a lighteval details file at ``path`` (with its run's results file), or None for
    another file."""
    details = details_name(path)
    if details is None:
        return None
    task, date = details
    return SavedFiles(path, results_of(path, date), task, date, SAVED_LIGHTEVAL)


def read(found: SavedFiles, stated: Mapping[str, Any] | None) -> HarnessLog:
    """Read a lighteval details file.

    Args:
        found: the details file (``found.samples``) and the results file of the same run
            (``found.results``, None: not found).
        stated: ``answers_from_settings`` (None: not set).

    Raises:
        HarnessLogError: a row cannot give its document an answer, or a setting is not recorded.
    """
    path, results = found.samples, found.results
    general = _object(_results(results), "config_general")
    raw = _object(general, "model_config").get("generation_parameters")
    recorded = isinstance(raw, dict)
    parameters: dict[str, Any] = raw if isinstance(raw, dict) else {}
    lines = [_line(f"{path} (row {i})", row, parameters, stated, recorded) for i, row in enumerate(_rows(path))]
    facts = {"harness": "lighteval", "harness_version": general.get("lighteval_sha"), "results": results.name
             if results else None, "logged_model": general.get("model_name"), "stated": dict(stated or {})}
    return HarnessLog(SAVED_LIGHTEVAL, lines, harness.model(general.get("model_name"), stated), facts)
