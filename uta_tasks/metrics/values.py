"""Each probe metric as a function of one doc's probe records.

A row of :mod:`uta_tasks.metrics.table` names one of these functions. It takes a
:class:`Doc` (the doc's records, one per repeat, with each repeat's own correctness) and
returns either

* :data:`Units`, the doc's observations of a share: ``(repeat, slot) -> 1.0 or 0.0``. The
  doc's value is their mean (NaN with none; a count row's is their sum), and the same units,
  keyed by task and doc, are the observations behind the metric's Wilson interval and the
  paired bootstrap in ``uta-summary``, the report and the gate; or
* a float, a doc's value that is no share of units (pass@k estimates, a paired difference,
  a count), aggregated by lm-eval and shown with lm-eval's standard error.

Every follow-up rate is a share of *judged* user turns only: an unjudged turn is no unit,
never a 0.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from uta_tasks.metrics import pass_at_k
from uta_tasks.schema.generation import is_greedy
from uta_tasks.schema.probe import ProbeRecord
from uta_tasks.schema.verdict import Verdict

NAN = float("nan")
Unit = tuple[int, int]
Units = dict[Unit, float]


@dataclass(frozen=True)
class Doc:
    """One doc's records as the metric functions read them.

    Attributes:
        records: the records that were generated (over-long ones dropped), in repeat order.
        repeats: each record's repeat number (its place among all the doc's records).
        correct: per record, whether its own answer is correct by the benchmark's primary
            metric (:func:`is_correct`); None when the benchmark has none (held-out).
    """

    records: tuple[ProbeRecord, ...]
    repeats: tuple[int, ...]
    correct: tuple[bool, ...] | None = None

    def turns(self) -> Iterator[tuple[int, ProbeRecord]]:
        """``(repeat, record)`` pairs."""
        return zip(self.repeats, self.records)

    @property
    def first(self) -> ProbeRecord:
        """The first record (perturbation and generation settings of the task)."""
        return self.records[0]


def is_correct(value: float | bool) -> bool:
    """THE definition of a correct answer: its value of the benchmark's primary accuracy
    metric is 1 (or True).

    Args:
        value: one answer's value of the benchmark's primary metric.
    """
    return float(value) >= 1.0


def _judged(verdict: Verdict | None) -> bool:
    return verdict is not None and verdict.judged


def _genuine(verdict: Verdict) -> float:
    return 1.0 if verdict.genuine else 0.0


def share(units: Units) -> float:
    """The mean of a doc's units, NaN without any.

    Args:
        units: the doc's observations.
    """
    return sum(units.values()) / len(units) if units else NAN


def _turn_units(pairs: Iterator[tuple[int, Verdict | None]], test: Callable[[Verdict], float] = _genuine) -> Units:
    return {(repeat, 0): test(v) for repeat, v in pairs if v is not None and v.judged}


# ---- follow-up rates: shares of judged user turns -------------------------------------


def genuine(doc: Doc) -> Units:
    """Each judged u: 1 when it is a genuine follow-up."""
    return _turn_units((i, r.verdict) for i, r in doc.turns())


def genuine_complete(doc: Doc) -> float:
    """The genuine share of the judged u after complete answers."""
    return share(_turn_units((i, r.verdict) for i, r in doc.turns() if not r.answer_incomplete))


def label_share(label: str) -> Callable[[Doc], Units]:
    """Each judged u: 1 when the judge gave it ``label``.

    Args:
        label: one of :data:`uta_tasks.schema.labels.LABELS`.
    """

    def units(doc: Doc) -> Units:
        return _turn_units(((i, r.verdict) for i, r in doc.turns()), lambda v: float(v.label == label))

    units.__name__ = f"label_{label}"
    return units


def _paired(doc: Doc) -> list[tuple[int, ProbeRecord]]:
    """The repeats whose u and u_ref are both judged (base and perturbed on the same docs)."""
    return [(i, r) for i, r in doc.turns() if _judged(r.verdict) and _judged(r.verdict_ref)]


def genuine_base(doc: Doc) -> Units:
    """Each u_ref of a repeat whose u is judged too: 1 when genuine (keyed like its u)."""
    return _turn_units((i, r.verdict_ref) for i, r in _paired(doc))


def genuine_diff(doc: Doc) -> float:
    """Genuine share of u minus that of u_ref, over the repeats where both are judged."""
    paired = _paired(doc)
    return share(_turn_units((i, r.verdict) for i, r in paired)) - share(_turn_units((i, r.verdict_ref)
                                                                                    for i, r in paired))


def genuine_reference(doc: Doc) -> Units:
    """Each judged real next user turn (held-out): 1 when genuine."""
    return _turn_units((i, r.verdict_reference) for i, r in doc.turns())


def _by_correctness(correct: bool) -> Callable[[Doc], Units]:
    def units(doc: Doc) -> Units:
        if doc.correct is None:
            return {}
        return _turn_units((i, r.verdict) for (i, r), ok in zip(doc.turns(), doc.correct) if ok == correct)

    return units


genuine_correct = _by_correctness(True)
genuine_wrong = _by_correctness(False)


# ---- pass@k over user samples ---------------------------------------------------------


def _sample_groups(doc: Doc) -> list[tuple[int, list[bool]]]:
    """The genuine decisions pass@k draws from: per answer its judged user samples
    (``user_samples > 1``), else one group of the repeats' judged user turns."""
    if any(r.verdict_samples for r in doc.records):
        return [(i, [bool(v.genuine) for v in r.verdict_samples if v is not None and v.judged])
                for i, r in doc.turns()]
    return [(doc.repeats[0], [bool(r.verdict.genuine) for r in doc.records
                              if r.verdict is not None and r.verdict.judged])]


