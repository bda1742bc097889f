"""The gate's rules file (YAML).

::

    version: 1
    settings:              # all optional
      confidence: 0.95     # coverage of every interval
      min_judged: 20       # fewer units behind a rate -> exit 2 (judged turns; docs for accuracy)
      strict: false        # true: decide on the point estimate (also --strict)
      iterations: 2000     # paired bootstrap replicates
      seed: 0              # bootstrap seed
      same: [judge_model, prompt_version, temperature]   # default: every gate setting of the
                           # comparability table (uta_tasks.runs.comparability.GATE_KEYS); a
                           # shorter list switches the others' check off
    rules:
      - {task: uta_gsm8k_trunc, metric: genuine_followup, op: ">=", value: 0.10}
      - {task: uta, metric: label_previous_turn_restate, op: "<=", value: 0.5}
      - {task: uta_gsm8k_trunc, metric: genuine_followup, max_drop: 0.05}     # vs --baseline
      - {task: uta, metric: label_previous_turn_restate, max_rise: 0.05}    # vs --baseline
      - "uta_gsm8k: accuracy >= 0.3"                                          # short form

A rule has exactly one of ``op`` + ``value`` (a bound), ``max_drop`` (higher is better) or
``max_rise`` (lower is better); optional ``name`` and ``min_judged``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from uta_tasks.apps.gate.errors import GateInputError
from uta_tasks.metrics.table import higher_is_better
from uta_tasks.runs.comparability import GATE_KEYS
from uta_tasks.runs.regular_file import read_bounded
from uta_tasks.schema import output

OPS = (">=", ">", "<=", "<")
# Every setting that changes the measurement and that a baseline comparison guards.
SAME_KEYS = GATE_KEYS
_RULE_KEYS = {"name", "task", "metric", "op", "value", "max_drop", "max_rise", "min_judged"}
_SETTING_KEYS = {"confidence", "min_judged", "strict", "iterations", "seed", "same"}
_SHORT = re.compile(r"^\s*(?P<task>[\w.-]+)\s*:\s*(?P<metric>[\w.-]+)\s*(?P<op>>=|<=|>|<)\s*(?P<value>\S+)\s*$")


@dataclass(frozen=True)
class GateSettings:
    """Settings of a gate run.

    Attributes:
        confidence: coverage of every interval.
        min_judged: minimum units behind a rate (judged turns; docs for accuracy and pass@k).
        strict: decide on point estimates instead of intervals.
        iterations: paired bootstrap replicates.
        seed: seed of the bootstrap.
        same: provenance keys that must match between candidate and baseline.
    """

    confidence: float = 0.95
    min_judged: int = 20
    strict: bool = False
    iterations: int = 2000
    seed: int = 0
    same: tuple[str, ...] = SAME_KEYS


@dataclass(frozen=True)
class Rule:
    """One rule.

    Attributes:
        name: shown in every output (default: made from the rule).
        task: task or group name.
        metric: metric name.
        op: comparison of a bound (None for a regression).
        value: the bound.
        max_drop: regression: largest allowed fall of a higher-is-better metric.
        max_rise: regression: largest allowed rise of a lower-is-better metric.
        min_judged: overrides the setting for this rule.
    """

    name: str
    task: str
    metric: str
    op: str | None = None
    value: float | None = None
    max_drop: float | None = None
    max_rise: float | None = None
    min_judged: int | None = None

    @property
    def is_regression(self) -> bool:
        """True for a rule against the baseline."""
        return self.max_drop is not None or self.max_rise is not None

    @property
    def bound_text(self) -> str:
        """The rule's threshold as text, e.g. ``>= 0.1`` or ``drop <= 0.05``."""
        if self.max_drop is not None:
            return f"drop <= {self.max_drop:g}"
        if self.max_rise is not None:
            return f"rise <= {self.max_rise:g}"
        return f"{self.op} {self.value:g}"


@dataclass(frozen=True)
class RuleSet:
    """A parsed rules file.

    Attributes:
        settings: gate settings.
        rules: the rules in file order.
        source: where it was read from.
    """

    settings: GateSettings
    rules: list[Rule] = field(default_factory=list)
    source: str = "<rules>"

    @property
    def needs_baseline(self) -> bool:
        """True when a rule compares against a baseline run."""
        return any(r.is_regression for r in self.rules)


def _number(where: str, key: str, raw: Any, *, minimum: float | None = None) -> float:
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        raise GateInputError(f"{where}: {key} must be a number, got {raw!r}")
    if minimum is not None and raw < minimum:
        raise GateInputError(f"{where}: {key}={raw!r} must be >= {minimum}")
    return float(raw)


def _integer(where: str, key: str, raw: Any, minimum: int) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < minimum:
        raise GateInputError(f"{where}: {key} must be an integer >= {minimum}, got {raw!r}")
    return raw


def _short(where: str, text: str) -> dict[str, Any]:
    match = _SHORT.match(text)
    if not match:
        raise GateInputError(f"{where}: {text!r} is not of the form 'task: metric >= value'")
    try:
        value = float(match["value"])
    except ValueError:
        raise GateInputError(f"{where}: {match['value']!r} in {text!r} is not a number") from None
    return {"task": match["task"], "metric": match["metric"], "op": match["op"], "value": value}


