"""Any set of real conversations in the held-out setting.

Setting ``conversations_data_files`` (required): a JSONL file, one JSON object per
line::

    {"id": "optional-id", "messages": [{"role": "user", "content": "..."},
                                       {"role": "assistant", "content": "..."},
                                       {"role": "user", "content": "..."}]}

"messages" is required: a list of {"role", "content"} with roles "system", "user",
"assistant" (other roles are kept in the context but are never cut points) and
string contents. "id" is optional (string or number); without it the conversation is
named by its 0-based line number among the records. Each conversation is cut as
described in :mod:`uta_tasks.datasets.heldout`. A .json/.parquet file with the
same columns works too.

Setting ``conversations_probe_turn`` (default ``last``): which user turn the model writes.
``last``: one document per conversation, at its last assistant turn that a user answered;
an integer k >= 2: the document where the real next user turn is the k-th user turn
(conversations shorter than that are skipped); ``every``: one document per such turn, so
the rate can be read against the turn (the report draws it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import BenchmarkDataError
from .heldout import (
    PROBE_TURN_EVERY,
    PROBE_TURN_LAST,
    ProbeTurn,
    benchmark,
    build_docs,
    doc_to_messages,
    given_answer,
    reference_user_turn,
)
from .sources import DataSource, load_source

if TYPE_CHECKING:
    import datasets

SOURCE = DataSource(benchmark="conversations")
PROBE_TURN_KEY = "conversations_probe_turn"


def probe_turn(metadata: dict[str, Any]) -> ProbeTurn:
    """The ``conversations_probe_turn`` setting: ``last``, ``every`` or an int >= 2.

    Args:
        metadata: task metadata.
    """
    value = metadata.get(PROBE_TURN_KEY, PROBE_TURN_LAST)
    if value in (PROBE_TURN_LAST, PROBE_TURN_EVERY):
        return str(value)
    try:
        turn = int(value)
    except (TypeError, ValueError):
        turn = 0
    if turn < 2 or isinstance(value, bool) or str(turn) != str(value).strip():
        raise BenchmarkDataError(
            f"conversations: {PROBE_TURN_KEY}={value!r} is not {PROBE_TURN_LAST!r}, {PROBE_TURN_EVERY!r} or a "
            "user turn number >= 2 (the first user turn is the question; the model writes a later one)."
        )
    return turn

__all__ = ["BENCHMARK", "doc_to_messages", "given_answer", "load", "reference_user_turn"]


def load(**metadata: Any) -> datasets.DatasetDict:
    """lm-eval ``custom_dataset``: the conversations of ``conversations_data_files``.

    Args:
        metadata: task metadata; reads ``conversations_data_files`` and ``conversations_probe_turn``.
    """
    import datasets

    turn = probe_turn(metadata)
    records = load_source(SOURCE, metadata)
    if "messages" not in records.column_names:
        raise BenchmarkDataError(
            f"conversations: {metadata.get(SOURCE.files_key)!r} has no \"messages\" field; "
            f"each line must be {{\"id\": ..., \"messages\": [{{\"role\": ..., \"content\": ...}}, ...]}}."
        )
    ids = records["id"] if "id" in records.column_names else [None] * len(records)
    pairs = ((n if i is None else i, r["messages"]) for n, (i, r) in enumerate(zip(ids, records, strict=True)))
    return datasets.DatasetDict({"test": build_docs("conversations", pairs, turn)})


BENCHMARK = benchmark("conversations", load, SOURCE)
