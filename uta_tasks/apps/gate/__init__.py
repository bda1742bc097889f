"""The release gate: rules (YAML) applied to a candidate run and an optional baseline run.

Exit codes: 0 every rule holds; 1 a rule failed; 2 the input cannot decide (missing task
or metric, too few judged turns, settings that differ from the baseline's, a malformed
rules file). See :mod:`uta_tasks.apps.gate.rules` for the file format.
"""

from __future__ import annotations

from uta_tasks.apps.gate.api import EXIT_FAIL, EXIT_PASS, EXIT_UNDECIDED, GateResult, run_gate
from uta_tasks.apps.gate.errors import GateInputError
from uta_tasks.apps.gate.rules import GateSettings, Rule, RuleSet, load_rules, parse_rules

__all__ = [
    "EXIT_FAIL",
    "EXIT_PASS",
    "EXIT_UNDECIDED",
    "GateInputError",
    "GateResult",
    "GateSettings",
    "Rule",
    "RuleSet",
    "load_rules",
    "parse_rules",
    "run_gate",
]
