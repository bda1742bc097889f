"""The values of a logged probe record checked before any reader uses them.

- an unknown ``benchmark`` (neither a packaged one nor a wrapped lm-eval task) or
  ``perturbation`` is refused: the metrics of a task depend on both, and no rate can be
  measured for one this version does not know (a :class:`ValueError` naming the file and
  line, which every command reports with exit 2);
- a verdict marked judged whose label is not one of the eight
  (:data:`uta_tasks.schema.labels.LABELS`), or whose ``genuine`` is not a boolean, is read as
  *unjudged* (reason code ``invalid_reply``, what the live judge makes of such a reply), with a
  warning naming the file, line and slot: it is left out of every rate, and counted by
  ``unjudged`` and ``unjudged_share``, never counted as judged. A known label whose ``genuine``
  the label does not allow stays as logged: the quickstart counts such self-contradicting
  verdicts and builds no genuine rate on them (:mod:`uta_tasks.apps.quickstart.verdict_checks`).
"""

from __future__ import annotations

import logging

from uta_tasks.datasets import BENCHMARKS
from uta_tasks.probe import perturbations
from uta_tasks.schema.labels import LABELS, pairing_error
from uta_tasks.schema.probe import VERDICT_SLOTS, ProbeRecord
from uta_tasks.schema.reasons import INVALID_REPLY
from uta_tasks.schema.verdict import Verdict
from uta_tasks.wrap import is_wrapped

log = logging.getLogger(__name__)


def checked_record(record: ProbeRecord, where: str) -> ProbeRecord:
    """``record`` with its benchmark and perturbation checked and every invalid judged verdict
    read as unjudged (in place).

    Args:
        record: a decoded probe record.
        where: ``path:line`` for messages.

    Raises:
        ValueError: an unknown benchmark or perturbation.
    """
    if record.benchmark not in BENCHMARKS and not is_wrapped(record.benchmark):
        raise ValueError(f"benchmark {record.benchmark!r} is not one this version knows ({', '.join(BENCHMARKS)}, "
                         "or a wrapped lm-eval task)")
    if record.perturbation not in perturbations.names():
        raise ValueError(f"perturbation {record.perturbation!r} is not one of {list(perturbations.names())}")
    for slot in VERDICT_SLOTS:
        setattr(record, slot, _valid(getattr(record, slot), f"{where} {slot}"))
    record.verdict_samples = [_valid(v, f"{where} verdict_samples[{i}]") for i, v in enumerate(record.verdict_samples)]
    return record


def _valid(verdict: Verdict | None, where: str) -> Verdict | None:
    if verdict is None or not verdict.judged or (verdict.label in LABELS and isinstance(verdict.genuine, bool)):
        return verdict
    error = pairing_error(verdict.label, verdict.genuine)
    if error is None:
        return verdict
    log.warning("%s: a judged verdict that is not valid (%s): read as unjudged", where, error)
    return Verdict.unjudged_because(
        f"the logged verdict is not valid ({error})", INVALID_REPLY, prompt=verdict.prompt,
        judge_model=verdict.judge_model, prompt_version=verdict.prompt_version, prompt_sha=verdict.prompt_sha,
        raw_reply=verdict.raw_reply, attempts=verdict.attempts, reply_model=verdict.reply_model,
        system_fingerprint=verdict.system_fingerprint)
