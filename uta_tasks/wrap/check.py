"""Which lm-eval tasks can be wrapped, decided from lm-eval's index before any model loads.

Only the task's YAML is read (``!function`` left unresolved): deciding runs no task code.
A refusal is a :class:`~uta_tasks.wrap.settings.WrapError` naming the task and the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from uta_tasks.lm_eval_compat import source_tasks

from .names import metric_name
from .settings import WrapError

#: why a task of another output type has no answer for the probe to follow
_OUTPUT_TYPES = {
    "loglikelihood": "it scores the log-likelihood of a fixed continuation; the model writes no answer of its own",
    "loglikelihood_rolling": "it scores the perplexity of a given text; the model writes no answer of its own",
    "multiple_choice": "it compares the log-likelihoods of the choices; the model writes no answer of its own",
}


@dataclass(frozen=True)
class WrapPlan:
    """What a list of names wraps into.

    Attributes:
        tasks: source tasks, each becoming a family (in first-seen order, no repeats).
        groups: source group or tag -> its member source tasks.
        unsafe: the source tasks that score by running the model's code.
        aggregates: source group -> its ``aggregate_metric_list`` entries, renamed to the
            wrapped tasks' metrics (:func:`aggregates`).
        include_path: the extra task folders the names were looked up in (absolute).
    """

    tasks: tuple[str, ...]
    groups: dict[str, tuple[str, ...]] = field(default_factory=dict)
    unsafe: tuple[str, ...] = ()
    aggregates: dict[str, tuple[dict[str, Any], ...]] = field(default_factory=dict)
    include_path: tuple[str, ...] = ()


def refusal(name: str, config: dict) -> str | None:
    """Why a task's config cannot be wrapped, or None when it can.

    Args:
        name: the task.
        config: its YAML config (includes resolved).
    """
    output_type = config.get("output_type", "generate_until")
    if output_type != "generate_until":
        reason = _OUTPUT_TYPES.get(output_type, "the probe follows free-form answers only")
        return f"output_type {output_type}: {reason}"
    if config.get("doc_to_image") or config.get("doc_to_audio"):
        return "its prompt is not text only (doc_to_image / doc_to_audio)"
    if not config.get("doc_to_text"):
        return "it has no text prompt (no doc_to_text)"
    if config.get("gen_prefix") or (config.get("fewshot_config") or {}).get("gen_prefix"):
        return ("it pre-fills the start of the assistant's answer (gen_prefix); the probe lets the model "
                "write its whole answer")
    return None


def aggregates(group: source_tasks.SourceEntry, members: tuple[str, ...],
               include_path: tuple[str, ...]) -> tuple[dict[str, Any], ...]:
    """A source group's ``aggregate_metric_list`` for its wrapped group: each (metric, filter)
    the group aggregates becomes the wrapped tasks' metric ``metric_filter`` under lm-eval's
    filter ``none`` (``exact_match`` under ``strict-match`` is ``exact_match_strict-match``),
    with the group's aggregation and weighting. The three perturbations of a document share
    one answer, so their accuracies agree and the aggregate over all of them is the source
    group's.

    Args:
        group: the source group's index entry.
        members: its member source tasks.
        include_path: the extra task folders.
    """
    out: list[dict[str, Any]] = []
    for agg in source_tasks.group_aggregates(group):
        filters = agg.filters
        if filters is None:  # lm-eval: every filter a member task reports the metric under
            found = (source_tasks.lookup(m, include_path) for m in members)
            filters = tuple(dict.fromkeys(f for e in found if e for f in source_tasks.filter_names(e.config)))
        for filter_name in filters:
            entry = {"metric": metric_name(agg.metric, filter_name), "filter_list": ["none"],
                     "aggregation": agg.aggregation, "weight_by_size": agg.weight_by_size}
            if entry not in out:
                out.append(entry)
    return tuple(out)


def plan(names: list[str], include_path: tuple[str, ...] | list[str] = ()) -> WrapPlan:
    """Resolve task, group and tag names into the tasks to wrap; refuse what cannot be wrapped.

    Args:
        names: lm-eval task, group or tag names.
        include_path: extra lm-eval task folders, looked up as lm-eval does (a later folder's
            task of the same name replaces an earlier one's); recorded absolute.

    Raises:
        WrapError: an unknown name, a missing folder, or a task that cannot be wrapped (all of
            them named).
    """
    missing = [str(p) for p in include_path if not Path(p).is_dir()]
    if missing:
        raise WrapError(f"--include_path {', '.join(missing)}: no such folder; give the folder that holds "
                        "your task YAML files")
    include_path = tuple(str(Path(p).resolve()) for p in include_path)
    tasks: list[str] = []
    groups: dict[str, tuple[str, ...]] = {}
    kept: dict[str, tuple[dict[str, Any], ...]] = {}
    unsafe: list[str] = []
    problems: list[str] = []

    def leaves(name: str, seen: tuple[str, ...]) -> list[str]:
        entry = source_tasks.lookup(name, include_path)
        if entry is None:
            where = f" or of --include_path {', '.join(include_path)}" if include_path else \
                " (a task of your own: give its folder with --include_path)"
            problems.append(f"{name}: not a task, group or tag of the installed lm-eval{where} (see `lm_eval ls tasks`)")
            return []
        if entry.kind in ("group", "tag"):
            if name in seen:
                return []
            found = [leaf for member in entry.members for leaf in leaves(member, (*seen, name))]
            if not seen:
                groups[name] = tuple(dict.fromkeys(found))
                kept[name] = aggregates(entry, groups[name], include_path)
            return found
        if entry.kind != "task":
            problems.append(f"{name}: a Python-defined task (class:); its prompt and output type are only known "
                            "by running it, so it is not wrapped")
            return []
        reason = refusal(name, entry.config)
        if reason:
            problems.append(f"{name}: {reason}")
            return []
        if entry.config.get("unsafe_code"):
            unsafe.append(name)
        return [name]

    for name in names:
        for leaf in leaves(name, ()):
            if leaf not in tasks:
                tasks.append(leaf)
    if problems:
        raise WrapError("cannot wrap:\n  " + "\n  ".join(problems))
    return WrapPlan(tuple(tasks), groups, tuple(dict.fromkeys(unsafe)),
                    {g: agg for g, agg in kept.items() if agg}, include_path)