def parse_rule(raw: Any, index: int, source: str = "<rules>") -> Rule:
    """Parse one entry of ``rules``.

    Args:
        raw: the YAML entry (mapping or short-form string).
        index: its position (1-based), for messages.
        source: the rules file, for messages.
    """
    where = f"{source}: rule {index}"
    data = _short(where, raw) if isinstance(raw, str) else raw
    if not isinstance(data, dict):
        raise GateInputError(f"{where} must be a mapping or 'task: metric >= value', got {type(raw).__name__}")
    unknown = sorted(set(data) - _RULE_KEYS)
    if unknown:
        raise GateInputError(f"{where}: unknown key(s) {unknown}; allowed: {sorted(_RULE_KEYS)}")
    for key in ("task", "metric"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise GateInputError(f"{where}: '{key}' is required and must be a name")
    kinds = [k for k in ("op", "max_drop", "max_rise") if k in data]
    if len(kinds) != 1:
        raise GateInputError(f"{where}: give exactly one of 'op' + 'value', 'max_drop' or 'max_rise' (got {kinds})")
    # a rules file written for an older uta-tasks may name a metric the old way (changed_share)
    rule = Rule(name="", task=data["task"].strip(), metric=output.current_name(data["metric"].strip()))
    if "op" in data:
        if data["op"] not in OPS:
            raise GateInputError(f"{where}: op {data['op']!r} is not one of {OPS}")
        if "value" not in data:
            raise GateInputError(f"{where}: op {data['op']!r} needs a 'value'")
        rule = replace(rule, op=data["op"], value=_number(where, "value", data["value"]))
    elif "value" in data:
        raise GateInputError(f"{where}: 'value' belongs to a bound with 'op'")
    if "max_drop" in data:
        rule = replace(rule, max_drop=_number(where, "max_drop", data["max_drop"], minimum=0))
    if "max_rise" in data:
        rule = replace(rule, max_rise=_number(where, "max_rise", data["max_rise"], minimum=0))
    _check_direction(where, rule, kinds[0])
    if "min_judged" in data:
        rule = replace(rule, min_judged=_integer(where, "min_judged", data["min_judged"], 1))
    name = data.get("name") or f"{rule.task}: {rule.metric} {rule.bound_text}"
    return replace(rule, name=str(name))


def _check_direction(where: str, rule: Rule, kind: str) -> None:
    """A regression guards the metric's bad direction, as its row in the metric table says:
    ``max_drop`` a higher-is-better metric, ``max_rise`` a lower-is-better one."""
    higher = higher_is_better(rule.metric)
    if higher is None or kind == "op" or (kind == "max_drop") == higher:
        return
    fits, says = ("max_rise", "lower") if kind == "max_drop" else ("max_drop", "higher")
    raise GateInputError(f"{where}: {rule.metric} is a {says}-is-better metric (the metric table, docs/metrics.md): "
                         f"guard it with {fits}, not {kind}")


def parse_settings(raw: Any, source: str = "<rules>") -> GateSettings:
    """Parse the ``settings`` mapping.

    Args:
        raw: the YAML mapping (or None).
        source: the rules file, for messages.
    """
    if raw is None:
        return GateSettings()
    where = f"{source}: settings"
    if not isinstance(raw, dict):
        raise GateInputError(f"{where} must be a mapping")
    unknown = sorted(set(raw) - _SETTING_KEYS)
    if unknown:
        raise GateInputError(f"{where}: unknown key(s) {unknown}; allowed: {sorted(_SETTING_KEYS)}")
    s = GateSettings()
    if "confidence" in raw:
        conf = _number(where, "confidence", raw["confidence"])
        if not 0.5 <= conf < 1:
            raise GateInputError(f"{where}: confidence={conf} must lie in [0.5, 1)")
        s = replace(s, confidence=conf)
    if "min_judged" in raw:
        s = replace(s, min_judged=_integer(where, "min_judged", raw["min_judged"], 1))
    if "iterations" in raw:
        s = replace(s, iterations=_integer(where, "iterations", raw["iterations"], 100))
    if "seed" in raw:
        s = replace(s, seed=_integer(where, "seed", raw["seed"], 0))
    if "strict" in raw:
        if not isinstance(raw["strict"], bool):
            raise GateInputError(f"{where}: strict must be true or false")
        s = replace(s, strict=raw["strict"])
    if "same" in raw:
        same = raw["same"]
        if not isinstance(same, list) or not set(same) <= set(SAME_KEYS):
            raise GateInputError(f"{where}: same must be a list drawn from {list(SAME_KEYS)}")
        s = replace(s, same=tuple(same))
    return s


def parse_rules(data: Any, source: str = "<rules>") -> RuleSet:
    """Parse a loaded rules document.

    Args:
        data: the YAML document.
        source: where it came from, for messages.
    """
    if not isinstance(data, dict):
        raise GateInputError(f"{source}: the rules file must be a mapping with 'rules' (and optional 'settings')")
    unknown = sorted(set(data) - {"version", "settings", "rules"})
    if unknown:
        raise GateInputError(f"{source}: unknown top-level key(s) {unknown}; allowed: version, settings, rules")
    if data.get("version", 1) != 1:
        raise GateInputError(f"{source}: version {data['version']!r} is not supported (use 1)")
    rules = data.get("rules")
    if not isinstance(rules, list) or not rules:
        raise GateInputError(f"{source}: 'rules' must be a non-empty list")
    parsed = [parse_rule(r, i, source) for i, r in enumerate(rules, start=1)]
    return RuleSet(parse_settings(data.get("settings"), source), parsed, source)


MAX_RULES_BYTES = 16 * 2**20  # a rules file of a few hundred rules holds some KiB


def load_rules(path: str | Path) -> RuleSet:
    """Read and validate a rules file.

    Args:
        path: the YAML file.
    """
    import yaml

    p = Path(path)
    try:
        text = read_bounded(p, MAX_RULES_BYTES, "rules file").decode("utf-8")
    except ValueError as exc:  # not a regular file, a read error, too large, not UTF-8
        raise GateInputError(f"cannot read the rules file {p}: {exc}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise GateInputError(f"{p} is not valid YAML: {exc}") from None
    return parse_rules(data, str(p))
