"""Per-doc metrics of a uta task, from the probe records of that doc (one per repeat).

Every follow-up rate is a mean over *judged* user turns only: an unjudged turn is NaN
for the doc, never 0, and docs with no judged turn drop out of the mean (``nanmean``,
which lm-eval bootstraps for a standard error). Counts are summed over docs. Which
metrics a task reports is decided by :mod:`uta_tasks.metrics.table`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from uta_tasks.datasets.base import is_correct
from uta_tasks.metrics import pass_at_k
from uta_tasks.metrics.table import PASS_AT_PREFIX, MetricSpec
from uta_tasks.schema.labels import LABELS
from uta_tasks.schema.probe import ProbeRecord
from uta_tasks.schema.verdict import Verdict

NAN = float("nan")
USAGE_KEYS = ("calls", "cache_hits", "input_tokens", "output_tokens")
Verdicts = list[Verdict | None]


def _judged(verdicts: Verdicts) -> list[Verdict]:
    return [v for v in verdicts if v is not None and v.judged]


def _rate(verdicts: Verdicts, test: Callable[[Verdict], bool]) -> float:
    judged = _judged(verdicts)
    if not judged:
        return NAN
    return float(np.mean([1.0 if test(v) else 0.0 for v in judged]))


def _genuine(verdicts: Verdicts) -> float:
    return _rate(verdicts, lambda v: bool(v.genuine))


def _has_label(label: str) -> Callable[[Verdict], bool]:
    return lambda verdict: verdict.label == label


def _unjudged(verdicts: Verdicts) -> int:
    return sum(1 for v in verdicts if v is not None and not v.judged)


def _prelabelled(verdicts: Verdicts) -> int:
    return sum(1 for v in verdicts if v is not None and v.prelabel_rule)


def _sampled(record: ProbeRecord) -> bool:
    from uta_tasks.probe.backend import is_greedy

    return not is_greedy(record.generation.get("user") or {})


def generation_metrics(records: list[ProbeRecord]) -> dict[str, float]:
    """Metrics that need no judge: perturbation effects and answer completeness.

    ``share_changed`` compares u with u_ref: at T > 0 they are independent samples, so
    their difference says nothing about the perturbation and the value is NaN.

    Args:
        records: the doc's probe records (k repeats).
    """
    out: dict[str, float] = {"answer_incomplete": float(np.mean([r.answer_incomplete for r in records]))}
    if records[0].perturbed:
        out["share_changed"] = NAN if _sampled(records[0]) else float(np.mean([r.u != r.u_ref for r in records]))
    if records[0].perturbation == "trunc":
        out["trunc_emptied"] = float(any((r.truncation or {}).get("emptied") for r in records))
    return out


def _sample_groups(records: list[ProbeRecord]) -> list[list[bool]]:
    """The genuine decisions pass@k draws from: per answer its user samples
    (``user_samples > 1``), else one group of the repeats' user turns."""
    if any(r.verdict_samples for r in records):
        return [[bool(v.genuine) for v in _judged(r.verdict_samples)] for r in records]
    return [[bool(v.genuine) for v in _judged([r.verdict for r in records])]]


def sampling_metrics(records: list[ProbeRecord], ks: list[int]) -> dict[str, float]:
    """pass@k (k = n and each asked k) and, with user samples, ``genuine_prob``.

    Args:
        records: the doc's probe records.
        ks: the ``pass_at_k`` values.
    """
    groups = _sample_groups(records)
    out = {"genuine_pass_at_k": pass_at_k.doc_estimate(groups, None)}
    out.update({f"{PASS_AT_PREFIX}{k}": pass_at_k.doc_estimate(groups, k) for k in ks})
    if any(r.verdict_samples for r in records):
        out["genuine_prob"] = _genuine([v for r in records for v in r.verdict_samples])
    return out


