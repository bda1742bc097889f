"""One task's saved answers, whatever source they came from, and the probe's document matched to one.

An lm-eval run keeps each document as lm-eval gave it to the task: the probe's document is the saved
document of its number, else the one saved document equal to it. Another harness keeps its documents
in its own form: the probe's document is the sample of its number whose prompt holds the document's
text, else the one sample whose prompt holds it (:func:`holds_text`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from uta_tasks.schema.probe import SAVED_LM_EVAL, SavedAnswer


class SavedRunError(ValueError):
    """A saved run cannot give a task its answers; the message names the task, the file and the fix."""


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
    kind: str = SAVED_LM_EVAL
    num_fewshot: int | None = None

    def answer(self, task: str, doc_id: int, doc: Mapping[str, Any]) -> SavedAnswer:
        """The saved answer of one document, or a refusal naming it.

        Args:
            task: the probe task (for the message).
            doc_id: the document's index.
            doc: the document the probe evaluates.
        """
        if self.kind != SAVED_LM_EVAL and texts(doc):
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
        if doc_id in self.answers and holds_text(doc, str(self.docs.get(doc_id) or "")):
            return self.answers[doc_id]
        held = [i for i in sorted(self.answers) if holds_text(doc, str(self.docs.get(i) or ""))]
        if len(held) == 1:
            return self.answers[held[0]]
        shown = repr(texts(doc)[0])  # whole: the text the user must recognise
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


def texts(doc: Mapping[str, Any]) -> list[str]:
    """The document's text fields of three words or more, whitespace collapsed: what a prompt
    sent for it holds."""
    flat = [" ".join(v.split()) for v in doc.values() if isinstance(v, str)]
    return [t for t in flat if len(t.split()) >= 3]


def holds_text(doc: Mapping[str, Any], sent: str) -> bool:
    """True when the prompt sent holds one of the document's :func:`texts` (whitespace aside).

    Args:
        doc: the probe's document.
        sent: the prompt as sent, or the messages' text joined.
    """
    flat = " ".join(sent.split())
    return any(t in flat for t in texts(doc))
