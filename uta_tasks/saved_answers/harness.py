"""What another harness's log gives a document (``answers_from`` an inspect_ai log or a lighteval
details file), and what the user must state that it does not record.

Each reader (:mod:`uta_tasks.saved_answers.inspect_log`, :mod:`uta_tasks.saved_answers.lighteval_details`) turns its
log into :class:`~uta_tasks.saved_answers.lm_eval_lines.SavedLine` s whose ``doc`` is the text the harness
sent for the document (the harness keeps the document in its own form, so
:meth:`uta_tasks.saved_answers.task.SavedTask.answer` checks that the probe's document's text is in
it instead of comparing documents). A generation setting the log does not
record (a temperature left to the provider's default, no token budget) is never guessed: the run is
refused, naming ``answers_from_settings``, where the user states what the saved run used; a stated
value the log contradicts is refused too.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from uta_tasks.saved_answers.lm_eval_lines import SavedLine
from uta_tasks.saved_answers.source import Ask, SavedFiles
from uta_tasks.saved_answers.task import SavedRunError, SavedTask
from uta_tasks.schema.probe import SavedAnswer

#: the task setting where the user states what a log does not record
SETTING = "answers_from_settings"
#: the generation settings a document's answer is checked and completed with (--gen_kwargs names)
GEN_KEYS = ("temperature", "max_gen_toks", "until")


class HarnessLogError(ValueError):
    """A harness log cannot give a task its answers; the message names the file, the sample and the fix."""


@dataclass(frozen=True)
class HarnessLog:
    """One harness log read as saved answers.

    Attributes:
        kind: the harness that wrote it.
        lines: one per document (doc_id = the document's index in the probe's data).
        model: the model the log names (None when it names none).
        facts: what the log says of itself, kept in the records' ``answer_source`` (the harness
            version, its task, what was stated).
    """

    kind: str
    lines: list[SavedLine]
    model: str | None
    facts: dict[str, Any] = field(default_factory=dict)


def missing_library(path: Any, library: str, extra: str) -> HarnessLogError:
    """The one message of a log whose harness library is not installed."""
    return HarnessLogError(f"answers_from={path} is a {library} log; reading it needs {library}: "
                           f'pip install "uta-tasks[{extra}]"')


def reason(said: object) -> str:
    """What a harness library's exception (or an error it logged) says, whole, on one line (pydantic
    and pyarrow spread theirs over several): every run of whitespace made one space; an exception
    that says nothing, its type."""
    return " ".join(str(said).split()) or type(said).__name__


def _example(key: str, value: str) -> str:
    """The ``--metadata`` that states ``key``: ``value`` as JSON text (a placeholder the user fills in
    where nothing the log holds implies the value)."""
    return f"--metadata '{{\"{SETTING}\": {{\"{key}\": {value}}}}}'"


def gen_kwargs(where: str, logged: Mapping[str, Any], stated: Mapping[str, Any] | None) -> dict[str, Any]:
    """The generation settings of one document: what the log records, else what the user stated.

    Args:
        where: the file and sample, for messages.
        logged: ``temperature``, ``max_gen_toks``, ``until`` as the log records them (None: not
            recorded).
        stated: ``answers_from_settings`` (None: not set).

    Raises:
        HarnessLogError: a setting neither recorded nor stated, or stated otherwise than recorded.
    """
    stated = stated or {}
    out: dict[str, Any] = {}
    for key in GEN_KEYS:
        have, said = logged.get(key), stated.get(key)
        if have is None and said is None:  # the provider's default, which no log records: never suggest a value
            raise HarnessLogError(
                f"{where}: the log does not record the {key} the answers were generated with (the harness left it "
                f"to the model's provider, whose default the log does not say); state the {key} the saved run used "
                f"with {_example(key, f'<the {key} the run used>')}")
        if have is not None and said is not None and said != have:
            raise HarnessLogError(f"{where}: {SETTING} states {key}={json.dumps(said)}, but the log records "
                                  f"{json.dumps(have)}; leave {key} out of {SETTING}")
        out[key] = have if have is not None else said
    out["until"] = [out["until"]] if isinstance(out["until"], str) else list(out["until"])
    return out


def model(logged: str | None, stated: Mapping[str, Any] | None) -> str | None:
    """The model of the saved answers: the one the user stated (a log may name a served alias,
    not the checkpoint ``--model_args`` loads), else the one the log names."""
    said = (stated or {}).get("model")
    return str(said) if said else logged


def refuse_unnamed_model(path: Any) -> HarnessLogError:
    """The refusal of a log that names no model (the reader's caller names the task)."""
    return HarnessLogError(f"{path} does not name the model that wrote it; state it (as --model_args "
                           f"pretrained= names it) with {_example('model', json.dumps('<org>/<model>'))}")


#: a harness log's reader: ``read(files, stated)`` (``stated``: ``answers_from_settings``, None: not set)
LogReader = Callable[[SavedFiles, Mapping[str, Any] | None], HarnessLog]


def reader(read_log: LogReader) -> Callable[[SavedFiles, Ask], SavedTask]:
    """A :attr:`~uta_tasks.saved_answers.source.Source.read` made of a harness log's reader: its lines
    as the task's saved answers, a log that names no model refused, every refusal naming the task."""

    def read(found: SavedFiles, ask: Ask) -> SavedTask:
        try:
            log = read_log(found, ask.stated)
            if log.model is None:
                raise refuse_unnamed_model(found.samples)
        except HarnessLogError as exc:
            raise SavedRunError(f"{ask.task}: {exc}") from None
        return as_task(found, ask, log)

    return read


def as_task(found: SavedFiles, ask: Ask, log: HarnessLog) -> SavedTask:
    """A harness log's lines as the task's saved answers: each document's answer, and the text the
    harness sent for it (which the probe's document's text must be in)."""
    digest = hashlib.sha256(json.dumps(log.facts, sort_keys=True, default=str).encode())
    for line in log.lines:
        digest.update(json.dumps([line.doc_id, line.prompt, line.messages, line.prompt_tokens, line.padded_tokens,
                                  line.text, line.gen_kwargs], sort_keys=True, default=str).encode())
    source = {"path": ask.path, "hub": None, "samples": found.samples.name, "task": found.task, "model": log.model,
              "lm_eval_version": None, "config_digest": digest.hexdigest()[:16], "reasoning_stripped": False,
              "harness": log.kind, "harness_log": log.facts}
    answers = {line.doc_id: SavedAnswer(line.doc_id, line.prompt, line.text, line.gen_kwargs, {}, source, False,
                                        line.messages, line.prompt_tokens, line.padded_tokens) for line in log.lines}
    if not answers:
        raise SavedRunError(f"{ask.task}: {found.samples} holds no samples")
    sent = {line.doc_id: line.doc for line in log.lines}
    return SavedTask(found.task, found.samples, answers, sent, source, {}, log.kind)
