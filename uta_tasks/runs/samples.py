"""Logged samples of a uta task and the probe records inside them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from uta_tasks.runs.jsonio import loads, read_jsonl
from uta_tasks.runs.logged import logged_records
from uta_tasks.runs.record_checks import checked_record
from uta_tasks.schema import output
from uta_tasks.schema.probe import FilteredRecord, ProbeRecord


@dataclass(frozen=True)
class DocSample:
    """One logged doc of a uta task.

    Attributes:
        doc_id: lm-eval's ``doc_id``.
        records: the probe records, one per repeat, in repeat order.
        metrics: the per-doc metric values lm-eval logged beside the sample.
        line: the whole logged line (``doc``, ``arguments``, ...), for a writer that writes it again;
            read by :func:`read_samples` with ``whole_lines=False``, without the texts that
            :attr:`records` decodes (:data:`RECORD_TEXTS`).
    """

    doc_id: int
    records: list[ProbeRecord]
    metrics: dict[str, Any]
    line: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


def decode_records(sample: dict[str, Any], where: str = "sample") -> list[ProbeRecord]:
    """The probe records of a logged sample, one per repeat, decoded with
    :meth:`ProbeRecord.from_json <uta_tasks.schema.probe.ProbeRecord.from_json>`.

    Args:
        sample: one line of ``samples_<task>_<date>.jsonl``.
        where: names the sample in error messages.
    """
    try:
        repeats = logged_records(sample)
    except (KeyError, IndexError, TypeError):
        raise ValueError(f"{where}: no {output.SAMPLE_RESPS}[0]; is this a uta task's samples file?") from None
    out = []
    if not isinstance(repeats, list):
        raise ValueError(f"{where}: {output.SAMPLE_RESPS}[0] is {type(repeats).__name__}, not a list of probe records")
    if not repeats:
        raise ValueError(f"{where}: {output.SAMPLE_RESPS}[0] is empty: lm-eval logs one probe record per repeat, "
                         "so the file is damaged (write it again: uta-eval --log_samples, or uta-rejudge)")
    for item in repeats:
        item = item.text if isinstance(item, FilteredRecord) else item  # lm-eval's samples in memory
        record = loads(item, f"{where} (a probe record)") if isinstance(item, str) else item
        if not isinstance(record, dict):
            raise ValueError(f"{where}: a probe record is {type(record).__name__}, not a JSON object")
        try:
            out.append(checked_record(ProbeRecord.from_json(record), where))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{where}: not a probe record of a uta task ({exc})") from None
    return out


# The keys of a logged line that hold the probe records' JSON (decoded into ``records``) and
# the prompts lm-eval sent: the bulk of a line, needed only to write the line again.
RECORD_TEXTS = (output.SAMPLE_RESPS, "resps", "arguments")


def iter_samples(path: Path, whole_lines: bool = True) -> Iterator[DocSample]:
    """Each logged doc of a ``samples_<task>_<date>.jsonl`` file of a uta task, in file order,
    one line decoded at a time (a reader that measures docs as they come holds none of them).

    Args:
        path: the samples file.
        whole_lines: keep each whole line in :attr:`DocSample.line` (a writer writes it
            again); False leaves out :data:`RECORD_TEXTS`, a third of the memory a run's
            samples take, for readers that measure and show them.
    """
    lines: dict[int, str] = {}  # doc_id -> the line it was logged on
    for where, sample in read_jsonl(path):
        if not isinstance(sample, dict) or not isinstance(sample.get(output.SAMPLE_DOC_ID), int) \
                or isinstance(sample[output.SAMPLE_DOC_ID], bool):
            raise ValueError(f"{where}: no integer {output.SAMPLE_DOC_ID}; is this a uta task's samples file?")
        doc_id = sample[output.SAMPLE_DOC_ID]
        if doc_id in lines:  # lm-eval logs a doc once per task: two are two runs in one file, or a damaged one
            raise ValueError(f"{where}: {output.SAMPLE_DOC_ID} {doc_id} was logged before, on line "
                             f"{lines[doc_id]}: a samples file holds each doc once (is it two runs "
                             "joined?); keep one line per doc")
        lines[doc_id] = where.rsplit(":", 1)[-1]
        names = sample.get("metrics") or []
        if not isinstance(names, list):
            raise ValueError(f"{where}: 'metrics' is {type(names).__name__}, not the list of names lm-eval writes")
        metrics = {k: sample[k] for k in names if isinstance(k, str) and k in sample}
        records = decode_records(sample, where)
        if not whole_lines:
            sample = {k: v for k, v in sample.items() if k not in RECORD_TEXTS}
        yield DocSample(sample[output.SAMPLE_DOC_ID], records, metrics, sample)


def read_samples(path: Path, whole_lines: bool = True) -> list[DocSample]:
    """Every logged doc of a ``samples_<task>_<date>.jsonl`` file of a uta task, in doc order
    (:func:`iter_samples`, sorted by ``doc_id``).

    Args:
        path: the samples file.
        whole_lines: as :func:`iter_samples`.
    """
    return sorted(iter_samples(path, whole_lines), key=lambda d: d.doc_id)
