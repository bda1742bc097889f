"""The reply parser: valid verdicts pass, everything else is a ReplyError with a reason."""

from __future__ import annotations

import json

import pytest

from uta_tasks.judge import LABELS, VERDICT_SCHEMA, ReplyError
from uta_tasks.judge.labels import response_format
from uta_tasks.judge.parse import parse_reply


def reply(**overrides: object) -> str:
    data = {"rationale": "Asks about the division step.", "label": "plausible_followup", "genuine": True}
    data.update(overrides)
    return json.dumps(data)


def test_valid_reply_parses() -> None:
    parsed = parse_reply(reply())
    assert (parsed.rationale, parsed.label, parsed.genuine) == (
        "Asks about the division step.", "plausible_followup", True,
    )


@pytest.mark.parametrize("label", LABELS)
def test_every_label_is_accepted(label: str) -> None:
    assert parse_reply(reply(label=label, genuine=False)).label == label


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
        (reply(extra=1), "stop", "unexpected keys ['extra']"),
        (reply(label="genuine_followup"), "stop", "is not one of"),
        (reply(genuine="true"), "stop", "not a JSON boolean"),
        (reply(genuine=1), "stop", "not a JSON boolean"),
        (reply(rationale=3), "stop", "rationale is int"),
        ('{"rationale": "a", "label": "other", "genuine": true, "genuine": false}', "stop", "duplicate keys"),
    ],
)
def test_invalid_replies_raise_with_reason(content: str | None, finish: str, fragment: str) -> None:
    with pytest.raises(ReplyError) as info:
        parse_reply(content, finish_reason=finish)
    assert fragment in str(info.value)


def test_refusal_is_a_failed_reply() -> None:
    with pytest.raises(ReplyError, match="refusal"):
        parse_reply(None, refusal="I can't help with that.")


def test_schema_is_strict_and_ordered() -> None:
    assert list(VERDICT_SCHEMA["properties"]) == ["rationale", "label", "genuine"]
    assert VERDICT_SCHEMA["required"] == ["rationale", "label", "genuine"]
    assert VERDICT_SCHEMA["additionalProperties"] is False
    assert VERDICT_SCHEMA["properties"]["label"]["enum"] == list(LABELS)
    fmt = response_format()
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    fmt["json_schema"]["schema"]["required"].append("x")
    assert VERDICT_SCHEMA["required"] == ["rationale", "label", "genuine"]  # a copy each time
    assert len(LABELS) == 8
