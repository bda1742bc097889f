"""The :class:`~uta_tasks.datasets.base.Benchmark` of a wrapped lm-eval task.

Built from the source task as lm-eval builds it (through
:mod:`uta_tasks.lm_eval_compat.source_tasks`):

- documents: the task's own evaluation documents (its split, its ``process_docs``), from
  its own data set, or from ``<task>_data_files`` (then every split of the task reads that
  file, and few-shot examples are drawn from it with the evaluated document left out, as
  lm-eval does when the few-shot split is the test split);
- q: the messages lm-eval hands the chat template under ``--apply_chat_template``: its
  ``description`` as the system turn (joined with ``--system_instruction`` by lm-eval
  itself, :func:`messages`), ``uta_num_fewshot`` examples (0 by default) and the doc's
  ``doc_to_text``;
- accuracy: the answer cut as lm-eval would have kept it (before the first of the task's
  own stop strings: the probe generates the whole turn with its own stop strings, and the
  trace keeps it), then each of the task's filters, then its ``process_results`` (or, on
  lm-eval 0.5, its scorers); one metric per (metric, filter), named ``metric_filter``
  (``metric`` alone for the filter ``none``), aggregated with the task's own aggregation.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from uta_tasks.datasets.base import Benchmark, Message
from uta_tasks.datasets.sources import DataSource, load_files, report_size
from uta_tasks.lm_eval_compat import source_tasks

from .names import benchmark_name, is_wrapped, metric_name, source_of
from .settings import INCLUDE_PATH_KEY, WrapError, WrapSettings, data_files_key

if TYPE_CHECKING:
    import datasets

#: the filter lm-eval names its free-form answer reader; its metric is the default primary
FLEXIBLE_FILTER = "flexible-extract"


def _splits(config: dict[str, Any]) -> tuple[str, ...]:
    keys = ("test_split", "validation_split", "training_split", "fewshot_split")
    return tuple(dict.fromkeys(str(config[k]) for k in keys if config.get(k)))


@lru_cache(maxsize=16)
def _source(source: str, settings: WrapSettings) -> Any:
    entry = source_tasks.lookup(source, settings.include_path)
    if entry is None or entry.kind != "task":
        where = (f"the task folders {list(settings.include_path)} ({INCLUDE_PATH_KEY})"
                 if settings.include_path else "the installed lm-eval")
        raise WrapError(f"{benchmark_name(source)}: {source} is not a task of {where}; wrap it again with "
                        f"`python -m uta_tasks wrap {source} --include_path DIR` naming the folder that holds it")
    overrides: dict[str, Any] = {}
    if settings.data_files is not None:
        files = settings.data_files if isinstance(settings.data_files, str) else list(settings.data_files)
        spec = DataSource(benchmark=source, hub_id=entry.config.get("dataset_path"))
        docs = load_files(spec, files, timeout=settings.hub_timeout)
        report_size(source, len(docs), None, f"{data_files_key(source)}={files!r}")
        eval_split = entry.config.get("test_split") or entry.config.get("validation_split") or "test"
        splits = {split: docs for split in (*_splits(entry.config), eval_split)}
        overrides = {"custom_dataset": _Fixed(splits), "fewshot_split": eval_split}
    task = source_tasks.build(source, overrides, settings.include_path)
    source_tasks.set_fewshot_seed(task, settings.fewshot_seed)
    return task


class _Fixed:
    """An lm-eval ``custom_dataset`` returning already loaded splits."""

    def __init__(self, splits: dict[str, datasets.Dataset]) -> None:
        self.splits = splits

    def __call__(self, **_: Any) -> datasets.DatasetDict:
        import datasets

        return datasets.DatasetDict(self.splits)


def _primary(task_name: str, names: list[tuple[str, str]], chosen: str | None) -> str:
    ours = [metric_name(m, f) for m, f in names]
    if chosen is not None:
        if chosen not in ours:
            raise WrapError(f"{task_name}: uta_primary={chosen!r} is not one of its metrics {ours}")
        return chosen
    filters = [f for _, f in names]
    wanted = FLEXIBLE_FILTER if FLEXIBLE_FILTER in filters else filters[-1]
    return next(metric_name(m, f) for m, f in names if f == wanted)


def benchmark(task_name: str, bench: str, meta: dict[str, Any]) -> Benchmark:
    """The benchmark of a wrapped task.

    Args:
        task_name: the wrapped task (for messages).
        bench: its ``uta_benchmark`` (``lm-eval:<source>``).
        meta: its metadata (see :mod:`uta_tasks.wrap.settings`).
    """
    if not is_wrapped(bench):
        raise WrapError(f"{task_name}: uta_benchmark={bench!r} is not a wrapped lm-eval task")
    source = source_of(bench)
    settings = WrapSettings.from_metadata(task_name, source, meta)
    task = _source(source, settings)
    declared = source_tasks.metrics(task)
    if not declared:
        raise WrapError(f"{task_name}: {source} declares no metric to score an answer with")
    pairs = [(m.metric, m.filter) for m in declared]
    aggregations = {metric_name(m.metric, m.filter): m.aggregation for m in declared}
    primary = _primary(task_name, pairs, settings.primary)

    stops = source_tasks.stop_strings(task)

    def score(doc: dict, answer: str) -> dict[str, Any]:
        raw = source_tasks.score(task, doc, source_tasks.cut_response(answer, stops))
        out: dict[str, Any] = {}
        for (metric, filter_name), value in raw.items():
            name = metric_name(metric, filter_name)
            same_filter = [metric_name(m, f) for m, f in pairs if f == filter_name]
            if name not in aggregations and len(same_filter) == 1:  # pass_at_k gives {"pass@1": ...}
                name = same_filter[0]
            out[name] = value
        return out

    return Benchmark(name=bench, load=lambda **_: load(**meta),
                     doc_to_messages=_Prompt(task_name, source, task, settings), score=score,
                     aggregations=aggregations, primary=primary)


class _Prompt:
    """A wrapped task's ``doc_to_messages``: lm-eval's own messages for one doc."""

    def __init__(self, task_name: str, source: str, task: Any, settings: WrapSettings) -> None:
        self.task_name, self.source, self.task, self.settings = task_name, source, task, settings

    def __call__(self, doc: dict, system_instruction: str | None = None) -> list[Message]:
        try:
            return source_tasks.prompt_messages(self.task, doc, self.settings.num_fewshot,
                                                self.settings.fewshot_as_multiturn, system_instruction)
        except TypeError as exc:
            raise WrapError(f"{self.task_name}: {self.source} cannot be wrapped: {exc}") from exc


def messages(bench: Benchmark, doc: dict, system_instruction: str | None) -> list[Message]:
    """A wrapped task's messages for one doc with lm-eval's ``--system_instruction``: lm-eval
    joins it with the task's ``description`` into one system message (its ``maybe_delimit``
    with the task's ``fewshot_delimiter``), and so does this.

    Args:
        bench: a wrapped task's benchmark (:func:`benchmark`).
        doc: one of its documents.
        system_instruction: the instruction, or None.
    """
    prompt = bench.doc_to_messages
    if not isinstance(prompt, _Prompt):
        raise WrapError(f"{bench.name}: not a wrapped lm-eval task's benchmark")
    return prompt(doc, system_instruction)


def load(**metadata: Any) -> datasets.DatasetDict:
    """lm-eval ``custom_dataset`` of a wrapped task: the source task's evaluation documents.

    Args:
        metadata: the wrapped task's metadata (``uta_benchmark`` names the source task).
    """
    import datasets

    bench = str(metadata.get("uta_benchmark"))
    if not is_wrapped(bench):
        raise WrapError(f"uta_benchmark={bench!r} is not a wrapped lm-eval task")
    source = source_of(bench)
    task = _source(source, WrapSettings.from_metadata(bench, source, metadata))
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(source_tasks.eval_docs(task))})
