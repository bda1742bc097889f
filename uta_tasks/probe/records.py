"""What one uta request carries and what it returns: :class:`ProbeSpec` and
:class:`ProbeRecord`, defined in :mod:`uta_tasks.schema.probe` and importable from here
(``uta_tasks.probe.records.ProbeRecord.from_json`` keeps working)."""

from __future__ import annotations

from uta_tasks.schema.probe import (
    DEFAULT_USER_MAX_GEN_TOKS,
    LEGACY_DEFAULTS,
    RECORD_VERSION,
    REQUEST_TYPE,
    ProbeRecord,
    ProbeSpec,
    question_text,
)

__all__ = [
    "DEFAULT_USER_MAX_GEN_TOKS", "LEGACY_DEFAULTS", "RECORD_VERSION", "REQUEST_TYPE", "ProbeRecord", "ProbeSpec",
    "question_text",
]
