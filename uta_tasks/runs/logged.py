"""Where a logged sample of a uta task holds its probe records: a reader that needs only the schema,
so that what reads saved answers (:mod:`uta_tasks.saved_answers`) can read an earlier uta run's
records without the checks of :mod:`uta_tasks.runs.samples`."""

from __future__ import annotations

from typing import Any

from uta_tasks.schema import output
from uta_tasks.schema.probe import FILTERED_RECORD


def logged_records(sample: dict[str, Any]) -> Any:
    """The list a logged sample holds its probe records in (one per repeat): ``filtered_resps[0]``,
    or, where that says where each record is (:data:`~uta_tasks.schema.probe.FILTERED_RECORD`,
    record version 4), ``resps[0]``.

    Args:
        sample: one line of ``samples_<task>_<date>.jsonl``.

    Raises:
        KeyError, IndexError, TypeError: the line holds no such list.
    """
    repeats = sample[output.SAMPLE_RESPS][0]
    if isinstance(repeats, list) and repeats and \
            all(item == FILTERED_RECORD.format(repeat=i) for i, item in enumerate(repeats)):
        return sample[output.SAMPLE_RAW_RESPS][0]
    return repeats
