"""Record version 4 writes each text once and reads every text back exactly
(:mod:`uta_tasks.schema.record_texts`), whatever the perturbation and pass-2 mode."""

from __future__ import annotations

import json

import pytest
from test_schema_records import LOGGED, VERDICT

from uta_tasks.schema.probe import ProbeRecord
from uta_tasks.schema.record_texts import compact, expand

Q = "How many muffins does the baker have left at the end of the day?"
A = "<think>\n24 + 18 = 42, and 42 - 30 = 12.\n</think>\n\nShe has 12 muffins left over at the end of the day."
FINAL = "She has 12 muffins left over at the end of the day."
P1 = f"<|im_start|>user\n{Q}<|im_end|>\n<|im_start|>assistant\n"
JOIN = {"marker": "<|im_end|>\n", "header": "<|im_start|>user\n"}
CUE = "Are you sure about that answer?"


def _record(**fields) -> ProbeRecord:
    base = {**LOGGED, "q": Q, "messages": [{"role": "user", "content": Q}], "a": A, "answer": FINAL,
            "history": A, "pass1_prompt": P1, "join": JOIN, "record_version": 4}
    return ProbeRecord.from_json({**base, **fields})


CASES = {
    "trace, trunc": _record(a_prime=A[:40], pass2_prompt=P1 + A[:40] + "<|im_end|>\n<|im_start|>user\n",
                            pass2_ref_prompt=P1 + A + "<|im_end|>\n<|im_start|>user\n"),
    "trace, question": _record(perturbation="question", cue=CUE, a_prime=A + "\n\n" + CUE,
                               pass2_prompt=P1 + A + "\n\n" + CUE + "<|im_end|>\n<|im_start|>user\n"),
    "template, final answer": _record(pass2_context="template", history=FINAL, a_prime=FINAL[:30], join=None,
                                      pass2_prompt=f"<|user|>{Q}<|assistant|>{FINAL[:30]}<|user|>",
                                      pass2_ref_prompt=f"<|user|>{Q}<|assistant|>{FINAL}<|user|>"),
    "repeated user samples": _record(u="Why 12?", u_samples=["Why 12?", "Why 12?", "Thanks."],
                                     verdict_samples=[VERDICT, VERDICT, {**VERDICT, "label": "other"}]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_text_is_written_once_and_read_back_exactly(name):
    record = CASES[name]
    written = record.to_json()
    assert ProbeRecord.from_json(written) == record
    whole = json.dumps(record.to_dict(), ensure_ascii=False)
    assert written.count(FINAL[:30]) == 1 < whole.count(FINAL[:30])  # the final answer once
    assert len(written) < len(whole) * 2 / 3 and '"q":' not in written  # q: the last user message


def test_a_text_that_repeats_a_source_many_times_reads_back():
    record = _record(u=Q * 5000, u_ref=Q * 4999)
    written = record.to_json()
    assert ProbeRecord.from_json(written) == record and len(written) < 5000 * 20


@pytest.mark.parametrize(("change", "message"), [
    ({"a_prime": [["nowhere"]]}, "a_prime: piece \\['nowhere'\\] names no earlier text"),
    ({"pass2_prompt": [["pass2_ref_prompt"]]}, "pass2_prompt: piece \\['pass2_ref_prompt'\\] names no earlier"),
    ({"verdict_samples": [5]}, "verdict_samples\\[0\\] = 5 names no earlier verdict"),
])
def test_a_damaged_reference_is_refused_naming_the_field(change, message):
    data = json.loads(CASES["trace, trunc"].to_json())
    with pytest.raises(ValueError, match=message):
        ProbeRecord.from_json({**data, **change})


def test_compact_and_expand_are_inverse_on_a_version_3_dict():
    data = CASES["trace, question"].to_dict()
    assert expand(compact(data)) == data and compact(data) != data
