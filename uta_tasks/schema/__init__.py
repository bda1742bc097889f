"""The shared vocabulary of uta-tasks: what a probe request carries and returns, what the
judge decides, and the names a run writes. It sits at the bottom of the layers and imports
nothing else from ``uta_tasks``.

- :mod:`.probe`: :class:`ProbeSpec` (one request) and :class:`ProbeRecord` (what it returns;
  decode a logged sample with ``ProbeRecord.from_json``).
- :mod:`.verdict`: :class:`Verdict` and its status (:data:`JUDGED`, :data:`UNJUDGED`).
- :mod:`.labels`: the paper's eight labels and which ``genuine`` decision each allows.
- :mod:`.reasons`: why a verdict is unjudged, as a short code.
- :mod:`.output`: lm-eval's file names, the metric names, the task-config keys.
"""

from __future__ import annotations

from uta_tasks.schema.labels import FAILURE_LABELS, FREE_LABELS, GENUINE_LABELS, LABELS
from uta_tasks.schema.probe import VERDICT_SLOTS, ProbeRecord, ProbeSpec
from uta_tasks.schema.verdict import JUDGED, UNJUDGED, Verdict, VerdictStatus

__all__ = [
    "FAILURE_LABELS", "FREE_LABELS", "GENUINE_LABELS", "JUDGED", "LABELS", "UNJUDGED", "VERDICT_SLOTS",
    "ProbeRecord", "ProbeSpec", "Verdict", "VerdictStatus",
]