def follow_up_metrics(records: list[ProbeRecord], ks: list[int] | None = None) -> dict[str, float]:
    """Judge-derived metrics of one doc.

    Args:
        records: the doc's probe records (k repeats).
        ks: the ``pass_at_k`` values asked for.
    """
    verdicts = [r.verdict for r in records]
    rate = _genuine(verdicts)
    complete = [r.verdict for r in records if not r.answer_incomplete]
    out: dict[str, float] = {"genuine_followup": rate, **sampling_metrics(records, ks or [])}
    for label in LABELS:
        out[f"label_{label}"] = _rate(verdicts, _has_label(label))
    out["genuine_followup_complete"] = _genuine(complete)
    all_verdicts = [v for r in records for v in r.verdicts().values()]
    out["unjudged"] = float(_unjudged(all_verdicts))
    out["n_judged"], out["n_unjudged"] = float(len(_judged(verdicts))), float(_unjudged(verdicts))
    out["judge_calls_saved"] = float(_prelabelled(all_verdicts))
    usage = [r.judge_usage or {} for r in records]
    for key in USAGE_KEYS:
        out[f"judge_{key}"] = float(sum(int(u.get(key, 0)) for u in usage))
    if records[0].perturbed:
        refs = [r.verdict_ref for r in records]
        out["n_judged_base"], out["n_unjudged_base"] = float(len(_judged(refs))), float(_unjudged(refs))
        paired = [r for r in records if _judged([r.verdict]) and _judged([r.verdict_ref])]
        out["genuine_followup_base"] = _genuine([r.verdict_ref for r in paired]) if _judged(verdicts) else NAN
        out["genuine_followup_diff"] = _genuine([r.verdict for r in paired]) - out["genuine_followup_base"]
    if records[0].reference_user_turn is not None:
        refs = [r.verdict_reference for r in records]
        out["genuine_followup_reference"] = _genuine(refs)
        out["n_judged_reference"], out["n_unjudged_reference"] = float(len(_judged(refs))), float(_unjudged(refs))
    return out


def accuracy_metrics(
    doc: dict, records: list[ProbeRecord], score: Callable[[dict, str], dict]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Benchmark accuracy of the final answers, averaged over repeats.

    Args:
        doc: the benchmark doc.
        records: the doc's probe records.
        score: the benchmark's scorer ``(doc, final answer) -> metrics``.

    Returns:
        The doc's accuracy metrics, and each repeat's own scores.
    """
    per_repeat = [_wrong(score(doc, r.answer)) if r.answer_incomplete else score(doc, r.answer) for r in records]
    out: dict[str, Any] = {}
    for key in per_repeat[0]:
        values = [s[key] for s in per_repeat]
        if isinstance(values[0], list):
            out[key] = [x for v in values for x in v]
        else:
            out[key] = float(np.mean([float(v) for v in values]))
    return out, per_repeat


def _wrong(scores: dict[str, Any]) -> dict[str, Any]:
    """An incomplete answer's scores: every check failed (it has no final answer to grade)."""
    return {k: [False] * len(v) if isinstance(v, list) else 0.0 for k, v in scores.items()}


def conditioned(records: list[ProbeRecord], per_repeat: list[dict[str, Any]], primary: str) -> dict[str, float]:
    """Follow-up rate split by whether each repeat's own answer was correct.

    Args:
        records: the doc's probe records.
        per_repeat: each repeat's accuracy scores.
        primary: the benchmark's correctness metric.
    """
    correct = [is_correct(s[primary]) for s in per_repeat]
    return {
        "genuine_followup_correct": _genuine([r.verdict for r, ok in zip(records, correct) if ok]),
        "genuine_followup_wrong": _genuine([r.verdict for r, ok in zip(records, correct) if not ok]),
    }


def doc_metrics(
    doc: dict,
    records: list[ProbeRecord],
    specs: list[MetricSpec],
    score: Callable[[dict, str], dict],
    primary: str | None,
) -> dict[str, Any]:
    """Exactly the metrics of ``specs`` for one doc (NaN where a value does not exist).

    Args:
        doc: the benchmark doc.
        records: the doc's probe records.
        specs: the task's metrics (:func:`uta_tasks.metrics.table.metrics_for`).
        score: the benchmark's scorer.
        primary: the benchmark's correctness metric, None when held-out.
    """
    names = {m.name for m in specs}
    dropped = sum(1 for r in records if r.overlong)
    records = [r for r in records if not r.overlong]
    if not records:  # every repeat over-long: counted, and out of every other metric
        return {m.name: float(dropped) if m.name == "overlong" else _missing(m) for m in specs}
    values: dict[str, Any] = {"overlong": float(dropped)}
    accuracy, per_repeat = accuracy_metrics(doc, records, score)
    values.update(accuracy)
    values.update(generation_metrics(records))
    if "genuine_followup" in names:
        ks = [int(n[len(PASS_AT_PREFIX):]) for n in names if n[len(PASS_AT_PREFIX):].isdigit()
              and n.startswith(PASS_AT_PREFIX)]
        values.update(follow_up_metrics(records, ks))
        if primary is not None:
            values.update(conditioned(records, per_repeat, primary))
    return {m.name: values.get(m.name, _missing(m)) for m in specs}


def _missing(spec: MetricSpec) -> Any:
    """The value of a metric that does not exist for a doc: 0 for counts, NaN otherwise
    (instruction-level accuracies take an empty list)."""
    if spec.aggregation_name == "sum":
        return 0.0
    return [] if spec.name.startswith("inst_level") else NAN
