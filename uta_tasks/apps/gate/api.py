"""``run_gate``: apply a rules file to a candidate run (and a baseline run)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from uta_tasks.apps.gate.errors import GateInputError
from uta_tasks.apps.gate.evaluate import ERROR, FAIL, RuleResult, evaluate_rule
from uta_tasks.apps.gate.rules import GateSettings, RuleSet, load_rules
from uta_tasks.apps.gate.side import Side
from uta_tasks.runs import EstimateSettings

EXIT_PASS, EXIT_FAIL, EXIT_UNDECIDED = 0, 1, 2


@dataclass
class GateResult:
    """The gate's decision.

    Attributes:
        results: one per rule, in file order.
        settings: the settings used.
        candidate: the candidate's results file.
        baseline: the baseline's results file, or None.
        rules_file: where the rules came from.
        provenance: the candidate's provenance (model, judge, versions).
    """

    results: list[RuleResult]
    settings: GateSettings
    candidate: str
    baseline: str | None = None
    rules_file: str = ""
    provenance: dict[str, Any] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        """2 when a rule cannot be decided, else 1 when a rule failed, else 0."""
        statuses = {r.status for r in self.results}
        if ERROR in statuses:
            return EXIT_UNDECIDED
        return EXIT_FAIL if FAIL in statuses else EXIT_PASS

    @property
    def verdict(self) -> str:
        """``passed``, ``failed`` or ``undecided``."""
        return {EXIT_PASS: "passed", EXIT_FAIL: "failed", EXIT_UNDECIDED: "undecided"}[self.exit_code]

    def counts(self) -> dict[str, int]:
        """Rules per status."""
        out = {"pass": 0, "fail": 0, "error": 0}
        for r in self.results:
            out[r.status] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "verdict": self.verdict,
            "exit_code": self.exit_code,
            "counts": self.counts(),
            "candidate": self.candidate,
            "baseline": self.baseline,
            "rules_file": self.rules_file,
            "settings": {**self.settings.__dict__, "same": list(self.settings.same)},
            "provenance": {k: v for k, v in self.provenance.items() if k != "tasks"},
            "rules": [r.to_dict() for r in self.results],
        }


def run_gate(
    candidate: str | Path,
    rules: RuleSet | str | Path,
    baseline: str | Path | None = None,
    *,
    strict: bool | None = None,
    calibration: str | Path | None = None,
    retest: str | Path | None = None,
) -> GateResult:
    """Apply the rules to the candidate (and baseline) runs.

    Args:
        candidate: the candidate's lm-eval output folder (or results file).
        rules: a parsed :class:`RuleSet` or the path of the rules YAML.
        baseline: the baseline's output folder, needed by regression rules.
        strict: override the rules file's ``strict`` setting.
        calibration: a judge calibration file (``uta-agreement --calibration_out``): rules on
            ``genuine_followup_corrected`` read it.
        retest: a ``retest.json`` (``uta-rejudge --retest``): margins smaller than the judge's
            own spread are flagged.

    Raises:
        GateInputError: the rules file is malformed or a run cannot be found (exit code 2).
    """
    ruleset = rules if isinstance(rules, RuleSet) else load_rules(rules)
    settings = ruleset.settings if strict is None else replace(ruleset.settings, strict=strict)
    est = EstimateSettings(settings.confidence, settings.iterations, settings.seed)
    calib = None
    if calibration is not None:
        from uta_tasks.runs.calibration import read_calibration

        try:
            calib = read_calibration(calibration)
        except ValueError as exc:
            raise GateInputError(str(exc)) from None
    cand = Side.open("candidate", str(candidate), est, calib)
    base = Side.open("baseline", str(baseline), est, calib) if baseline is not None else None
    if base is None and ruleset.needs_baseline:
        names = [r.name for r in ruleset.rules if r.is_regression]
        raise GateInputError(f"rules {names} compare against a baseline: pass --baseline FOLDER")
    try:
        provenance = cand.typed.provenance
    except GateInputError:
        provenance = {}
    results = [evaluate_rule(rule, cand, base, settings) for rule in ruleset.rules]
    if retest is not None:
        from uta_tasks.apps.gate.noise import flag_judge_noise
        from uta_tasks.runs.retest_file import read_retest

        try:
            flag_judge_noise(results, read_retest(retest), cand)
        except ValueError as exc:
            raise GateInputError(str(exc)) from None
    return GateResult(
        results=results,
        settings=settings,
        candidate=str(cand.files.results),
        baseline=str(base.files.results) if base else None,
        rules_file=ruleset.source,
        provenance=provenance,
    )
