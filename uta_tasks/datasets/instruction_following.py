"""What IFEval and IFBench share: the prompt as the user turn, loading with the refusal to
score documents whose checks cannot run here, a check run without a download, the four
metrics and their aggregations (:func:`benchmark`). Each benchmark's module adds only its
data source and its verifier.

The metrics are lm-eval's ``ifeval`` ones: prompt-level (all instructions of the
prompt followed; aggregated by mean) and instruction-level (one bool per instruction;
aggregated by lm-eval's ``agg_inst_level_acc``, the mean over all instructions of all
docs), each under the strict check and the loose one (the answer also tried without
its first/last line and without "*").

NLTK data the documents' instructions need and that is missing is downloaded first
(setting ``nltk_download``, :mod:`uta_tasks.datasets.nltk_data`). What is still missing
after that (downloads off, ``HF_HUB_OFFLINE=1``, no network) follows the setting
``<benchmark>_unverifiable`` (``ifeval_unverifiable``, ``ifbench_unverifiable``):

- ``"error"`` (default): loading fails when some documents use an instruction whose
  NLTK data is missing, before anything is generated, naming the instructions, the
  resources, why they were not downloaded, and the fix.
- ``"drop"``: those documents are removed and a warning line reports how many and which
  instructions; the task's numbers then cover the remaining documents only.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from .base import Benchmark, Message, mean
from .errors import BenchmarkDataError, BenchmarkScorerError
from .nltk_data import (
    RESOURCE_PATHS,
    download_missing,
    download_refusal,
    fix_hint,
    missing_resources,
    offline_nltk,
)
from .sources import DataSource, load_source

if TYPE_CHECKING:
    import datasets

log = logging.getLogger(__name__)

PRIMARY = "prompt_level_strict_acc"
POLICIES = ("error", "drop")


def agg_inst_level_acc(items: list[list[bool] | bool]) -> float:
    """lm-eval's instruction-level aggregation (mean over every instruction of every doc).

    Args:
        items: per-doc lists of instruction results (lm-eval 0.5 hands a one-instruction
            doc's list over as its single value).
    """
    from .verifiers import ifeval_utils

    return float(ifeval_utils().agg_inst_level_acc([x if isinstance(x, list) else [x] for x in items]))


AGGREGATIONS: dict[str, Callable[[list], float]] = {
    "prompt_level_strict_acc": mean,
    "inst_level_strict_acc": agg_inst_level_acc,
    "prompt_level_loose_acc": mean,
    "inst_level_loose_acc": agg_inst_level_acc,
}


def drop_unverifiable(
    benchmark: str, dataset: datasets.Dataset, registry: dict[str, type], metadata: dict[str, Any]
) -> datasets.Dataset:
    """Apply the ``<benchmark>_unverifiable`` policy to the loaded documents.

    Args:
        benchmark: "ifeval" or "ifbench".
        dataset: documents with an "instruction_id_list" column.
        registry: the verifier's instruction registry.
        metadata: task metadata (reads ``<benchmark>_unverifiable`` and ``nltk_download``).

    Returns:
        The documents that can be scored here.
    """
    key = f"{benchmark}_unverifiable"
    policy = str(metadata.get(key) or "error")
    if policy not in POLICIES:
        raise BenchmarkDataError(f"{benchmark}: {key}={policy!r}; use one of {POLICIES}.")
    used = {i for ids in dataset["instruction_id_list"] for i in ids}
    unknown = used - set(registry)
    if unknown:
        raise BenchmarkDataError(
            f"{benchmark}: the data uses instructions the verifier does not know: {sorted(unknown)}."
        )
    refusal = download_refusal(metadata)
    missing = missing_resources(registry, used)
    if not missing:
        return dataset
    why_not = refusal or download_missing(set().union(*missing.values()), benchmark)
    missing = missing_resources(registry, used)
    if not missing:
        return dataset
    affected = [n for n, ids in enumerate(dataset["instruction_id_list"]) if set(ids) & set(missing)]
    detail = ", ".join(f"{i} (needs {', '.join(sorted(r))})" for i, r in missing.items())
    if policy == "error":
        raise BenchmarkScorerError(
            f"{benchmark}: {len(affected)} of {len(dataset)} documents use instructions whose NLTK data is "
            f"missing here, so they cannot be verified: {detail}. Not downloaded: {why_not}. "
            f"{fix_hint(set().union(*missing.values()))}; or pass "
            f"--metadata '{{\"{key}\": \"drop\"}}' to leave those documents out."
        )
    keep = sorted(set(range(len(dataset))) - set(affected))
    log.warning(
        "%s: dropped %d of %d documents that cannot be verified here (%s; not downloaded: %s); %d remain.",
        benchmark, len(affected), len(dataset), detail, why_not, len(keep),
    )
    return dataset.select(keep)


def unverifiable_error(benchmark: str, exc: LookupError) -> BenchmarkScorerError:
    """The error raised when a verifier still hits missing NLTK data while scoring.

    Args:
        benchmark: "ifeval" or "ifbench".
        exc: the ``LookupError`` NLTK raised.
    """
    resources = {name for name in RESOURCE_PATHS if name in str(exc)} or set(RESOURCE_PATHS)
    return BenchmarkScorerError(
        f"{benchmark}: the verifier needs NLTK data that is missing ({exc}). {fix_hint(resources)}."
    )


@contextmanager
def verifying(benchmark: str) -> Iterator[None]:
    """Run a verifier's checks with NLTK offline; missing NLTK data becomes
    :func:`unverifiable_error`.

    Args:
        benchmark: "ifeval" or "ifbench".
    """
    try:
        with offline_nltk():
            yield
    except LookupError as exc:
        raise unverifiable_error(benchmark, exc) from exc


def load_prompts(source: DataSource, registry: dict[str, type], metadata: dict[str, Any]) -> datasets.DatasetDict:
    """The documents of an instruction-following benchmark, the ``<benchmark>_unverifiable``
    policy applied (the body of its lm-eval ``custom_dataset``).

    Args:
        source: its data source (``source.benchmark`` names the settings).
        registry: its verifier's instruction registry.
        metadata: task metadata; reads ``<benchmark>_data_files``, ``<benchmark>_dataset_path``,
            ``<benchmark>_unverifiable``, ``nltk_download``, ``data_hub_timeout``.
    """
    import datasets

    docs = drop_unverifiable(source.benchmark, load_source(source, metadata), registry, metadata)
    return datasets.DatasetDict({"test": docs})


def doc_to_messages(doc: dict) -> list[Message]:
    """The prompt as the user turn.

    Args:
        doc: a record ("key", "prompt", "instruction_id_list", "kwargs").
    """
    return [{"role": "user", "content": doc["prompt"]}]


def benchmark(source: DataSource, load: Callable[..., datasets.DatasetDict],
              score: Callable[[dict, str], dict[str, Any]]) -> Benchmark:
    """The :class:`Benchmark` of an instruction-following data set (its scorer needs NLTK data).

    Args:
        source: its default data origin (``source.benchmark`` is its name).
        load: its module-level ``load`` (named in task YAMLs).
        score: its verifier on one answer, the four metrics.
    """
    return Benchmark(name=source.benchmark, load=load, doc_to_messages=doc_to_messages, score=score,
                     aggregations=AGGREGATIONS, primary=PRIMARY, source=source, needs_nltk=True)
