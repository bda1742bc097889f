"""Evaluate every rule against the candidate run (and the baseline run for regressions).

Bounds are read from the candidate's summary (:mod:`uta_tasks.runs.summary`). A regression
compares candidate and baseline on the same metric:

* a rate with samples on both sides: paired bootstrap over docs, units matched by
  ``(task, doc_id, repeat)``;
* a rate without samples on one side: Newcombe's interval from the two counts;
* any other metric: ``d +- z * sqrt(se_c^2 + se_b^2)``, the standard errors taken from each
  side's interval (no interval: decided on the point estimate).

A rule that cannot be decided (missing task or metric, too few judged units, settings that
differ from the baseline's) gets status ``error`` with the cause.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from uta_tasks.apps.gate.decide import bound_holds, regression_holds
from uta_tasks.apps.gate.errors import GateInputError
from uta_tasks.apps.gate.rules import GateSettings, Rule
from uta_tasks.apps.gate.side import Side
from uta_tasks.runs.comparability import BY_KEY, differences
from uta_tasks.runs.estimates import Estimate, not_kept
from uta_tasks.runs.observations import Observations
from uta_tasks.stats import Interval, newcombe, paired_bootstrap, z_value
from uta_tasks.stats.correction import METHOD as CORRECTED_METHOD

PASS, FAIL, ERROR = "pass", "fail", "error"


@dataclass
class RuleResult:
    """The outcome of one rule.

    Attributes:
        rule: the rule.
        status: ``pass``, ``fail`` or ``error`` (cannot decide).
        value: the candidate's value (bound) or candidate minus baseline (regression).
        interval: interval of ``value``.
        candidate: regression: the candidate's value on the compared units.
        baseline: regression: the baseline's value on the compared units.
        n: units behind the value (judged turns, docs or matched units).
        method: how the interval was computed.
        note: how the rule was decided, or why it could not be.
        judge_noise: set when the margin is smaller than the judge's retest spread (``--retest``).
    """

    rule: Rule
    status: str
    value: float | None = None
    interval: Interval | None = None
    candidate: float | None = None
    baseline: float | None = None
    n: int | None = None
    method: str | None = None
    note: str = ""
    judge_noise: str | None = None

    @property
    def uncertain(self) -> bool:
        """True for a pass whose point estimate is on the wrong side (only the interval saved it)."""
        return self.status == PASS and "wrong side" in self.note

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        r = self.rule
        return {
            "name": r.name,
            "task": r.task,
            "metric": r.metric,
            "kind": "regression" if r.is_regression else "bound",
            "op": r.op,
            "bound": r.value,
            "max_drop": r.max_drop,
            "max_rise": r.max_rise,
            "status": self.status,
            "value": self.value,
            "ci_low": self.interval.low if self.interval else None,
            "ci_high": self.interval.high if self.interval else None,
            "method": self.method,
            "candidate": self.candidate,
            "baseline": self.baseline,
            "n": self.n,
            "note": self.note,
            "judge_noise": self.judge_noise,
        }


def _entry(side: Side, rule: Rule) -> Estimate:
    row = side.row(rule.task)
    if row is None:
        raise GateInputError(
            f"task or group '{rule.task}' is not in the {side.role} run {side.files.results} "
            f"(it has: {', '.join(side.names()) or 'nothing'}); run it, or fix the rule"
        )
    entry = row.metric(rule.metric)
    if entry is None:
        why = not_kept(side.run, rule.task, rule.metric)
        if why is not None:
            raise GateInputError(f"{why} ({side.role} run {side.files.results})")
        raise GateInputError(
            f"metric '{rule.metric}' is not reported for '{rule.task}' in the {side.role} run "
            f"(it reports: {', '.join(sorted(row.metrics))})"
        )
    if entry.value is None and entry.extra.get("note"):
        raise GateInputError(f"'{rule.task}' {rule.metric} has no value in the {side.role} run: {entry.extra['note']}")
    if entry.value is None:
        raise GateInputError(
            f"'{rule.task}' {rule.metric} has no value in the {side.role} run: no judged turn "
            f"(too few judged turns; lm-eval wrote NaN)"
        )
    return entry


def _check_units(rule: Rule, n: int | None, settings: GateSettings, what: str) -> None:
    needed = rule.min_judged or settings.min_judged
    if n is not None and n < needed:
        raise GateInputError(
            f"'{rule.task}' {rule.metric}: too few judged turns ({what} n={n} < min_judged={needed}); "
            f"evaluate more docs or lower min_judged"
        )


def _interval(entry: Estimate, confidence: float) -> Interval | None:
    iv = entry.interval
    return None if iv is None else Interval(iv.low, iv.high, iv.method, confidence)


def _method(entry: Estimate) -> str | None:
    return entry.interval.method if entry.interval else None


def _is_rate(entry: Estimate) -> bool:
    return _method(entry) == "wilson" and entry.n is not None


def _bound(rule: Rule, cand: Side, settings: GateSettings) -> RuleResult:
    entry = _entry(cand, rule)
    if _is_rate(entry) or (_method(entry) == CORRECTED_METHOD and entry.n is not None):
        _check_units(rule, entry.n, settings, "candidate")
    interval = _interval(entry, settings.confidence)
    assert entry.value is not None  # _entry refuses a metric without a value
    holds, note = bound_holds(entry.value, interval, rule.op or ">=", float(rule.value or 0.0), settings.strict)
    return RuleResult(rule, PASS if holds else FAIL, entry.value, interval, n=entry.n,
                      method=interval.method if interval else None, note=note)


def _check_same(rule: Rule, cand: Side, base: Side, settings: GateSettings) -> list[str]:
    members = cand.members(rule.task)
    if sorted(members) != sorted(base.members(rule.task)):
        raise GateInputError(
            f"'{rule.task}' has different tasks in the candidate ({', '.join(members)}) and the baseline "
            f"({', '.join(base.members(rule.task))}); compare runs of the same tasks"
        )
    for task in members:
        c, b = cand.task_provenance(task), base.task_provenance(task)
        for key in settings.same:
            if differences(c, b, [key]):
                before = BY_KEY[key].before
                raise GateInputError(
                    f"not comparable: mismatched {key} for '{task}': candidate {c.get(key, before)!r} vs baseline "
                    f"{b.get(key, before)!r}; rerun one side with the other's setting, or remove '{key}' from "
                    "settings.same"
                )
    return members


def _observations(side: Side, members: list[str], metric: str) -> dict | None:
    tasks = [side.run.tasks.get(t) for t in members]
    if any(t is None or t.observations is None for t in tasks):
        return None
    return Observations.pooled([t.observations for t in tasks if t and t.observations], metric)


def _regression(rule: Rule, cand: Side, base: Side | None, settings: GateSettings) -> RuleResult:
    if base is None:
        raise GateInputError(f"rule '{rule.name}' compares against a baseline: pass --baseline FOLDER")
    ce, be = _entry(cand, rule), _entry(base, rule)
    assert ce.value is not None and be.value is not None  # _entry refuses a metric without a value
    cv, bv = ce.value, be.value
    members = _check_same(rule, cand, base, settings)
    kw: dict[str, Any] = {"max_drop": rule.max_drop, "max_rise": rule.max_rise, "strict": settings.strict}
    if _is_rate(ce) and _is_rate(be):
        c_obs, b_obs = _observations(cand, members, rule.metric), _observations(base, members, rule.metric)
        if c_obs is not None and b_obs is not None:
            matched = len(set(c_obs) & set(b_obs))
            if matched == 0:
                raise GateInputError(
                    f"'{rule.task}' {rule.metric}: no (doc_id, repeat) is judged on both sides; "
                    f"run the baseline and the candidate on the same docs"
                )
            _check_units(rule, matched, settings, "matched")
            pd = paired_bootstrap(c_obs, b_obs, iterations=settings.iterations, seed=settings.seed,
                                  confidence=settings.confidence)
            holds, note = regression_holds(pd.estimate, pd.interval, **kw)
            return RuleResult(rule, PASS if holds else FAIL, pd.estimate, pd.interval, pd.candidate, pd.baseline,
                              pd.units, pd.interval.method, note)
        assert ce.n is not None and be.n is not None and ce.k is not None and be.k is not None  # rates (_is_rate)
        _check_units(rule, min(ce.n, be.n), settings, "candidate/baseline")
        nc = newcombe(ce.k, ce.n, be.k, be.n, settings.confidence)
        diff = cv - bv
        holds, note = regression_holds(diff, nc, **kw)
        return RuleResult(rule, PASS if holds else FAIL, diff, nc, cv, bv, min(ce.n, be.n), nc.method, note)
    diff = cv - bv
    ci, bi = _interval(ce, settings.confidence), _interval(be, settings.confidence)
    iv: Interval | None = None
    if ci is not None and bi is not None:
        z = z_value(settings.confidence)
        half = z * math.hypot((ci.high - ci.low) / (2 * z), (bi.high - bi.low) / (2 * z))
        iv = Interval(diff - half, diff + half, "normal", settings.confidence)
    holds, note = regression_holds(diff, iv, **kw)
    return RuleResult(rule, PASS if holds else FAIL, diff, iv, cv, bv, None, iv.method if iv else None, note)


def evaluate_rule(rule: Rule, cand: Side, base: Side | None, settings: GateSettings) -> RuleResult:
    """Decide one rule; a rule that cannot be decided gets status ``error`` with the cause.

    Args:
        rule: the rule.
        cand: the candidate run.
        base: the baseline run, or None.
        settings: gate settings.
    """
    try:
        if rule.is_regression:
            return _regression(rule, cand, base, settings)
        return _bound(rule, cand, settings)
    except GateInputError as exc:
        return RuleResult(rule, ERROR, note=str(exc))
