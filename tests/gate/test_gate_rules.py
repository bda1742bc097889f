"""The rules file: accepted forms, and a message naming the rule for every malformed one."""

from __future__ import annotations

import pytest

from uta_tasks.apps.gate import GateInputError, load_rules, parse_rules


def test_long_and_short_forms_and_settings():
    rs = parse_rules({
        "version": 1,
        "settings": {"confidence": 0.9, "min_judged": 5, "strict": True, "iterations": 500, "seed": 3,
                     "same": ["judge_model"]},
        "rules": [
            {"task": "uta_gsm8k_trunc", "metric": "genuine_followup", "op": ">=", "value": 0.1},
            "uta: label_previous_turn_restate <= 0.5",
            {"task": "uta", "metric": "genuine_followup", "max_drop": 0.05, "name": "no regression",
             "min_judged": 50},
            {"task": "uta", "metric": "label_previous_turn_restate", "max_rise": 0.02},
        ],
    })
    s = rs.settings
    assert (s.confidence, s.min_judged, s.strict, s.iterations, s.seed, s.same) == (0.9, 5, True, 500, 3,
                                                                                   ("judge_model",))
    a, b, c, d = rs.rules
    assert (a.task, a.metric, a.op, a.value, a.is_regression) == ("uta_gsm8k_trunc", "genuine_followup", ">=", 0.1,
                                                                  False)
    assert (b.task, b.metric, b.op, b.value) == ("uta", "label_previous_turn_restate", "<=", 0.5)
    assert (c.name, c.max_drop, c.min_judged, c.is_regression) == ("no regression", 0.05, 50, True)
    assert d.bound_text == "rise <= 0.02" and d.name == "uta: label_previous_turn_restate rise <= 0.02"
    assert rs.needs_baseline



def test_a_rule_on_the_former_name_changed_share_checks_share_changed():
    (rule,) = parse_rules({"version": 1, "rules": ["uta_gsm8k_trunc: changed_share >= 0.5"]}).rules
    assert rule.metric == "share_changed"

@pytest.mark.parametrize("doc,message", [
    ([], "must be a mapping"),
    ({"rules": []}, "non-empty list"),
    ({"rules": [{"task": "t", "metric": "m"}]}, "rule 1: give exactly one of"),
    ({"rules": [{"task": "t", "metric": "m", "op": "==", "value": 1}]}, "rule 1: op '=='"),
    ({"rules": [{"task": "t", "metric": "m", "op": ">="}]}, "needs a 'value'"),
    ({"rules": [{"task": "t", "metric": "m", "op": ">=", "value": "high"}]}, "value must be a number"),
    ({"rules": [{"metric": "m", "op": ">=", "value": 1}]}, "'task' is required"),
    ({"rules": [{"task": "t", "metric": "m", "max_drop": -1}]}, "max_drop=-1 must be >= 0"),
    ({"rules": [{"task": "t", "metric": "m", "max_drop": 1, "op": ">=", "value": 0}]}, "exactly one"),
    ({"rules": [{"task": "t", "metric": "m", "op": ">=", "value": 0, "treshold": 1}]}, "unknown key(s) ['treshold']"),
    ({"rules": ["t: m about 3"]}, "not of the form"),
    ({"rules": ["t: m >= x"]}, "'x' in 't: m >= x' is not a number"),
    ({"rules": ["t: m >= 1"], "settings": {"confidence": 1.5}}, "confidence=1.5"),
    ({"rules": ["t: m >= 1"], "settings": {"min_judged": 0}}, "min_judged must be an integer >= 1"),
    ({"rules": ["t: m >= 1"], "settings": {"same": ["colour"]}}, "same must be a list"),
    ({"rules": ["t: m >= 1"], "extra": 1}, "unknown top-level key(s) ['extra']"),
    ({"rules": ["t: m >= 1"], "version": 2}, "version 2"),
    ({"rules": [{"task": "t", "metric": "unjudged_share", "max_drop": 0.1}]}, "lower-is-better metric"),
    ({"rules": [{"task": "t", "metric": "genuine_followup", "max_rise": 0.1}]}, "guard it with max_drop"),
    ({"rules": [{"task": "t", "metric": "label_meta_planning", "max_drop": 0.1}]}, "guard it with max_rise"),
])
def test_malformed_rules_name_the_cause(doc, message):
    with pytest.raises(GateInputError) as err:
        parse_rules(doc, "gate.yaml")
    assert message in str(err.value) and "gate.yaml" in str(err.value)


def test_unreadable_and_invalid_yaml_files(tmp_path):
    with pytest.raises(GateInputError, match="cannot read the rules file"):
        load_rules(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("rules: [ {task: t\n")
    with pytest.raises(GateInputError, match="is not valid YAML"):
        load_rules(bad)
