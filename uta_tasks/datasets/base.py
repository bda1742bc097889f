"""The contract between a benchmark and the probe's tasks.

A :class:`Benchmark` bundles what the generation core needs from one data set: how to
load it (as an lm-eval ``custom_dataset``), the chat messages that end with the user
turn ``q``, and how the benchmark's own reference scorer grades the pass-1 answer.
Held-out benchmarks (real conversations) instead give the real assistant turn and the
real next user turn, and have no accuracy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from uta_tasks.metrics.aggregate import mean as mean  # every benchmark's accuracy aggregation
from uta_tasks.metrics.values import is_correct

if TYPE_CHECKING:
    import datasets

    from .sources import DataSource

Message = dict[str, str]


@dataclass(frozen=True)
class Benchmark:
    """One benchmark as the probe uses it.

    Attributes:
        name: registry key ("gsm8k", "ifeval", "ifbench", "gpqa_main", "gpqa_diamond",
            "healthbench", "conversations").
        load: ``load(**metadata) -> DatasetDict`` with a "test" split; unknown keys are ignored.
        doc_to_messages: the conversation up to and including the user turn ``q``.
        score: ``(doc, final answer without reasoning) -> {metric: per-doc value}``.
        aggregations: metric -> aggregation over the per-doc values (empty when held-out).
        primary: metric whose per-doc truth means "answered correctly" (None when held-out).
        given_answer: held-out only, the real assistant turn (pass 1 is skipped).
        reference_user_turn: held-out only, the real next user turn.
        source: its default data origin and the paper's size (``uta-eval --plan`` reads it
            when the data cannot be loaded), or None.
        needs_nltk: its scorer needs NLTK data, downloaded when missing (``nltk_download``).
        paper_size: the documents the paper evaluated when the source's ``paper_size`` does
            not say it (HealthBench counts documents after its cut).
    """

    name: str
    load: Callable[..., datasets.DatasetDict]
    doc_to_messages: Callable[[dict], list[Message]]
    score: Callable[[dict, str], dict[str, Any]]
    aggregations: dict[str, Callable[[list], float]]
    primary: str | None
    given_answer: Callable[[dict], str] | None = None
    reference_user_turn: Callable[[dict], str] | None = None
    source: DataSource | None = None
    needs_nltk: bool = False
    paper_size: int | None = None

    @property
    def held_out(self) -> bool:
        """True when the assistant turn comes from the data, not from the model."""
        return self.given_answer is not None

    @property
    def documents_in_paper(self) -> int | None:
        """The documents the paper evaluated (:attr:`paper_size`, else the source's), or None."""
        if self.paper_size is not None:
            return self.paper_size
        return self.source.paper_size if self.source is not None else None

    @property
    def higher_is_better(self) -> dict[str, bool]:
        """lm-eval's ``higher_is_better`` for every accuracy metric (all are accuracies)."""
        return {metric: True for metric in self.aggregations}

    def is_correct(self, scores: dict[str, Any]) -> bool | None:
        """Whether a doc's pass-1 answer counts as correct, from its :attr:`score` values.

        Args:
            scores: the dict :attr:`score` returned for the doc.

        Returns:
            ``bool(scores[primary])``, or None for held-out benchmarks.
        """
        if self.primary is None:
            return None
        return is_correct(scores[self.primary])


def no_score(doc: dict, answer: str) -> dict[str, Any]:
    """Scorer of held-out benchmarks: they have no accuracy.

    Args:
        doc: the document (unused).
        answer: the assistant turn (unused).
    """
    return {}
