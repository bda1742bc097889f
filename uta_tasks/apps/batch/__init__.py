"""Judge through the OpenAI Batch API (half price): submit, resume, collect, fall back.

Use::

    from uta_tasks.judge import JudgeSettings, judge_all
    from uta_tasks.apps.batch import BatchOptions, judge_batch

    run = judge_batch(items, settings, BatchOptions(poll_interval=60))
    run.verdicts, run.batch_ids, run.summary()
    judge_all(items, settings).calls == 0   # the live judge now finds every verdict cached

Command line: ``uta-batch OUTPUT_DIR ... --metadata '{"judge_model": "gpt-5.4-mini"}'``
(see :mod:`.cli`). The flow is described in :mod:`.flow`, the resumable state in
:mod:`.store`.
"""

from __future__ import annotations

from .flow import BatchOptions, BatchRun, judge_batch
from .remote import BatchAPIError
from .requests import MAX_BYTES, MAX_REQUESTS

__all__ = ["MAX_BYTES", "MAX_REQUESTS", "BatchAPIError", "BatchOptions", "BatchRun", "judge_batch"]
