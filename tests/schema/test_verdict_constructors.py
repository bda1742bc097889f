"""Verdict.judged_as / Verdict.unjudged_because: the label and its pairing with the decision are
checked in one place, and every field a builder used to forget is set."""

from __future__ import annotations

import pytest

from uta_tasks.schema.labels import LABELS, allowed_genuine
from uta_tasks.schema.verdict import Verdict

COMMON = {"prompt": [{"role": "user", "content": "x"}], "judge_model": "j", "prompt_version": "v"}


def test_every_allowed_pair_builds_and_every_other_is_refused():
    for label in LABELS:
        for genuine in (True, False):
            if genuine in allowed_genuine(label):
                v = Verdict.judged_as(label, genuine, rationale="r", **COMMON)
                assert v.judged and (v.label, v.genuine, v.reason, v.reason_code) == (label, genuine, None, None)
            else:
                with pytest.raises(ValueError, match="contradiction"):
                    Verdict.judged_as(label, genuine, rationale="r", **COMMON)
    with pytest.raises(ValueError, match="not one of"):
        Verdict.judged_as("made_up", True, rationale="r", **COMMON)


def test_an_unjudged_verdict_has_no_decision_and_keeps_its_reply_identity():
    v = Verdict.unjudged_because("timeout after 3 tries", "timeout", reply_model="m-1", system_fingerprint="fp",
                                 attempts=3, **COMMON)
    assert not v.judged and (v.label, v.genuine) == (None, None)
    assert Verdict.from_dict(v.to_dict()) == v and v.reason_code == "timeout" and v.reply_model == "m-1"
