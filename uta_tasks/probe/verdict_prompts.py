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


def slot_prompt(record: ProbeRecord, slot: str) -> Messages | None:
    """The judge prompt of one slot of a record (None: the slot holds no verdict); a prompt the
    record stores is read, not rebuilt.

    Args:
        record: a decoded record of any version.
        slot: a verdict field name or ``verdict_samples#j``.

    Raises:
        ValueError: the prompt is stored by reference and cannot be rebuilt (its template set is
            not installed, or the record's messages are not a conversation).
    """
    verdict = slot_verdict(record, slot)
    if verdict is None or not verdict.prompt_by_ref:
        return None if verdict is None else [dict(m) for m in verdict.prompt]
    items = dict(RecordItems.of(record).pairs())
    if slot not in items:
        raise ValueError(f"{record.task}: the record judges no {slot}")
    return verdict_prompt(verdict, items[slot])
