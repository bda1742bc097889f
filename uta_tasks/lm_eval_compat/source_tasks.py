"""lm-eval internals of a *source* task: an lm-eval task that the probe wraps (``uta:NAME``).

What is taken from lm-eval, and where the two versions differ:

- the task index (``TaskManager._index`` in both: name -> ``Entry(kind, yaml_path, cfg, tags)``,
  ``cfg`` parsed with includes resolved and ``!function`` left unresolved, so reading it
  runs no task code);
- building one task with config overrides (``TaskManager._factory.build`` in both;
  0.4.13 gives a ``ConfigurableTask``, 0.5 a ``GenerateTask``);
- the prompt (``task.fewshot_context(..., apply_chat_template=True, chat_template=...)``,
  the same signature in both; the messages lm-eval hands to the chat template are kept);
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

from .tasks import make_instance, task_manager_class
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
        return SourceEntry(name, kind, {}, tuple(members))
    return SourceEntry(name, kind, config)


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


def prompt_messages(task: Any, doc: dict, num_fewshot: int, fewshot_as_multiturn: bool) -> list[dict[str, str]]:
    """The chat messages lm-eval gives the model's chat template for one doc (``--apply_chat_template``).

    Args:
        task: the built source task.
        doc: one of its documents.
        num_fewshot: few-shot examples drawn by the task's own sampler.
        fewshot_as_multiturn: keep each example as its own user/assistant turn (else one user turn).

    Raises:
        TypeError: the task's prompt is not one text (multiple inputs, messages of its own).
    """
    seen: list[list[dict[str, str]]] = []

    def capture(messages: list[dict[str, str]], add_generation_prompt: bool = True) -> str:
        seen.append([{"role": m["role"], "content": m["content"]} for m in messages])
        return ""

    result = task.fewshot_context(doc, num_fewshot, apply_chat_template=True,
                                  fewshot_as_multiturn=fewshot_as_multiturn, chat_template=capture)
    if not isinstance(result, str) or len(seen) != 1:
        raise TypeError("its prompt is not one text (a multiple-input or multi-turn task)")
    return seen[0]


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
