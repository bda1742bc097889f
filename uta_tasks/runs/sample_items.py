"""The judge items of saved probe records, built exactly as the live judge built them.

:func:`record_items` reuses :func:`uta_tasks.probe.judging.items` on the decoded
:class:`~uta_tasks.schema.probe.ProbeRecord` (a version-1 record gets its ``history``
rebuilt by ``ProbeRecord.from_json``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from uta_tasks.judge import JudgeItem
from uta_tasks.probe import judging
from uta_tasks.schema.probe import VERDICT_SLOTS, ProbeRecord
from uta_tasks.schema.verdict import Verdict

from .sample_files import SamplesFile, find_samples, read_records

ITEM_KINDS: tuple[str, ...] = VERDICT_SLOTS


@dataclass(frozen=True)
class SampleItem:
    """One judge item found in saved samples.

    Attributes:
        item_id: ``item.fingerprint()``, the id every verdict and annotation carries.
        item: The context and user turn the judge saw.
        kind: Record field of its verdict: ``verdict`` (u after a'), ``verdict_ref``
            (u_ref after the unperturbed a) or ``verdict_reference`` (held-out real turn).
        task: Task name.
        benchmark: Benchmark of the task.
        perturbation: Perturbation of the task.
        model: Model under test.
        verdict: The stored verdict, or None (``--predict_only``, ``judge: none``).
        source: The samples file.
        doc_id: lm-eval doc id.
        repeat: Index among the doc's repeats.
    """

    item_id: str
    item: JudgeItem
    kind: str
    task: str
    benchmark: str
    perturbation: str
    model: str
    verdict: Verdict | None
    source: SamplesFile
    doc_id: int
    repeat: int


def record_items(record: ProbeRecord) -> list[tuple[str, JudgeItem]]:
    """``(kind, item)`` pairs of one saved record, as :func:`uta_tasks.probe.judging.judge_records` built them.

    Args:
        record: A probe record read from a samples file.
    """
    return judging.items(record)


def sample_items(paths: Sequence[str | Path], kinds: Sequence[str] = ITEM_KINDS) -> list[SampleItem]:
    """Every judge item of the saved samples under ``paths`` (duplicates kept, file order).

    Args:
        paths: lm-eval output folders or samples files.
        kinds: Which verdict fields to include (subset of :data:`ITEM_KINDS`).

    Raises:
        ValueError: An unknown kind, or a record without the fields of a uta probe record.
    """
    unknown = sorted(set(kinds) - set(ITEM_KINDS))
    if unknown:
        raise ValueError(f"unknown item kind(s) {unknown}: use some of {list(ITEM_KINDS)}")
    found: list[SampleItem] = []
    for samples in find_samples(paths):
        for doc_id, repeat, record in read_records(samples):
            try:
                pairs = record_items(record)
            except (KeyError, TypeError) as exc:
                raise ValueError(
                    f"{samples.path} doc {doc_id}: record lacks {exc} of a uta probe record; "
                    "was it written by uta-tasks?"
                ) from None
            for kind, item in pairs:
                if kind not in kinds:
                    continue
                found.append(
                    SampleItem(
                        item_id=item.fingerprint(),
                        item=item,
                        kind=kind,
                        task=record.task,
                        benchmark=record.benchmark,
                        perturbation=record.perturbation,
                        model=samples.model,
                        verdict=record.verdicts()[kind],
                        source=samples,
                        doc_id=doc_id,
                        repeat=repeat,
                    )
                )
    return found
