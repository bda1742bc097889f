"""IFEval (google/IFEval, train split: 541 prompts).

``q`` is the prompt as the user turn. Accuracy is lm-eval's own ``ifeval`` scoring,
called as is: ``lm_eval.tasks.ifeval.utils.process_results(doc, [answer])`` gives the
four metrics, aggregated like lm-eval's ``ifeval.yaml`` (see
:mod:`uta_tasks.datasets.instruction_following`). The verifier needs NLTK
``punkt_tab``, downloaded when missing or found offline as described in
:mod:`uta_tasks.datasets.nltk_data`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .instruction_following import benchmark, load_prompts, verifying
from .sources import DataSource
from .verifiers import ifeval_registry, ifeval_utils

if TYPE_CHECKING:
    import datasets

SOURCE = DataSource(benchmark="ifeval", hub_id="google/IFEval", hub_split="train", paper_size=541)


def load(**metadata: Any) -> datasets.DatasetDict:
    """lm-eval ``custom_dataset``: the IFEval prompts.

    Args:
        metadata: task metadata; reads ``ifeval_data_files``, ``ifeval_dataset_path``,
            ``ifeval_unverifiable``, ``data_hub_timeout``.
    """
    return load_prompts(SOURCE, ifeval_registry(), metadata)


def score(doc: dict, answer: str) -> dict[str, Any]:
    """lm-eval's IFEval ``process_results`` on the answer.

    Args:
        doc: the IFEval record.
        answer: the final answer, reasoning removed.
    """
    with verifying("ifeval"):
        return dict(ifeval_utils().process_results(doc, [answer]))


BENCHMARK = benchmark(SOURCE, load, score)
