"""The judge prompt of each verdict of a probe record, stored (record version 3) or rebuilt
from its template and the record's texts (version 4, :mod:`uta_tasks.judge.prompt_ref`): the
same messages either way."""

from __future__ import annotations

from uta_tasks.judge.prompt_ref import Messages, verdict_prompt
from uta_tasks.probe.judging import SAMPLE_SLOT, RecordItems
from uta_tasks.schema.probe import ProbeRecord
from uta_tasks.schema.verdict import Verdict


def slot_verdict(record: ProbeRecord, slot: str) -> Verdict | None:
    """The verdict of a slot of :meth:`RecordItems.pairs` (``verdict_samples#j``: the j-th sample).

    Args:
        record: the record.
        slot: a verdict field name or ``verdict_samples#j``.
    """
    if slot.startswith(SAMPLE_SLOT):
        j = int(slot[len(SAMPLE_SLOT):])
        return record.verdict_samples[j] if j < len(record.verdict_samples) else None
    return record.verdicts()[slot]


def record_prompts(record: ProbeRecord) -> dict[str, Messages]:
    """The judge prompt of each judged slot of a record, by slot (:meth:`RecordItems.pairs`).

    Args:
        record: a decoded record of any version.

    Raises:
        ValueError: a prompt stored by reference names a template set that is not installed.
    """
    out = {}
    for slot, item in RecordItems.of(record).pairs():
        verdict = slot_verdict(record, slot)
        if verdict is not None:
            out[slot] = verdict_prompt(verdict, item)
    return out
