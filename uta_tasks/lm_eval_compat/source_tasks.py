"""lm-eval internals of a *source* task: an lm-eval task that the probe wraps (``uta:NAME``).

What is taken from lm-eval, and where the two versions differ:

- the task index (``TaskManager._index`` in both: name -> ``Entry(kind, yaml_path, cfg, tags)``,
  ``cfg`` parsed with includes resolved and ``!function`` left unresolved, so reading it
  runs no task code);
- building one task with config overrides (``TaskManager._factory.build`` in both;
  0.4.13 gives a ``ConfigurableTask``, 0.5 a ``GenerateTask``);
- the prompt (``task.fewshot_context(..., system_instruction=..., apply_chat_template=True,
  chat_template=...)``, the same signature in both; the messages lm-eval hands to the chat
  template are kept, so ``--system_instruction`` and the task's ``description`` are joined
  into one system message by lm-eval's own ``maybe_delimit``);
- the response as lm-eval would have kept it: the task's stop strings
  (``task.config.generation_kwargs["until"]``, lm-eval's default ``[fewshot_delimiter]``
  filled in when the YAML gives none) and lm-eval's own
  ``lm_eval.models.utils.postprocess_generated_text`` (the same in both), which every
  ``generate_until`` backend applies to what the model wrote;
- scoring one answer: 0.4.13 runs each ``task._filters`` pipeline and then
  ``task.process_results(doc, [filtered])`` (as its evaluator does); 0.5 runs each of
  ``task._scorers``: its filter, then ``task.process_results`` and, when that returns None,
  the scorer's own ``score_doc`` and ``reduce``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain
from typing import Any

from .discovery import task_manager_class
from .task_class import make_instance
from .version import IS_05


@dataclass(frozen=True)
class SourceEntry:
    """One name of lm-eval's task index, read without running any task code.

    Attributes:
        name: the name looked up.
        kind: "task", "python_task", "group", "tag" or "unknown".
        config: the task's YAML config (includes resolved, ``!function`` unresolved); {} for
            a group or tag.
        members: the names a group or tag stands for (in order); () for a task.
    """

    name: str
    kind: str
    config: dict[str, Any] = field(default_factory=dict)
    members: tuple[str, ...] = ()


@dataclass(frozen=True)
class GroupAggregate:
    """One ``aggregate_metric_list`` entry of an lm-eval group.

    Attributes:
        metric: the metric aggregated over the group's tasks.
        filters: the filters it is aggregated under (None: every filter the tasks report).
        aggregation: lm-eval's aggregation name (``mean``).
        weight_by_size: weight each task by its document count.
    """

    metric: str
    filters: tuple[str, ...] | None
    aggregation: str
    weight_by_size: bool


@lru_cache(maxsize=4)
def _manager(include_path: tuple[str, ...]) -> Any:
    return task_manager_class()(include_path=list(include_path) or None)


def _index(include_path: tuple[str, ...]) -> dict[str, Any]:
    return _manager(include_path)._index


def lookup(name: str, include_path: tuple[str, ...] = ()) -> SourceEntry | None:
    """The index entry of a task, group or tag name, or None when lm-eval does not know it.

    Args:
        name: an lm-eval task, group or tag name.
        include_path: extra task folders (lm-eval's ``--include_path``).
    """
    entry = _index(include_path).get(name)
    if entry is None:
        return None
    kind = entry.kind.name.lower()
    config = dict(entry.cfg or {})
    if kind == "tag":
        return SourceEntry(name, kind, {}, tuple(sorted(entry.tags)))
    if kind == "group":
        members = []
        for item in config.get("task") or []:
            members.append(item if isinstance(item, str) else str(item.get("task", item)))
        return SourceEntry(name, kind, config, tuple(members))
    return SourceEntry(name, kind, config)


def group_aggregates(entry: SourceEntry) -> tuple[GroupAggregate, ...]:
    """A group's ``aggregate_metric_list`` as lm-eval reads it (a bare filter name is a list of
    one, no ``filter_list`` means every filter, ``weight_by_size`` defaults to true).

    Args:
        entry: a group's index entry (() for anything else).
    """
    if entry.kind != "group":
        return ()
    out = []
    for item in entry.config.get("aggregate_metric_list") or ():
        filters = item.get("filter_list")
        out.append(GroupAggregate(
            metric=str(item["metric"]),
            filters=None if filters is None else ((filters,) if isinstance(filters, str) else tuple(filters)),
            aggregation=str(item.get("aggregation", "mean")),
            weight_by_size=bool(item.get("weight_by_size", True)),
        ))
    return tuple(out)


def filter_names(config: dict[str, Any]) -> tuple[str, ...]:
    """The filters a task's YAML config declares (``none`` when it declares none)."""
    return tuple(str(f["name"]) for f in config.get("filter_list") or ()) or ("none",)


def build(name: str, overrides: dict[str, Any], include_path: tuple[str, ...] = ()) -> Any:
    """Build one lm-eval task the way lm-eval does, with config overrides (its data, splits).

    Args:
        name: a task name of the index.
        overrides: config keys replacing the task's own.
        include_path: extra task folders.
    """
    manager = _manager(include_path)
    return manager._factory.build(manager._index[name], overrides=overrides, registry=manager._index)


