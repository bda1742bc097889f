"""What a task's logged records show besides their metrics, gathered doc by doc.

The settings a run was made with (judge, temperature, the probe's modes: the readers of
:mod:`uta_tasks.runs.comparability`, from what each record shows, :data:`RECORD_VALUES`),
the settings its metric set depends on (verdicts present, user samples, pass@k, over-long
docs dropped), where its answers came from, and the genuine user turns by turn number.
:class:`SampleFacts` takes one doc at a time, so that a reader can measure a samples file
in one pass without holding its docs; every value is what the whole list of docs, sorted
by ``doc_id``, shows, whatever order the file lists them in.
"""

from __future__ import annotations

import math
import re
from array import array
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from uta_tasks.datasets.heldout import user_turn
from uta_tasks.metrics.table import PASS_AT_PREFIX
from uta_tasks.runs.samples import DocSample
from uta_tasks.schema import output
from uta_tasks.schema.probe import ProbeRecord
from uta_tasks.schema.verdict import Verdict

_PASS_AT = re.compile(rf"^{PASS_AT_PREFIX}(\d+)$")
_ANSWER_SOURCE_KEYS = ("path", "task", "samples", "model", "lm_eval_version", "config_digest")


def number(value: Any) -> Any:
    """A setting's value as a finite float when it is one (``"0.7"``, ``1``), else as given.

    Args:
        value: the value read from a record, the metadata or a results file.
    """
    try:
        found = float(value)
    except (TypeError, ValueError):
        return value
    return found if math.isfinite(found) else value


def _verdict_values(read: Callable[[Verdict], Any]) -> Callable[[ProbeRecord], list[Any]]:
    def shown(record: ProbeRecord) -> list[Any]:
        return [read(v) for v in record.verdicts().values() if v is not None and read(v)]
    return shown


def _record_mode(key: str) -> Callable[[ProbeRecord], tuple[Any, ...]]:
    """``pass2_context`` / ``truncate_scope``: a record older than version 3 did what
    :data:`~uta_tasks.schema.probe.LEGACY_DEFAULTS` says unless its role switch names it."""
    def shown(record: ProbeRecord) -> tuple[Any, ...]:
        legacy = (record.role_switch or {}).get(key) if record.record_version < 3 else None
        return (str(legacy or getattr(record, key)),)
    return shown


# What one record shows of each setting :mod:`uta_tasks.runs.comparability` reads from the
# records (its readers take the distinct values over a task's records, in doc order).
RECORD_VALUES: dict[str, Callable[[ProbeRecord], Iterable[Any]]] = {
    output.PROV_JUDGED: lambda r: (any(v is not None for v in r.verdicts().values()),),
    "judge_model": _verdict_values(lambda v: v.judge_model),
    "prompt_version": _verdict_values(lambda v: v.prompt_version),
    "temperature": lambda r: (number(((r.generation or {}).get(output.GEN_ASSISTANT) or {})
                                     .get(output.GEN_TEMPERATURE, 0.0)),),
    "pass2_context": _record_mode("pass2_context"),
    "truncate_scope": _record_mode("truncate_scope"),
    "user_samples": lambda r: (len(r.u_samples or ()) or 1,),
    "question_pool": lambda r: (r.question_pool,),
}


@dataclass
class SampleFacts:
    """What a task's logged docs show, one doc at a time (:meth:`add`).

    Attributes:
        docs: docs read.
        records: probe records read.
        benchmark: the benchmark of the first doc read (every record of a task has its task's).
        perturbation: its perturbation.
        held_out: whether its record carries a real next user turn (a held-out benchmark).
        pass_at: the k of every ``genuine_pass_at_<k>`` value logged beside a doc.
        overlong: whether a record was dropped as over-long.
        user_turns: held-out records given their answer: user turn number -> [judged, genuine].
    """

    docs: int = 0
    records: int = 0
    benchmark: str | None = None
    perturbation: str | None = None
    held_out: bool = False
    pass_at: set[int] = field(default_factory=set)
    overlong: bool = False
    user_turns: dict[int, list[int]] = field(default_factory=dict)
    _doc_ids: array = field(default_factory=lambda: array("q"), repr=False)
    _seen: dict[str, dict[Any, tuple[int, int]]] = field(default_factory=dict, repr=False)
    _answer_source: tuple[int, dict[str, Any]] | None = field(default=None, repr=False)
    _shown: int = field(default=0, repr=False)

    @classmethod
    def of(cls, docs: Iterable[DocSample]) -> SampleFacts:
        """The facts of a list of docs.

        Args:
            docs: a task's logged docs.
        """
        facts = cls()
        for doc in docs:
            facts.add(doc)
        return facts

    def add(self, doc: DocSample) -> None:
        """Take one doc into account.

        Args:
            doc: a logged doc (the first one read names the benchmark and perturbation).
        """
        if self.docs == 0 and doc.records:
            first = doc.records[0]
            self.benchmark, self.perturbation = first.benchmark, first.perturbation
            self.held_out = first.reference_user_turn is not None
        self.docs += 1
        self.records += len(doc.records)
        self._doc_ids.append(doc.doc_id)
        self.pass_at.update(int(m[1]) for key in doc.line
                            if key.startswith(PASS_AT_PREFIX) and (m := _PASS_AT.match(key)))
        for record in doc.records:
            self.overlong = self.overlong or bool(record.overlong)
            for key, shown in RECORD_VALUES.items():
                for value in shown(record):
                    self._show(key, value, doc.doc_id)
            if record.answer_source and (self._answer_source is None or doc.doc_id < self._answer_source[0]):
                self._answer_source = (doc.doc_id, {k: record.answer_source.get(k) for k in _ANSWER_SOURCE_KEYS})
            verdict = record.verdict
            if record.given_answer and verdict is not None and verdict.genuine is not None:
                cell = self.user_turns.setdefault(user_turn(record.messages), [0, 0])
                cell[0] += 1
                cell[1] += int(verdict.genuine)

    def _show(self, key: str, value: Any, doc_id: int) -> None:
        found = self._seen.setdefault(key, {})
        place = found.get(value)
        if place is None or doc_id < place[0]:
            self._shown += 1
            found[value] = (doc_id, self._shown)

    def seen(self, key: str) -> list[Any]:
        """The distinct values the records show of a setting of :data:`RECORD_VALUES`, in the
        order of their first appearance in doc order (None included).

        Args:
            key: the setting.
        """
        found = self._seen.get(key, {})
        return sorted(found, key=found.__getitem__)

    @property
    def judged(self) -> bool:
        """Whether a record carries a verdict (the judge ran)."""
        return True in self.seen(output.PROV_JUDGED)

    @property
    def user_samples(self) -> int:
        """The most user turns drawn after one answer (1 without records)."""
        return max(self.seen("user_samples"), default=1)

    @property
    def answer_source(self) -> dict[str, Any] | None:
        """Where the first record (in doc order) that names one read its answer (``answers_from``)."""
        return None if self._answer_source is None else self._answer_source[1]

    @property
    def in_doc_order(self) -> bool:
        """Whether the docs were read in ``doc_id`` order."""
        ids = self._doc_ids
        return all(ids[i] <= ids[i + 1] for i in range(len(ids) - 1))

    @property
    def unique(self) -> bool:
        """Whether no ``doc_id`` was read twice."""
        ids = self._doc_ids
        if self.in_doc_order:
            return all(ids[i] < ids[i + 1] for i in range(len(ids) - 1))
        return len(set(ids)) == len(ids)
