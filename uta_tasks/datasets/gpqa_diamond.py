"""GPQA Diamond (Idavidrein/gpqa, config "gpqa_diamond": 198 questions; gated, see
:mod:`uta_tasks.datasets.gpqa` for access and the prompt, shuffle and scoring)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .gpqa import benchmark, doc_to_messages, load_config, score

if TYPE_CHECKING:
    import datasets

CONFIG = "gpqa_diamond"

__all__ = ["BENCHMARK", "CONFIG", "doc_to_messages", "load", "score"]


def load(**metadata: Any) -> datasets.DatasetDict:
    """lm-eval ``custom_dataset``: GPQA Diamond with shuffled choices.

    Args:
        metadata: task metadata; reads ``gpqa_diamond_data_files``, ``gpqa_diamond_dataset_path``,
            ``data_hub_timeout``.
    """
    return load_config(CONFIG, metadata)


BENCHMARK = benchmark(CONFIG, load)
