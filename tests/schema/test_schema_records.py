"""The schema's records and verdicts: decoded once, written back as the same record."""

from __future__ import annotations

import json

import pytest

from uta_tasks.schema.probe import ProbeRecord
from uta_tasks.schema.verdict import JUDGED, UNJUDGED, Verdict

# A version-3 record as the hook logs it (field order included): a judged verdict on u, an
# unjudged one on u_ref, and two user samples.
VERDICT = {"status": "judged", "label": "other", "genuine": True, "rationale": "r", "reason": None, "raw_reply": "{}",
           "prompt": [{"role": "user", "content": "ü"}], "judge_model": "m", "prompt_version": "p", "prompt_sha": "x",
           "cached": False, "attempts": 1, "reason_code": None, "reply_model": None, "system_fingerprint": None,
           "prelabel_rule": None}
UNJUDGED_VERDICT = {**VERDICT, "status": "unjudged", "label": None, "genuine": None, "rationale": None,
                    "reason": "timeout after 3s", "raw_reply": None, "prompt": [], "prompt_sha": "", "attempts": 0,
                    "reason_code": "timeout"}
LOGGED = {
    "task": "uta_gsm8k_trunc", "benchmark": "gsm8k", "perturbation": "trunc", "q": "q",
    "messages": [{"role": "user", "content": "q"}], "a": "a b", "answer": "a b", "reasoning_form": "plain",
    "history": "a b", "a_prime": "a", "role_switch": {"name": "template", "history": "final", "stop": []},
    "generation": {"assistant": {}, "user": {}}, "given_answer": False, "pass1_prompt": "<p>",
    "truncation": {"scope": "response", "n_tokens": 2, "removed_tokens": 1, "emptied": False}, "cue": None,
    "question_pool": None, "reference_user_turn": None, "pass2_prompt": "<p2>", "pass2_ref_prompt": "<p2r>",
    "u": "x", "u_ref": "y", "verdict": VERDICT, "verdict_ref": UNJUDGED_VERDICT, "verdict_reference": None,
    "judge_usage": {"calls": 2, "cache_hits": 0, "input_tokens": 10, "output_tokens": 5}, "answer_incomplete": False,
    "overlong": None, "budget": {}, "pass2_context": "trace", "truncate_scope": "response", "join": None,
    "u_samples": ["x", "z"], "verdict_samples": [VERDICT, None], "answer_source": None, "record_version": 3,
}


def test_a_logged_record_decodes_to_verdicts_and_encodes_to_the_same_json():
    text = json.dumps(LOGGED, ensure_ascii=False)
    record = ProbeRecord.from_json(text)
    assert isinstance(record.verdict, Verdict) and record.verdict.judged and record.verdict.label == "other"
    assert isinstance(record.verdict_ref, Verdict) and not record.verdict_ref.judged
    assert record.verdict_ref.reason_code == "timeout" and record.verdict_reference is None
    assert [v.judged if v else None for v in record.verdict_samples] == [True, None]
    assert record.to_dict() == LOGGED
    written = record.to_json()  # version 4: each text once
    assert len(written) < len(text) and ProbeRecord.from_json(written) == record
    assert ProbeRecord.from_json(record.to_dict()).to_json() == written


def test_a_version_1_record_gets_its_history_and_the_legacy_modes():
    old = {k: v for k, v in LOGGED.items() if k not in ("history", "pass2_context", "truncate_scope")}
    record = ProbeRecord.from_json({**old, "record_version": 1})
    assert record.history == "a b" and (record.pass2_context, record.truncate_scope) == ("template", "final_answer")


def test_a_verdict_needs_one_of_the_two_statuses():
    assert Verdict.from_dict(VERDICT).status == JUDGED and Verdict.from_dict(UNJUDGED_VERDICT).status == UNJUDGED
    with pytest.raises(ValueError, match="needs a status"):
        Verdict.from_dict({"label": "other", "genuine": True})
    with pytest.raises(ValueError, match="'maybe' is not one of"):
        Verdict.from_dict({**VERDICT, "status": "maybe"})
    with pytest.raises(ValueError, match="needs a status"):
        ProbeRecord.from_json({**LOGGED, "verdict": {"label": "other"}})


def test_an_older_unjudged_verdict_gets_its_reason_code_from_its_reason():
    old = {k: v for k, v in UNJUDGED_VERDICT.items() if k != "reason_code"}
    assert Verdict.from_dict({**old, "reason": "3 attempts; last: HTTP 503"}).reason_code == "http_5xx"


def test_a_label_row_without_status_is_a_judged_verdict():
    row = {"item_id": "abc", "label": "meta_planning", "genuine": False, "annotator": "ann"}
    verdict = Verdict.from_label_row(row)
    assert verdict is not None and verdict.judged and (verdict.label, verdict.genuine) == ("meta_planning", False)
    assert verdict.prompt == [] and verdict.judge_model == ""
    assert Verdict.from_label_row({**row, "status": "skipped"}) is None
    unjudged = Verdict.from_label_row({**row, "status": "unjudged"})
    assert unjudged is not None and not unjudged.judged


def test_the_old_import_paths_name_the_same_classes():
    from uta_tasks.judge.records import JUDGED as JUDGE_JUDGED
    from uta_tasks.judge.records import Verdict as JudgeVerdict
    from uta_tasks.probe.records import ProbeRecord as ProbeProbeRecord
    from uta_tasks.probe.records import ProbeSpec as ProbeProbeSpec
    from uta_tasks.schema.probe import ProbeSpec

    assert ProbeProbeRecord is ProbeRecord and ProbeProbeSpec is ProbeSpec
    assert JudgeVerdict is Verdict and JUDGE_JUDGED == JUDGED
