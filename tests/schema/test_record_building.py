"""Records are built as values: the judge bridge pairs a record's items with their verdicts
and returns a new record, writing the same JSON as the hook logged before."""

from __future__ import annotations

import json

from test_schema_records import LOGGED, UNJUDGED_VERDICT, VERDICT

from uta_tasks.judge.records import ItemUsage
from uta_tasks.probe.judging import RecordItems, items
from uta_tasks.schema.probe import ProbeRecord
from uta_tasks.schema.verdict import Verdict


def test_a_records_verdicts_and_usage_are_built_into_a_new_record():
    logged = {**LOGGED, "reference_user_turn": "real turn"}
    record = ProbeRecord.from_json(logged)
    bare = ProbeRecord.from_json({**logged, "verdict": None, "verdict_ref": None, "verdict_samples": [],
                                  "judge_usage": None})
    found = RecordItems.of(bare)
    kinds = [kind for kind, _ in found.pairs()]
    assert kinds == ["verdict", "verdict_samples#1", "verdict_ref", "verdict_reference"] == [k for k, _ in items(bare)]
    assert [item.user_turn for _, item in found.pairs()] == ["x", "z", "y", "real turn"]

    judged, unjudged = Verdict.from_dict(VERDICT), Verdict.from_dict(UNJUDGED_VERDICT)
    sample = Verdict.from_dict({**VERDICT, "genuine": False, "label": "previous_turn_restate"})
    usage = [ItemUsage(calls=1, input_tokens=4, output_tokens=2), ItemUsage(cache_hit=True),
             ItemUsage(calls=1, input_tokens=6, output_tokens=3), ItemUsage(cache_hit=True, duplicate_of=0)]
    built = found.judged(bare, [judged, sample, unjudged, judged], usage)

    assert bare.verdict is None and bare.judge_usage is None  # the record it came from is left as it was
    assert (built.verdict, built.verdict_ref, built.verdict_reference) == (judged, unjudged, judged)
    assert built.verdict is not judged  # each slot holds its own copy
    assert built.verdict_samples == [judged, sample]
    assert built.judge_usage == {"calls": 2, "cache_hits": 1, "input_tokens": 10, "output_tokens": 5}
    expected = {**logged, "verdict_reference": VERDICT, "verdict_samples": [VERDICT, sample.to_dict()],
                "judge_usage": built.judge_usage}
    assert built.to_dict() == expected
    assert ProbeRecord.from_json(json.loads(built.to_json())) == built  # written each text once, read back whole
    assert list(built.to_dict()) == list(record.to_dict())  # same keys, same order
