"""Bridge from probe records to the judge: which user turns are judged, in what context.

Per record, up to three items, all sent in ONE judge run per distinct judge setting
(identical items across tasks are judged once by :func:`uta_tasks.judge.judge_all`):

* ``verdict`` - u after the assistant turn the model actually saw (a');
* ``verdict_ref`` - perturbed tasks: u_ref after the unperturbed history;
* ``verdict_reference`` - held-out conversations: the real next user turn (human ceiling);
* ``verdict_samples`` - ``user_samples > 1``: the 2nd..k-th user turns after a' (the first is
  ``verdict``); identical turns are judged once.

The judge sees answers with reasoning removed. A spec whose ``judge`` is None (judge off,
or ``--predict_only``) is not judged: its verdicts stay None.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import replace
from typing import TYPE_CHECKING, cast

from uta_tasks.probe import reasoning
from uta_tasks.schema.probe import VERDICT, VERDICT_REF, VERDICT_REFERENCE, ProbeRecord, ProbeSpec, VerdictSlot

log = logging.getLogger(__name__)
# Slot name of the j-th extra user sample (user_samples > 1): "verdict_samples#j".
SAMPLE_SLOT = "verdict_samples#"

if TYPE_CHECKING:
    from uta_tasks.judge import JudgeItem, JudgeSettings


def settings_of(spec: ProbeSpec) -> JudgeSettings | None:
    """The judge settings a spec carries (parsed once by its task, never again here), or
    None when the judge is off.

    Args:
        spec: a request spec.

    Raises:
        TypeError: the spec carries judge settings of another type.
    """
    from uta_tasks.judge import JudgeSettings

    if spec.judge is None:
        return None
    if not isinstance(spec.judge, JudgeSettings):
        raise TypeError(f"{spec.task}: the spec's judge is a {type(spec.judge).__name__}, not JudgeSettings "
                        "(build it with JudgeSettings.from_metadata)")
    return spec.judge


def preflight_all(specs: list[ProbeSpec]) -> None:
    """Check every distinct judge setting of the run before any generation.

    Args:
        specs: request specs of the run.
    """
    from uta_tasks.judge import preflight

    for settings in dict.fromkeys(s for s in map(settings_of, specs) if s is not None):
        preflight(settings)


def context(record: ProbeRecord, assistant_turn: str) -> tuple[tuple[str, str], ...]:
    """The conversation the judge reads: the chat messages, then the assistant turn with
    its reasoning removed.

    Args:
        record: the probe record.
        assistant_turn: a' or the unperturbed history.
    """
    turns = [(m["role"], str(m["content"])) for m in record.messages]
    split = reasoning.split(assistant_turn)
    # A turn cut inside its reasoning (truncate_scope: response) has no final answer: the
    # judge reads the reasoning that is left, which is what the model saw end abruptly.
    shown = split.reasoning.replace("<think>", "", 1).strip() if split.unclosed else split.final
    return (*turns, ("assistant", shown))


def items(record: ProbeRecord) -> list[tuple[str, JudgeItem]]:
    """The user turns of a record to judge, by the record field their verdict goes to.

    Args:
        record: the probe record (u and u_ref filled in).
    """
    from uta_tasks.judge import JudgeItem

    shown = context(record, record.a_prime)
    out = [(VERDICT, JudgeItem(shown, record.u))]
    out += [(f"{SAMPLE_SLOT}{j}", JudgeItem(shown, u)) for j, u in enumerate(record.u_samples[1:], start=1)]
    if record.perturbed:
        out.append((VERDICT_REF, JudgeItem(context(record, record.history), record.u_ref)))
    if record.reference_user_turn is not None:
        out.append((VERDICT_REFERENCE, JudgeItem(context(record, record.history), record.reference_user_turn)))
    return out


def judge_records(records: list[ProbeRecord], specs: list[ProbeSpec | None]) -> None:
    """Attach verdicts and per-record judge usage to ``records`` in place.

    Args:
        records: probe records (with u, u_ref filled in).
        specs: the matching request specs (their ``judge`` settings decide).
    """
    from uta_tasks.judge import enforce_unjudged_share, format_summary, judge_all

    groups: dict[JudgeSettings, list[int]] = defaultdict(list)
    for i, spec in enumerate(specs):
        settings = None if spec is None else settings_of(spec)
        if settings is not None:
            groups[settings].append(i)
    for settings, indices in groups.items():
        slots: list[tuple[int, str]] = []
        batch = []
        for i in indices:
            for slot, item in items(records[i]):
                slots.append((i, slot))
                batch.append(item)
        run = judge_all(batch, settings)
        log.info("judge run: %s", format_summary(run.summary()))
        for i in indices:
            records[i].judge_usage = {"calls": 0, "cache_hits": 0, "input_tokens": 0, "output_tokens": 0}
        for i in indices:
            records[i].verdict_samples = []
        for (i, slot), verdict, usage in zip(slots, run.verdicts, run.per_item_usage, strict=True):
            if slot.startswith(SAMPLE_SLOT):
                records[i].verdict_samples.append(replace(verdict))
            else:
                records[i].put_verdict(cast(VerdictSlot, slot), replace(verdict))
            totals = records[i].judge_usage
            assert totals is not None
            totals["calls"] += usage.calls
            totals["cache_hits"] += int(usage.cache_hit and usage.duplicate_of is None)
            totals["input_tokens"] += usage.input_tokens
            totals["output_tokens"] += usage.output_tokens
        for i in indices:
            if records[i].u_samples:
                records[i].verdict_samples = [records[i].verdict, *records[i].verdict_samples]
        # Every verdict is in the cache by now; a run that judged too little fails here.
        enforce_unjudged_share(run, settings)
