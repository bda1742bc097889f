"""Per-doc metrics of a uta task, from the probe records of that doc (one per repeat).

Every follow-up rate is a mean over *judged* user turns only: an unjudged turn is NaN
for the doc, never 0, and docs with no judged turn drop out of the mean (``nanmean``,
which lm-eval bootstraps for a standard error). Counts are summed over docs. Which
metrics a task reports is decided by :mod:`uta_tasks.metrics.table`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from uta_tasks.datasets.base import is_correct
from uta_tasks.judge.labels import LABELS
from uta_tasks.metrics.table import MetricSpec
from uta_tasks.probe.records import ProbeRecord

NAN = float("nan")
USAGE_KEYS = ("calls", "cache_hits", "input_tokens", "output_tokens")
Verdicts = list[dict[str, Any] | None]


def _judged(verdicts: Verdicts) -> list[dict[str, Any]]:
    return [v for v in verdicts if v is not None and v.get("status") == "judged"]


def _rate(verdicts: Verdicts, test: Callable[[dict], bool]) -> float:
    judged = _judged(verdicts)
    if not judged:
        return NAN
    return float(np.mean([1.0 if test(v) else 0.0 for v in judged]))


def _genuine(verdicts: Verdicts) -> float:
    return _rate(verdicts, lambda v: bool(v.get("genuine")))


def _has_label(label: str) -> Callable[[dict], bool]:
    return lambda verdict: verdict.get("label") == label


def _unjudged(verdicts: Verdicts) -> int:
    return sum(1 for v in verdicts if v is not None and v.get("status") != "judged")


def _prelabelled(verdicts: Verdicts) -> int:
    return sum(1 for v in verdicts if v is not None and v.get("prelabel_rule"))


def perturbation_metrics(records: list[ProbeRecord]) -> dict[str, float]:
    """Metrics of a perturbed task that need no judge.

    Args:
        records: the doc's probe records (k repeats).
    """
    out: dict[str, float] = {}
    if records[0].perturbed:
        out["pct_changed"] = 100.0 * float(np.mean([r.u != r.u_ref for r in records]))
    if records[0].perturbation == "trunc":
        out["trunc_emptied"] = float(any((r.truncation or {}).get("emptied") for r in records))
    return out


def follow_up_metrics(records: list[ProbeRecord]) -> dict[str, float]:
    """Judge-derived metrics of one doc.

    Args:
        records: the doc's probe records (k repeats).
    """
    verdicts = [r.verdict for r in records]
    rate = _genuine(verdicts)
    out: dict[str, float] = {
        "genuine_followup": rate,
        "genuine_pass_at_k": rate if math.isnan(rate) else float(rate > 0),
    }
    for label in LABELS:
        out[f"label_{label}"] = _rate(verdicts, _has_label(label))
    all_verdicts = [v for r in records for v in r.verdicts().values()]
    out["unjudged"] = float(_unjudged(all_verdicts))
    out["judge_calls_saved"] = float(_prelabelled(all_verdicts))
    usage = [r.judge_usage or {} for r in records]
    for key in USAGE_KEYS:
        out[f"judge_{key}"] = float(sum(int(u.get(key, 0)) for u in usage))
    if records[0].perturbed:
        out["genuine_followup_base"] = _genuine([r.verdict_ref for r in records])
        out["genuine_followup_diff"] = out["genuine_followup"] - out["genuine_followup_base"]
    if records[0].reference_user_turn is not None:
        out["genuine_followup_reference"] = _genuine([r.verdict_reference for r in records])
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
    per_repeat = [score(doc, r.answer) for r in records]
    out: dict[str, Any] = {}
    for key in per_repeat[0]:
        values = [s[key] for s in per_repeat]
        if isinstance(values[0], list):
            out[key] = [x for v in values for x in v]
        else:
            out[key] = float(np.mean([float(v) for v in values]))
    return out, per_repeat


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
    values: dict[str, Any] = {}
    accuracy, per_repeat = accuracy_metrics(doc, records, score)
    values.update(accuracy)
    values.update(perturbation_metrics(records))
    if "genuine_followup" in names:
        values.update(follow_up_metrics(records))
        if primary is not None:
            values.update(conditioned(records, per_repeat, primary))
    return {name: values.get(name, NAN) for name in (m.name for m in specs)}
