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

import json
import logging
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from uta_tasks.probe import reasoning
from uta_tasks.schema.probe import VERDICT, VERDICT_REF, VERDICT_REFERENCE, ProbeRecord, ProbeSpec
from uta_tasks.schema.verdict import Verdict

log = logging.getLogger(__name__)
# Slot name of the j-th extra user sample (user_samples > 1): "verdict_samples#j".
SAMPLE_SLOT = "verdict_samples#"

if TYPE_CHECKING:
    from uta_tasks.judge import JudgeItem, JudgeSettings
    from uta_tasks.judge.records import ItemUsage


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


def preflight_all(specs: list[ProbeSpec]) -> Callable[[], None]:
    """Check every distinct judge setting of the run before any generation; a judge server
    started beside lm_eval (``judge_start_wait``) is waited for beside generation
    (:func:`~uta_tasks.judge.start_preflight`).

    Args:
        specs: request specs of the run.

    Returns:
        What to call before judging: it waits for those servers and raises their failure.
    """
    from uta_tasks.judge import start_preflight

    pending = [start_preflight(settings)
               for settings in dict.fromkeys(s for s in map(settings_of, specs) if s is not None)]

    def wait() -> None:
        for check in pending:
            check.wait()

    return wait


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


@dataclass(frozen=True)
class RecordItems:
    """The user turns of one record to judge, by where their verdict goes.

    Attributes:
        u: u after a' (its verdict is ``verdict``).
        samples: ``user_samples > 1``: the 2nd..k-th user turns after a' (``verdict_samples``).
        ref: perturbed tasks: u_ref after the unperturbed history (``verdict_ref``).
        reference: held-out: the real next user turn (``verdict_reference``).
    """

    u: JudgeItem
    samples: tuple[JudgeItem, ...] = ()
    ref: JudgeItem | None = None
    reference: JudgeItem | None = None

    @classmethod
    def of(cls, record: ProbeRecord) -> RecordItems:
        """The items of a record (u and u_ref filled in).

        Args:
            record: the probe record.
        """
        from uta_tasks.judge import JudgeItem

        shown = context(record, record.a_prime)
        found = cls(JudgeItem(shown, record.u), tuple(JudgeItem(shown, u) for u in record.u_samples[1:]))
        if not record.perturbed and record.reference_user_turn is None:
            return found
        history = context(record, record.history)
        return replace(
            found,
            ref=JudgeItem(history, record.u_ref) if record.perturbed else None,
            reference=None if record.reference_user_turn is None else JudgeItem(history, record.reference_user_turn),
        )

    def pairs(self) -> list[tuple[str, JudgeItem]]:
        """``(kind, item)`` in judging order: the record field its verdict goes to (the j-th
        extra sample: ``verdict_samples#j``)."""
        out = [(VERDICT, self.u), *((f"{SAMPLE_SLOT}{j}", u) for j, u in enumerate(self.samples, start=1))]
        out += [(VERDICT_REF, self.ref)] if self.ref is not None else []
        out += [(VERDICT_REFERENCE, self.reference)] if self.reference is not None else []
        return out

    def judged(self, record: ProbeRecord, verdicts: list[Verdict], usage: list[ItemUsage]) -> ProbeRecord:
        """The record with the verdicts of these items (in :meth:`pairs` order) and their usage;
        each verdict's prompt by reference when its template rebuilds it
        (:func:`uta_tasks.judge.prompt_ref.by_reference`).

        Args:
            record: the record the items came from.
            verdicts: one per item, in :meth:`pairs` order.
            usage: one per item, in the same order.
        """
        from uta_tasks.judge.prompt_ref import by_reference

        given = iter(replace(by_reference(v, item)) for v, (_, item) in zip(verdicts, self.pairs(), strict=True))
        verdict = next(given)
        samples = [next(given) for _ in self.samples]
        ref = next(given) if self.ref is not None else None
        reference = next(given) if self.reference is not None else None
        return replace(
            record, verdict=verdict, verdict_ref=ref, verdict_reference=reference,
            verdict_samples=[verdict, *samples] if record.u_samples else [],
            judge_usage={
                "calls": sum(u.calls for u in usage),
                "cache_hits": sum(int(u.cache_hit and u.duplicate_of is None) for u in usage),
                "input_tokens": sum(u.input_tokens for u in usage),
                "output_tokens": sum(u.output_tokens for u in usage),
            },
        )


def items(record: ProbeRecord) -> list[tuple[str, JudgeItem]]:
    """The user turns of a record to judge, by the record field their verdict goes to.

    Args:
        record: the probe record (u and u_ref filled in).
    """
    return RecordItems.of(record).pairs()


def judge_records(records: list[ProbeRecord], specs: list[ProbeSpec | None]) -> list[ProbeRecord]:
    """The records with their verdicts and per-record judge usage (new values; a record
    whose spec is None or carries no judge comes back as it is).

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
    out = list(records)
    for settings, indices in groups.items():
        per_record = [RecordItems.of(records[i]) for i in indices]
        batch = [item for found in per_record for _, item in found.pairs()]
        run = judge_all(batch, settings)
        log.info("judge run: %s", format_summary(run.summary()))
        start = 0
        for i, found in zip(indices, per_record, strict=True):
            end = start + len(found.pairs())
            out[i] = found.judged(records[i], run.verdicts[start:end], run.per_item_usage[start:end])
            start = end
        # Every verdict is in the cache by now; a run that judged too little fails here.
        enforce_unjudged_share(run, settings)
    return out


def judge_decoder() -> Callable[[Mapping[str, Any]], JudgeSettings]:
    """Rebuilds the judge settings the specs log (each task parsed them once; no environment
    is read again), one object per distinct setting of the run."""
    from uta_tasks.judge import JudgeSettings

    seen: dict[str, JudgeSettings] = {}

    def decode(raw: Mapping[str, Any]) -> JudgeSettings:
        key = json.dumps(raw, sort_keys=True, default=str)
        if key not in seen:
            seen[key] = JudgeSettings.from_dict(raw)
        return seen[key]

    return decode
