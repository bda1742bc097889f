"""HealthBench conversations (Arora et al., 2025) in the held-out setting.

Default source: OpenAI's simple-evals file, the one its ``healthbench_eval.py`` reads
(5,000 conversations; each record has "prompt_id" and "prompt", the messages, plus
rubrics that are not used here):
https://openaipublic.blob.core.windows.net/simple-evals/healthbench/2025-05-07-06-14-12_oss_eval.jsonl

Without network pass a local copy with ``healthbench_data_files`` (a path or another
URL, e.g. the "hard" or "consensus" files), or a Hub mirror with the same schema with
``healthbench_dataset_path``. Each conversation is cut as described in
:mod:`uta_tasks.datasets.heldout`; conversations that are a single user message
have nothing to cut and are skipped. The paper evaluates 1,470 HealthBench
conversations; the load logs N, the number of documents after the cut, and warns when
it is not 1,470.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .heldout import benchmark, build_docs, doc_to_messages, given_answer, reference_user_turn
from .sources import DataSource, load_source, report_size

if TYPE_CHECKING:
    import datasets

URL = "https://openaipublic.blob.core.windows.net/simple-evals/healthbench/2025-05-07-06-14-12_oss_eval.jsonl"
SOURCE = DataSource(benchmark="healthbench", hub_split="test", url=URL)
PAPER_SIZE = 1470

__all__ = ["BENCHMARK", "doc_to_messages", "given_answer", "load", "reference_user_turn"]


def load(**metadata: Any) -> datasets.DatasetDict:
    """lm-eval ``custom_dataset``: HealthBench conversations cut after an assistant turn.

    Args:
        metadata: task metadata; reads ``healthbench_data_files``, ``healthbench_dataset_path``,
            ``data_hub_timeout``.
    """
    import datasets

    records = load_source(SOURCE, metadata)
    pairs = ((r.get("prompt_id") or n, r["prompt"]) for n, r in enumerate(records))
    docs = build_docs("healthbench", pairs)
    report_size("healthbench", len(docs), PAPER_SIZE, f"{len(records)} conversations cut after an assistant turn")
    return datasets.DatasetDict({"test": docs})


BENCHMARK = benchmark("healthbench", load, SOURCE, PAPER_SIZE)
