"""GSM8K (openai/gsm8k, config "main", test split: 1,319 problems).

``q`` is the problem text alone, as a user turn (no few-shot examples, no format
instruction): the probe asks the question a user would.

Accuracy is what lm-eval's own ``gsm8k`` task computes, read at run time from the
installed ``lm_eval/tasks/gsm8k/gsm8k.yaml`` and run through lm-eval's own code: the
target is the yaml's ``doc_to_target`` (the full solution), each ``filter_list``
pipeline is built with ``lm_eval.filters.build_filter_ensemble`` and applied to the
answer, and the result is compared with ``exact_match`` using the yaml's ignore
settings (``ignore_case``, ``regexes_to_ignore``: ",", "$", everything up to "#### ",
a final "."). Two metrics, both per doc 0.0/1.0:

- ``exact_match_flexible`` (primary): the "flexible-extract" filter, the last number
  in the answer (``(-?[$0-9.,]{2,})|(-?[0-9]+)``, ``group_select: -1``). This is the
  one that reads a free-form chat answer, so it decides "answered correctly".
- ``exact_match_strict``: the "strict-match" filter, the number after "#### ". Chat
  models rarely write "####" unprompted, so it is reported for comparison only.

A failed extraction gives lm-eval's fallback "[invalid]", which never matches: wrong.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from uta_tasks import lm_eval_compat as compat

from .base import Benchmark, Message, mean
from .sources import DataSource, load_source

if TYPE_CHECKING:
    import datasets

SOURCE = DataSource(benchmark="gsm8k", hub_id="openai/gsm8k", hub_config="main", hub_split="test", paper_size=1319)
#: our metric name -> lm-eval filter name in gsm8k.yaml
FILTERS = {"exact_match_flexible": "flexible-extract", "exact_match_strict": "strict-match"}
PRIMARY = "exact_match_flexible"


def load(**metadata: Any) -> datasets.DatasetDict:
    """lm-eval ``custom_dataset``: the GSM8K test problems.

    Args:
        metadata: task metadata; reads ``gsm8k_data_files``, ``gsm8k_dataset_path``,
            ``data_hub_timeout`` (see :mod:`uta_tasks.datasets.sources`).
    """
    import datasets

    return datasets.DatasetDict({"test": load_source(SOURCE, metadata)})


def doc_to_messages(doc: dict) -> list[Message]:
    """The problem as the user turn.

    Args:
        doc: a GSM8K record ("question", "answer").
    """
    return [{"role": "user", "content": doc["question"]}]


@lru_cache(maxsize=1)
def lm_eval_config() -> dict[str, Any]:
    """The installed lm-eval ``gsm8k.yaml``, parsed by lm-eval's own YAML loader."""
    return compat.load_task_yaml(compat.builtin_task_dir("gsm8k") / "gsm8k.yaml")


def _metric_kwargs(config: dict[str, Any]) -> dict[str, Any]:
    """The ``exact_match`` options of the yaml (everything but the bookkeeping keys)."""
    (entry,) = [m for m in config["metric_list"] if m["metric"] == "exact_match"]
    return {k: v for k, v in entry.items() if k not in ("metric", "aggregation", "higher_is_better")}


def extract(doc: dict, answer: str) -> dict[str, str]:
    """Run each of the yaml's filter pipelines on one answer, as lm-eval does.

    Args:
        doc: the GSM8K record.
        answer: the final answer text.

    Returns:
        lm-eval filter name -> extracted string ("[invalid]" when nothing matched).
    """
    return compat.apply_filters(lm_eval_config()["filter_list"], doc, answer)


def score(doc: dict, answer: str) -> dict[str, float]:
    """lm-eval's gsm8k ``exact_match`` under both of its filters.

    Args:
        doc: the GSM8K record.
        answer: the final answer, reasoning removed.
    """
    config = lm_eval_config()
    gold = compat.apply_template(config["doc_to_target"], doc)
    extracted = extract(doc, answer)
    kwargs = _metric_kwargs(config)
    return {metric: compat.exact_match(gold, extracted[name], **kwargs) for metric, name in FILTERS.items()}


BENCHMARK = Benchmark(
    name="gsm8k",
    load=load,
    doc_to_messages=doc_to_messages,
    score=score,
    aggregations={metric: mean for metric in FILTERS},
    primary=PRIMARY,
    source=SOURCE,
)