def genuine_pass_at_n(doc: Doc) -> Units:
    """pass@k at k = n: per group of judged user turns (see :func:`_sample_groups`), 1 when
    any is genuine; the doc's value is the unbiased estimator's mean over its answers."""
    return {(i, 0): float(any(group)) for i, group in _sample_groups(doc) if group}


def genuine_pass_at(k: int) -> Callable[[Doc], float]:
    """The unbiased pass@k estimator over each answer's user turns, averaged over answers.

    Args:
        k: turns drawn.
    """

    def value(doc: Doc) -> float:
        return pass_at_k.doc_estimate([g for _, g in _sample_groups(doc)], k)

    value.__name__ = f"genuine_pass_at_{k}"
    return value


def genuine_prob(doc: Doc) -> float:
    """``user_samples`` > 1: the share of genuine turns among the doc's judged user samples."""
    judged = [v for r in doc.records for v in r.verdict_samples if v is not None and v.judged]
    return sum(_genuine(v) for v in judged) / len(judged) if judged else NAN


# ---- verdict counts and judge usage ---------------------------------------------------


def unjudged(doc: Doc) -> Units:
    """Each verdict slot of a record (u, u_ref, the real next turn): 1 when it has no valid
    verdict. The count is their sum; ``unjudged_share`` their mean."""
    return {(i, slot): 0.0 if v.judged else 1.0
            for i, r in doc.turns() for slot, v in enumerate(r.verdicts().values()) if v is not None}


def _count(pick: Callable[[ProbeRecord], Verdict | None], judged: bool) -> Callable[[Doc], float]:
    def value(doc: Doc) -> float:
        return float(sum(1 for r in doc.records if (v := pick(r)) is not None and v.judged == judged))

    return value


n_judged = _count(lambda r: r.verdict, True)
n_unjudged = _count(lambda r: r.verdict, False)
n_judged_base = _count(lambda r: r.verdict_ref, True)
n_unjudged_base = _count(lambda r: r.verdict_ref, False)
n_judged_reference = _count(lambda r: r.verdict_reference, True)
n_unjudged_reference = _count(lambda r: r.verdict_reference, False)


def judge_usage(key: str) -> Callable[[Doc], float]:
    """The doc's ``judge_usage[key]`` summed over its records.

    Args:
        key: ``calls``, ``cache_hits``, ``input_tokens`` or ``output_tokens``.
    """

    def value(doc: Doc) -> float:
        return float(sum(int((r.judge_usage or {}).get(key, 0)) for r in doc.records))

    return value


def judge_calls_saved(doc: Doc) -> float:
    """Verdicts a pre-label rule gave instead of a judge request."""
    return float(sum(1 for r in doc.records for v in r.verdicts().values() if v is not None and v.prelabel_rule))


# ---- generation: no judge needed -------------------------------------------------------


def _sampled(record: ProbeRecord) -> bool:
    return not is_greedy(record.generation.get("user") or {})


def share_changed(doc: Doc) -> Units:
    """Each repeat of a perturbed doc: 1 when u differs in text from u_ref. At T > 0 u and
    u_ref are independent samples, so their difference says nothing: no units (NaN)."""
    if _sampled(doc.first):
        return {}
    return {(i, 0): float(r.u != r.u_ref) for i, r in doc.turns()}


def trunc_emptied(doc: Doc) -> float:
    """1 when a repeat's truncation removed the whole answer."""
    return float(any((r.truncation or {}).get("emptied") for r in doc.records))


def answer_incomplete(doc: Doc) -> float:
    """The share of the doc's answers whose reasoning never closed or that hit the budget."""
    return sum(float(r.answer_incomplete) for r in doc.records) / len(doc.records)
