"""A doc's metrics from its probe records (one per repeat): the one function behind every number.

:func:`measure` gives, for one doc, the value of each metric of the task (what lm-eval
aggregates: :meth:`uta_tasks.lm_eval_task.UTATask.process_results`) and the units behind
each share (the observations of every interval: :mod:`uta_tasks.runs.observations`). The
live task and every reader of logged samples (the summary, report, gate and ``uta-rejudge``)
call it, so their numbers cannot differ. Each metric's own function is named by its row of
:mod:`uta_tasks.metrics.table`; the benchmark's scorer gives the accuracy rows.

Every follow-up rate is a mean over *judged* user turns only: an unjudged turn is NaN
for the doc, never 0, and docs with no judged turn drop out of the mean. Counts are summed
over docs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from uta_tasks.metrics.table import MetricSpec
from uta_tasks.metrics.values import Doc, Units, is_correct, share
from uta_tasks.schema import output
from uta_tasks.schema.probe import ProbeRecord

NAN = float("nan")
Scores = dict[str, Any]


@dataclass
class Measured:
    """One doc's metrics.

    Attributes:
        values: metric -> the doc's value (NaN where none exists), for every metric asked for.
        units: share (:attr:`MetricSpec.observed_as`, and ``accuracy``) -> the doc's units,
            ``(repeat, slot) -> value``.
    """

    values: dict[str, Any]
    units: dict[str, Units] = field(default_factory=dict)


def repeat_scores(doc: dict, records: Sequence[ProbeRecord], score: Callable[[dict, str], dict]) -> list[Scores | None]:
    """Each repeat's accuracy scores by the benchmark's scorer (None for a dropped, over-long
    record; every check failed for an incomplete answer, which has no final answer to grade).

    Args:
        doc: the benchmark doc.
        records: the doc's probe records.
        score: the benchmark's scorer ``(doc, final answer) -> metrics``.
    """
    return [None if r.overlong else _wrong(score(doc, r.answer)) if r.answer_incomplete else score(doc, r.answer)
            for r in records]


def _wrong(scores: Scores) -> Scores:
    return {k: [False] * len(v) if isinstance(v, list) else 0.0 for k, v in scores.items()}


def _accuracy(per_repeat: list[Scores]) -> Scores:
    """The doc's accuracy: each metric's mean over repeats (instruction-level lists joined)."""
    out: Scores = {}
    for key in per_repeat[0]:
        values = [s[key] for s in per_repeat]
        if isinstance(values[0], list):
            out[key] = [x for v in values for x in v]
        else:
            out[key] = sum(float(v) for v in values) / len(values)
    return out


def measure(records: Sequence[ProbeRecord], scores: Sequence[Scores | None], specs: list[MetricSpec],
            primary: str | None) -> Measured:
    """Exactly the metrics of ``specs`` for one doc, and the units behind its shares.

    Args:
        records: the doc's probe records (one per repeat).
        scores: each record's accuracy scores (:func:`repeat_scores`, or logged values).
        specs: the task's metrics (:func:`uta_tasks.metrics.table.metrics_for`).
        primary: the benchmark's correctness metric, None when held-out.
    """
    kept = [(i, r, s) for i, (r, s) in enumerate(zip(records, scores, strict=True)) if not r.overlong]
    dropped = float(len(records) - len(kept))
    if not kept:  # every repeat over-long: counted, and out of every other metric
        return Measured({m.name: dropped if m.name == "overlong" else _missing(m) for m in specs})
    per_repeat = [s or {} for _, _, s in kept]
    values: dict[str, Any] = {**_accuracy(per_repeat), "overlong": dropped}
    units: dict[str, Units] = {}
    correct = None
    if primary is not None and all(primary in s for s in per_repeat):
        correct = tuple(is_correct(s[primary]) for s in per_repeat)
        if isinstance(values[primary], (bool, int, float)):
            units[output.ACCURACY] = {(0, 0): float(values[primary])}
    doc = Doc(tuple(r for _, r, _ in kept), tuple(i for i, _, _ in kept), correct)
    for spec in specs:
        if spec.units is not None:
            found = spec.units(doc)
            units[spec.observed_as] = found
            values[spec.name] = float(sum(found.values())) if spec.count else share(found)
        elif spec.value is not None:
            values[spec.name] = spec.value(doc)
    return Measured({m.name: values[m.name] if m.name in values else _missing(m) for m in specs}, units)


def doc_metrics(doc: dict, records: list[ProbeRecord], specs: list[MetricSpec], score: Callable[[dict, str], dict],
                primary: str | None) -> dict[str, Any]:
    """Exactly the metrics of ``specs`` for one doc, scored live (NaN where a value does not exist).

    Args:
        doc: the benchmark doc.
        records: the doc's probe records.
        specs: the task's metrics (:func:`uta_tasks.metrics.table.metrics_for`).
        score: the benchmark's scorer.
        primary: the benchmark's correctness metric, None when held-out.
    """
    return measure(records, repeat_scores(doc, records, score), specs, primary).values


def _missing(spec: MetricSpec) -> Any:
    """The value of a metric that does not exist for a doc: 0 for counts, NaN otherwise
    (instruction-level accuracies take an empty list)."""
    if spec.count:
        return 0.0
    return [] if spec.name.startswith("inst_level") else NAN
