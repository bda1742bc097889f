"""Read lm-eval output folders written with ``--log_samples``: the probe records of every
uta task, the model that produced them, and the judge items they hold (with stable ids).

Shared by the batch judge, the annotation page and the agreement statistics, so that an
item has one id everywhere: :meth:`uta_tasks.judge.JudgeItem.fingerprint` of the item
the live judge saw (see :mod:`.items`).
"""

from __future__ import annotations

from .files import SamplesFile, find_samples, read_records
from .items import ITEM_KINDS, SampleItem, record_items, sample_items

__all__ = ["ITEM_KINDS", "SampleItem", "SamplesFile", "find_samples", "read_records", "record_items", "sample_items"]