def eval_docs(task: Any) -> list[dict]:
    """The documents lm-eval evaluates (its test split, else validation; ``process_docs`` applied)."""
    return [dict(doc) for doc in task.eval_docs]


def prompt_messages(task: Any, doc: dict, num_fewshot: int, fewshot_as_multiturn: bool,
                    system_instruction: str | None = None) -> list[dict[str, str]]:
    """The chat messages lm-eval gives the model's chat template for one doc (``--apply_chat_template``).

    Args:
        task: the built source task.
        doc: one of its documents.
        num_fewshot: few-shot examples drawn by the task's own sampler.
        fewshot_as_multiturn: keep each example as its own user/assistant turn (else one user turn).
        system_instruction: lm-eval's ``--system_instruction``; lm-eval joins it with the
            task's ``description`` into one system message.

    Raises:
        TypeError: the task's prompt is not one text (multiple inputs, messages of its own).
    """
    seen: list[list[dict[str, str]]] = []

    def capture(messages: list[dict[str, str]], add_generation_prompt: bool = True) -> str:
        seen.append([{"role": m["role"], "content": m["content"]} for m in messages])
        return ""

    result = task.fewshot_context(doc, num_fewshot, system_instruction=system_instruction, apply_chat_template=True,
                                  fewshot_as_multiturn=fewshot_as_multiturn, chat_template=capture)
    if not isinstance(result, str) or len(seen) != 1:
        raise TypeError("its prompt is not one text (a multiple-input or multi-turn task)")
    return seen[0]


def stop_strings(task: Any) -> tuple[str, ...]:
    """The stop strings lm-eval generates the task with: its ``generation_kwargs`` ``until``
    as the built task holds it (lm-eval fills in ``[fewshot_delimiter]`` when the YAML gives
    none). lm-eval's backend adds the model's end-of-text token, which ends a chat turn anyway.

    Args:
        task: the built source task.
    """
    until = dict(task.config.generation_kwargs or {}).get("until") or ()
    return (until,) if isinstance(until, str) else tuple(str(s) for s in until)


def cut_response(text: str, stops: tuple[str, ...] | list[str]) -> str:
    """A response as lm-eval keeps it after generating with ``until=stops``: everything before
    the first of the stop strings to occur (lm-eval's ``postprocess_generated_text``; an empty
    stop string is ignored, as there).

    Args:
        text: what the model wrote (reasoning already removed).
        stops: the task's stop strings (:func:`stop_strings`).
    """
    from lm_eval.models.utils import postprocess_generated_text

    return str(postprocess_generated_text(generation=text, stop=list(stops), think_end_token=None))


def set_fewshot_seed(task: Any, seed: int) -> None:
    """Seed the task's few-shot sampler as lm-eval's ``--fewshot_seed`` does."""
    task.set_fewshot_seed(seed=seed)


@dataclass(frozen=True)
class SourceMetric:
    """One metric the source task reports: lm-eval's results key is ``metric,filter``.

    Attributes:
        metric: the metric name.
        filter: the filter (0.4.13) or scorer (0.5) name.
        aggregation: its aggregation over docs.
        higher_is_better: its direction.
    """

    metric: str
    filter: str
    aggregation: Callable[[list], float]
    higher_is_better: bool


def metrics(task: Any) -> list[SourceMetric]:
    """Every (metric, filter) the source task reports, in lm-eval's order."""
    if IS_05:
        return [SourceMetric(m.name, scorer.name, m.aggregation, bool(m.higher_is_better))
                for scorer in task._scorers for m in (scorer.metrics or []) if m.aggregation]
    aggregations, better = task.aggregation(), task.higher_is_better()
    return [SourceMetric(name, ensemble.name, aggregations[name], bool(better.get(name, True)))
            for ensemble in task._filters for name in task._metric_fn_list]


def score(task: Any, doc: dict, answer: str) -> dict[tuple[str, str], Any]:
    """The source task's own scores of one answer: (metric, filter) -> per-doc value.

    Args:
        task: the built source task.
        doc: the document.
        answer: the model's final answer (reasoning removed).
    """
    out: dict[tuple[str, str], Any] = {}
    if IS_05:
        instance = task.construct_requests(doc, "", doc_id=0)[0]
        instance.resps = [answer]
        for scorer in task._scorers:
            scorer.apply_filter([instance])
            flat = list(chain.from_iterable([instance.filtered_resps[scorer.name]]))
            values = task.process_results(doc, flat)
            if values is None:
                scored = scorer.score_doc(0, [instance])
                values = scorer.reduce({0: scored})[0]
            out.update({(name, scorer.name): _first(value) for name, value in values.items()})
        return out
    instance = make_instance("generate_until", doc, ("", {}), task_name=task.config.task, doc_id=0, repeats=1)
    instance.resps = [answer]
    for ensemble in task._filters:
        ensemble.apply([instance])
        values = task.process_results(doc, [instance.filtered_resps[ensemble.name]])
        out.update({(name, ensemble.name): value for name, value in values.items()})
    return out


def _first(value: Any) -> Any:
    return value[0] if isinstance(value, list) and len(value) == 1 else value
