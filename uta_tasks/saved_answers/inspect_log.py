"""An inspect_ai eval log read as saved answers (``answers_from`` a ``.eval`` or ``.json`` log).

Read through inspect_ai's own reader (``read_eval_log_sample``, one sample at a time as its
``read_eval_log_samples`` reads them, so that a damaged sample is refused naming it; the optional
extra ``uta-tasks[inspect]``). Per sample of the first epoch:

- **the document**: inspect numbers the samples of a dataset without ids 1, 2, ... in dataset
  order, so sample ``k`` is document ``k - 1`` of the probe's data. A sample id that is not such a
  number (a string, an id field of the dataset) or a shuffled dataset cannot be mapped and is
  refused; the probe takes that sample when the document's text is in its messages, else the one
  sample whose messages hold it (:meth:`uta_tasks.saved_answers.task.SavedTask.answer`);
- **pass 1**: the messages of the sample's one model call (after its solvers: system message,
  prompt template), which the probe renders with the model's chat template; a sample that called
  the model more than once (an agent, a multi-turn solver) is refused;
- **the answer**: that call's output, ``completion``; a reasoning model's reasoning, when the log
  keeps it as its own block, is put back before the answer as ``<think>\\n...\\n</think>\\n``
  (the form the servers split it from), so that pass 2 sees the whole turn;
- **generation settings**: that call's generate config: ``temperature``, ``max_tokens`` (as
  ``max_gen_toks``) and ``stop_seqs`` (as ``until``; none given is none). A temperature or budget
  left to the provider is not recorded: :mod:`uta_tasks.saved_answers.harness` refuses it unless
  stated;
- **the model**: the log's ``eval.model`` without its provider (``hf/``, ``vllm/``,
  ``openai-api/<service>/``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from uta_tasks.saved_answers import harness
from uta_tasks.saved_answers.harness import HarnessLog, HarnessLogError
from uta_tasks.saved_answers.lm_eval_lines import SavedLine
from uta_tasks.saved_answers.source import SavedFiles
from uta_tasks.schema.probe import SAVED_INSPECT

_HEAD = 4096


def is_log(path: Path) -> bool:
    """True for an inspect_ai log: a ``.eval`` file (a zip), or a ``.json`` file whose object
    starts with inspect's header keys."""
    if path.suffix == ".eval":
        return True
    if path.suffix != ".json":
        return False
    try:
        with path.open("rb") as handle:
            head = handle.read(_HEAD).decode("utf-8", "replace")
    except OSError:
        return False
    return head.lstrip().startswith("{") and '"eval"' in head and '"version"' in head


def _model_name(logged: str | None) -> str | None:
    if not logged:
        return None
    provider, _, rest = logged.partition("/")
    if provider == "openai-api":
        rest = rest.partition("/")[2]
    return rest or logged


def _doc_id(where: str, sample_id: Any) -> int:
    if isinstance(sample_id, int) and not isinstance(sample_id, bool) and sample_id >= 1:
        return sample_id - 1
    raise HarnessLogError(
        f"{where}: sample id {json.dumps(sample_id)} is not one of inspect's own numbers (1, 2, ... in dataset "
        "order, sample k being document k - 1 of the probe's data), so it cannot be matched to a document; run the "
        "inspect task on a dataset without an id field")


def _message(where: str, message: Any) -> dict[str, Any]:
    content = message.content
    if not isinstance(content, str) and any(getattr(part, "type", "text") != "text" for part in content):
        raise HarnessLogError(f"{where}: a {message.role} message holds {sorted({p.type for p in content})} content; "
                              "answers_from renders text messages only")
    if message.role == "tool" or getattr(message, "tool_calls", None):
        raise HarnessLogError(f"{where}: the model call holds tool calls; answers_from reads single-answer samples")
    return {"role": message.role, "content": message.text}


def _answer(where: str, output: Any) -> tuple[str, bool]:
    """The whole turn of the output, and whether its reasoning was put back in."""
    if output is None or not output.choices:
        raise HarnessLogError(f"{where}: the model call has no output (an error?); answers_from needs every answer")
    message = output.choices[0].message
    parts = [] if isinstance(message.content, str) else message.content
    reasoning = [p for p in parts if getattr(p, "type", None) == "reasoning"]
    if any(p.redacted for p in reasoning):
        raise HarnessLogError(f"{where}: the provider redacted the reasoning of this answer, so the model's whole turn "
                              "is not in the log and pass 2 cannot be built on it")
    text = output.completion
    if reasoning:
        return "<think>\n" + "\n".join(p.reasoning for p in reasoning) + "\n</think>\n" + text, True
    return text, False


