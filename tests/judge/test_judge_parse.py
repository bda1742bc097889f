"""The reply parser and the reply schema: valid verdicts pass, everything else is a
ReplyError with a reason, and a label that contradicts genuine is one of those."""

from __future__ import annotations

import copy
import json

import pytest
from schema_rules import is_valid, strict_violations

from uta_tasks.judge import LABELS, VERDICT_SCHEMA, ReplyError
from uta_tasks.judge.labels import FAILURE_LABELS, allowed_genuine, response_format
from uta_tasks.judge.parse import parse_reply


def reply(rationale: object = "Asks about the division step.", label: object = "plausible_followup",
          genuine: object = True, **extra: object) -> str:
    """A reply in the schema's shape."""
    return json.dumps({"rationale": rationale, "decision": {"label": label, "genuine": genuine}, **extra})


def flat(**overrides: object) -> str:
    """A reply in the flat shape the v1 text describes."""
    data = {"rationale": "Asks about the division step.", "label": "plausible_followup", "genuine": True}
    data.update(overrides)
    return json.dumps(data)


def test_valid_reply_parses() -> None:
    parsed = parse_reply(reply())
    assert (parsed.rationale, parsed.label, parsed.genuine) == (
        "Asks about the division step.", "plausible_followup", True,
    )


def test_flat_reply_parses_too() -> None:
    parsed = parse_reply(flat(label="meta_planning", genuine=False))
    assert (parsed.label, parsed.genuine) == ("meta_planning", False)


@pytest.mark.parametrize("label", LABELS)
@pytest.mark.parametrize("genuine", [True, False])
@pytest.mark.parametrize("shape", ["schema", "flat"])
def test_label_and_genuine_must_agree(label: str, genuine: bool, shape: str) -> None:
    content = reply(label=label, genuine=genuine) if shape == "schema" else flat(label=label, genuine=genuine)
    agrees = label == "other" or genuine == (label == "plausible_followup")
    if agrees:
        parsed = parse_reply(content)
        assert (parsed.label, parsed.genuine) == (label, genuine)
    else:
        with pytest.raises(ReplyError, match=f"contradiction: label {label} with genuine {str(genuine).lower()}"):
            parse_reply(content)


def test_the_rule_splits_the_labels_as_the_paper_does() -> None:
    assert allowed_genuine("plausible_followup") == (True,)
    assert allowed_genuine("other") == (True, False)
    assert len(FAILURE_LABELS) == 6 and all(allowed_genuine(label) == (False,) for label in FAILURE_LABELS)
    assert {"plausible_followup", "other", *FAILURE_LABELS} == set(LABELS)


def test_code_fence_and_whitespace_are_tolerated() -> None:
    assert parse_reply("\n```json\n" + reply() + "\n```\n").genuine is True


@pytest.mark.parametrize(
    ("content", "finish", "fragment"),
    [
        (reply(), "length", "finish_reason=length"),
        (reply(), "content_filter", "content_filter"),
        (None, "stop", "empty reply"),
        ("   ", "stop", "empty reply"),
        ('{"rationale": "cut', "stop", "invalid JSON"),
        (reply() + " trailing words", "stop", "invalid JSON"),
        ("[1, 2]", "stop", "expected a JSON object"),
        (json.dumps({"label": "other", "genuine": False}), "stop", "missing keys ['rationale']"),
        (json.dumps({"decision": {"label": "other", "genuine": False}}), "stop", "missing keys ['rationale']"),
        (reply(extra=1), "stop", "unexpected keys ['extra']"),
        (flat(extra=1), "stop", "unexpected keys ['extra']"),
        (json.dumps({"rationale": "r", "decision": "other"}), "stop", "decision is str, not an object"),
        (json.dumps({"rationale": "r", "decision": {"label": "other"}}), "stop", "decision: missing keys ['genuine']"),
        (json.dumps({"rationale": "r", "label": "other", "genuine": False, "decision": {}}), "stop",
         "unexpected keys ['genuine', 'label']"),
        (reply(label="genuine_followup"), "stop", "is not one of"),
        (reply(genuine="true"), "stop", "not a JSON boolean"),
        (flat(genuine=1), "stop", "not a JSON boolean"),
        (reply(rationale=3), "stop", "rationale is int"),
        ('{"rationale": "a", "decision": {"label": "other", "genuine": true, "genuine": false}}', "stop",
         "duplicate keys"),
    ],
)
def test_invalid_replies_raise_with_reason(content: str | None, finish: str, fragment: str) -> None:
    with pytest.raises(ReplyError) as info:
        parse_reply(content, finish_reason=finish)
    assert fragment in str(info.value)


def test_refusal_is_a_failed_reply() -> None:
    with pytest.raises(ReplyError, match="refusal"):
        parse_reply(None, refusal="I can't help with that.")


def test_schema_orders_rationale_then_label_then_genuine() -> None:
    assert list(VERDICT_SCHEMA["properties"]) == ["rationale", "decision"]
    assert VERDICT_SCHEMA["required"] == ["rationale", "decision"]
    branches = VERDICT_SCHEMA["properties"]["decision"]["anyOf"]
    assert all(list(branch["properties"]) == ["label", "genuine"] for branch in branches)
    assert sorted(v for branch in branches for v in branch["properties"]["label"]["enum"]) == sorted(LABELS)
    fmt = response_format()
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    fmt["json_schema"]["schema"]["required"].append("x")
    assert VERDICT_SCHEMA["required"] == ["rationale", "decision"]  # a copy each time
    assert len(LABELS) == 8


@pytest.mark.parametrize("label", LABELS)
@pytest.mark.parametrize("genuine", [True, False])
def test_schema_and_parser_accept_the_same_pairs(label: str, genuine: bool) -> None:
    instance = {"rationale": "r", "decision": {"label": label, "genuine": genuine}}
    try:
        parse_reply(json.dumps(instance))
        parsed = True
    except ReplyError:
        parsed = False
    assert is_valid(instance, VERDICT_SCHEMA) is parsed


def test_schema_rejects_what_the_parser_rejects_beyond_the_pairs() -> None:
    assert not is_valid({"rationale": "r", "decision": {"label": "other", "genuine": "yes"}}, VERDICT_SCHEMA)
    assert not is_valid({"rationale": "r", "decision": {"label": "other", "genuine": True, "x": 1}}, VERDICT_SCHEMA)
    assert not is_valid({"rationale": "r", "label": "other", "genuine": True}, VERDICT_SCHEMA)


def test_schema_stays_inside_openais_strict_subset() -> None:
    assert strict_violations(VERDICT_SCHEMA) == []


def test_the_strict_subset_check_bites() -> None:
    branches = copy.deepcopy(VERDICT_SCHEMA["properties"]["decision"]["anyOf"])
    at_root = {"type": "object", "anyOf": branches}
    assert "root: anyOf at the root" in strict_violations(at_root)
    one_of = copy.deepcopy(VERDICT_SCHEMA)
    one_of["properties"]["decision"]["oneOf"] = one_of["properties"]["decision"].pop("anyOf")
    assert "root.decision: unsupported keyword oneOf" in strict_violations(one_of)
    overlapping = copy.deepcopy(VERDICT_SCHEMA)
    overlapping["properties"]["decision"]["anyOf"][2]["properties"]["label"]["enum"].append("plausible_followup")
    assert any("overlapping values" in p for p in strict_violations(overlapping))
    open_object = copy.deepcopy(VERDICT_SCHEMA)
    del open_object["properties"]["decision"]["anyOf"][0]["additionalProperties"]
    assert any("additionalProperties" in p for p in strict_violations(open_object))
