"""Per-doc metrics of a uta task, from the probe records of that doc (one per repeat).

Every follow-up rate is a mean over *judged* user turns only: an unjudged turn is NaN
for the doc, never 0, and docs with no judged turn drop out of the mean (``nanmean``,
which lm-eval bootstraps for a standard error). Counts are summed over docs.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
from lm_eval.api.metrics import nanmean

from uta_tasks.metrics.aggregate import total
from uta_tasks.judge.labels import LABELS

NAN = float("nan")
USAGE_KEYS = ("calls", "cache_hits", "input_tokens", "output_tokens")


def _rate(verdicts: list[dict | None], test: Callable[[dict], bool]) -> float:
    judged = [v for v in verdicts if v is not None and v.get("status") == "judged"]
    if not judged:
        return NAN
    return float(np.mean([1.0 if test(v) else 0.0 for v in judged]))


def _genuine(verdicts: list[dict | None]) -> float:
    return _rate(verdicts, lambda v: bool(v.get("genuine")))


def _any_genuine(verdicts: list[dict | None]) -> float:
    rate = _genuine(verdicts)
    return rate if math.isnan(rate) else float(rate > 0)


def perturbation_metrics(records: list[dict]) -> dict[str, float]:
    """Metrics of a perturbed task that need no judge.

    Args:
        records: the doc's probe records (k repeats).
    """
    out: dict[str, float] = {}
    if records[0]["perturbation"] != "none":
        out["pct_changed"] = 100.0 * float(np.mean([r["u"] != r["u_ref"] for r in records]))
    if records[0]["perturbation"] == "trunc":
        out["trunc_emptied"] = float(any(r["truncation"]["emptied"] for r in records))
    return out


def follow_up_metrics(records: list[dict]) -> dict[str, float]:
    """Judge-derived metrics of one doc.

    Args:
        records: the doc's probe records (k repeats).
    """
    verdicts = [r.get("verdict") for r in records]
    out: dict[str, float] = {
        "genuine_followup": _genuine(verdicts),
        "genuine_pass_at_k": _any_genuine(verdicts),
        "unjudged": float(sum(1 for v in verdicts if v is not None and v.get("status") != "judged")),
    }
    for label in LABELS:
        out[f"label_{label}"] = _rate(verdicts, lambda v, label=label: v.get("label") == label)
    usage = [r.get("judge_usage") or {} for r in records]
    for key in USAGE_KEYS:
        out[f"judge_{key}"] = float(sum(int(u.get(key, 0)) for u in usage))
    first = records[0]
    if first["perturbation"] != "none":
        refs = [r.get("verdict_ref") for r in records]
        out["genuine_followup_base"] = _genuine(refs)
        out["genuine_followup_diff"] = out["genuine_followup"] - out["genuine_followup_base"]
        out["unjudged"] += float(sum(1 for v in refs if v is not None and v.get("status") != "judged"))
    if first.get("reference_user_turn") is not None:
        out["genuine_followup_reference"] = _genuine([r.get("verdict_reference") for r in records])
    return out


def accuracy_metrics(doc: dict, records: list[dict], score: Callable[[dict, str], dict]) -> dict[str, Any]:
    """Benchmark accuracy of the final answers, averaged over repeats.

    Args:
        doc: the benchmark doc.
        records: the doc's probe records.
        score: the benchmark's scorer ``(doc, final answer) -> metrics``.
    """
    per_repeat = [score(doc, r["answer"]) for r in records]
    out: dict[str, Any] = {}
    for key in per_repeat[0]:
        values = [s[key] for s in per_repeat]
        if isinstance(values[0], list):
            out[key] = [x for v in values for x in v]
        else:
            out[key] = float(np.mean([float(v) for v in values]))
    return out


def conditioned(out: dict[str, Any], primary: str | None) -> dict[str, float]:
    """Follow-up rate split by whether the doc was answered correctly.

    Args:
        out: the doc's metrics so far (accuracy and follow-up).
        primary: the benchmark's correctness metric, or None (held-out).
    """
    if primary is None or primary not in out:
        return {}
    correct = float(out[primary]) >= 1.0
    rate = out["genuine_followup"]
    return {
        "genuine_followup_correct": rate if correct else NAN,
        "genuine_followup_wrong": NAN if correct else rate,
    }


def aggregations(
    benchmark_aggs: dict[str, Callable], perturbation: str, held_out: bool, primary: str | None, judged: bool
) -> dict[str, Callable]:
    """Aggregation function of every metric a task reports.

    Args:
        benchmark_aggs: the benchmark's accuracy aggregations.
        perturbation: the task's perturbation.
        held_out: whether the task has a reference user turn.
        primary: the benchmark's correctness metric.
        judged: whether the judge runs (``judge: none`` reports no follow-up rates).
    """
    aggs: dict[str, Callable] = dict(benchmark_aggs)
    if perturbation != "none":
        aggs["pct_changed"] = nanmean
    if perturbation == "trunc":
        aggs["trunc_emptied"] = total
    if not judged:
        return aggs
    for name in ("genuine_followup", "genuine_pass_at_k", *(f"label_{x}" for x in LABELS)):
        aggs[name] = nanmean
    aggs["unjudged"] = total
    for key in USAGE_KEYS:
        aggs[f"judge_{key}"] = total
    if perturbation != "none":
        aggs.update(genuine_followup_base=nanmean, genuine_followup_diff=nanmean)
    if held_out:
        aggs["genuine_followup_reference"] = nanmean
    if primary is not None:
        aggs.update(genuine_followup_correct=nanmean, genuine_followup_wrong=nanmean)
    return aggs