def _line(where: str, sample: Any, stated: Mapping[str, Any] | None) -> tuple[SavedLine, bool]:
    if sample.error is not None:
        raise HarnessLogError(f"{where}: the sample ended in an error ({harness.reason(sample.error.message)}); "
                              "run it again")
    calls = [event for event in sample.events if event.event == "model"]
    if len(calls) != 1:
        raise HarnessLogError(f"{where}: the sample called the model {len(calls)} times; answers_from reads samples "
                              "of one generate (pass 1 is that one prompt and its answer)")
    call = calls[0]
    config = call.config
    logged = {"temperature": config.temperature, "max_gen_toks": config.max_tokens,
              "until": list(config.stop_seqs or [])}
    text, joined = _answer(where, call.output)
    messages = [_message(where, m) for m in call.input]
    sent = "\n".join(m["content"] for m in messages)
    line = SavedLine(_doc_id(where, sample.id), sent, "", text, harness.gen_kwargs(where, logged, stated),
                     {}, False, messages)
    return line, joined


def _samples(path: Path, ids: list[Any]) -> Iterator[Any]:
    """The log's samples of the first epoch (the probe takes one answer per document), read one at
    a time as inspect_ai's ``read_eval_log_samples`` reads them, so that a damaged one is named:
    the sample, and in a ``.eval`` log its member. A sample the log does not hold (a run that
    stopped early) is left out; its document is refused when the probe asks for it."""
    from inspect_ai.log import read_eval_log_sample

    for sample_id in ids:
        try:
            yield read_eval_log_sample(str(path), id=sample_id, epoch=1, resolve_attachments=True)
        except IndexError:
            continue
        except Exception as exc:  # inspect raises what its zip and JSON readers and its pydantic models raise
            member = f"its member samples/{sample_id}_epoch_1.json, " if path.suffix == ".eval" else ""
            raise HarnessLogError(f"{path}: {member}sample {json.dumps(sample_id)}, cannot be read "
                                  f"({harness.reason(exc)}): the log is damaged; run the inspect task again, or "
                                  "point answers_from at an undamaged copy of the log") from None


def files(path: Path, where: str) -> SavedFiles | None:
    """The files of an inspect_ai log at ``path`` (the log alone), or None for another file."""
    return SavedFiles(path, None, path.stem, "", SAVED_INSPECT) if is_log(path) else None


def read(found: SavedFiles, stated: Mapping[str, Any] | None) -> HarnessLog:
    """Read an inspect_ai log's samples of the first epoch.

    Args:
        found: the log file (``found.samples``).
        stated: ``answers_from_settings`` (None: not set).

    Raises:
        HarnessLogError: inspect_ai is not installed, or a sample cannot give its document an answer.
    """
    path = found.samples
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise harness.missing_library(path, "inspect_ai", "inspect") from None
    try:
        header = read_eval_log(str(path), header_only=True)
    except Exception as exc:  # inspect raises what its zip and JSON readers raise
        raise HarnessLogError(f"answers_from={path}: not a readable inspect_ai log "
                              f"({harness.reason(exc)})") from None
    if header.eval.dataset.shuffled:
        raise HarnessLogError(f"answers_from={path}: the inspect task shuffled its dataset, so its sample numbers are "
                              "not the documents' order; run it again without shuffling")
    if header.eval.dataset.sample_ids is None:
        raise HarnessLogError(f"answers_from={path}: the log does not list its sample ids; read it and write it again "
                              "with inspect_ai (read_eval_log, write_eval_log), which adds them")
    lines: list[SavedLine] = []
    joined = 0
    for sample in _samples(path, header.eval.dataset.sample_ids):
        line, was_joined = _line(f"{path} (sample {sample.id})", sample, stated)
        lines.append(line)
        joined += was_joined
    facts = {"harness": "inspect_ai", "harness_version": header.eval.packages.get("inspect_ai"),
             "harness_task": header.eval.task, "logged_model": header.eval.model, "stated": dict(stated or {}),
             "reasoning_joined": joined}
    return HarnessLog(SAVED_INSPECT, lines, harness.model(_model_name(header.eval.model), stated), facts)
