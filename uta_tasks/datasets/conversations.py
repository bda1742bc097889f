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
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import BenchmarkDataError
from .heldout import benchmark, build_docs, doc_to_messages, given_answer, reference_user_turn
from .sources import DataSource, load_source

if TYPE_CHECKING:
    import datasets

SOURCE = DataSource(benchmark="conversations")

__all__ = ["BENCHMARK", "doc_to_messages", "given_answer", "load", "reference_user_turn"]


def load(**metadata: Any) -> datasets.DatasetDict:
    """lm-eval ``custom_dataset``: the conversations of ``conversations_data_files``.

    Args:
        metadata: task metadata; reads ``conversations_data_files``.
    """
    import datasets

    records = load_source(SOURCE, metadata)
    if "messages" not in records.column_names:
        raise BenchmarkDataError(
            f"conversations: {metadata.get(SOURCE.files_key)!r} has no \"messages\" field; "
            f"each line must be {{\"id\": ..., \"messages\": [{{\"role\": ..., \"content\": ...}}, ...]}}."
        )
    ids = records["id"] if "id" in records.column_names else [None] * len(records)
    pairs = ((n if i is None else i, r["messages"]) for n, (i, r) in enumerate(zip(ids, records, strict=True)))
    return datasets.DatasetDict({"test": build_docs("conversations", pairs)})


BENCHMARK = benchmark("conversations", load)
