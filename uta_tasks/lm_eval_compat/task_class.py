"""lm-eval's task class as a uta task extends it: the base class, the config it receives,
the keep-all filter, the responses ``process_results`` gets, and ``Instance``."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

from uta_tasks.schema.probe import FilteredRecord

from .version import FILTER_NAME, IS_05


def task_base_class() -> type:
    """The lm-eval class a uta task extends (a ``generate_until`` task)."""
    if IS_05:
        return importlib.import_module("lm_eval.api.task").GenerateTask
    return importlib.import_module("lm_eval.api.task").ConfigurableTask


def keep_all(resps: Any, docs: Any) -> Any:
    """lm-eval filter function: keep every repeat's response for ``process_results``, each as a
    :class:`~uta_tasks.schema.probe.FilteredRecord` (lm-eval logs it as where the record is in
    ``resps``, not as a second copy).

    Args:
        resps: per-instance response lists.
        docs: the docs (unused).
    """
    return [[FilteredRecord(r, i) if isinstance(r, str) else r for i, r in enumerate(rs)] for rs in resps]


def _metric_list_05(metrics: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for metric in metrics:
        entry = {k: metric[k] for k in ("metric", "aggregation", "higher_is_better")}
        # One value per doc; a list value (instruction-level accuracy) stays a list.
        entry["reduction"] = _identity_reduction
        out.append(entry)
    return out


def _identity_reduction(reference: Any, values: Any) -> Any:
    return values


def prepare_config(config: dict[str, Any], metrics: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The task config lm-eval's base class receives.

    0.5 builds its scorers from ``filter_list`` at construction, so the keep-all filter and
    the metric declarations go into the config. 0.4.13 would try to resolve unknown metric
    names through Hugging Face ``evaluate`` (a download), so nothing is added there and
    :func:`after_init` installs the filter.

    Args:
        config: the task's YAML config (``class`` key removed).
        metrics: ``{"metric", "aggregation", "higher_is_better"}`` per declared metric.
    """
    config = dict(config)
    if IS_05:
        config["filter_list"] = [
            {
                "name": FILTER_NAME,
                "filter": [{"function": "custom", "kwargs": {"filter_fn": keep_all}}],
                "metric_list": _metric_list_05(metrics),
            }
        ]
        config.pop("metric_list", None)
    return config


def after_init(task: Any) -> None:
    """Install the keep-all filter on a 0.4.13 task (``task._filters``).

    Args:
        task: the constructed task.
    """
    if not IS_05:
        from lm_eval.filters import build_filter_ensemble

        task._filters = [build_filter_ensemble(FILTER_NAME, [["custom", {"filter_fn": keep_all}]])]


def after_override_metric(task: Any, metric_name: str) -> None:
    """Keep every repeat after lm-eval's ``override_metric`` (``--predict_only``) on 0.5,
    which rebuilds ``task._scorers`` with its default filter.

    Args:
        task: the task.
        metric_name: the metric lm-eval forced (``bypass``).
    """
    if IS_05:
        from lm_eval.scorers import build_scorer

        task._scorers = [
            build_scorer(
                cfg={
                    "name": FILTER_NAME,
                    "filter": [{"function": "custom", "kwargs": {"filter_fn": keep_all}}],
                    "metric_list": [{"metric": metric_name}],
                },
                output_type="generate_until",
            )
        ]
    else:
        after_init(task)


def doc_responses(results: Sequence[Any]) -> list[Any]:
    """The responses of one doc (one per repeat) as ``process_results`` received them.

    Args:
        results: ``process_results``'s second argument.
    """
    if IS_05:
        return list(results)
    return list(results[0])


def make_instance(
    request_type: str, doc: dict, arguments: tuple, *, task_name: str, doc_id: int, repeats: int
) -> Any:
    """An lm-eval ``Instance`` (whose constructor differs between the versions).

    Args:
        request_type: e.g. ``generate_until``.
        doc: the doc.
        arguments: the request arguments.
        task_name: the task.
        doc_id: index of the doc.
        repeats: the task's repeats.
    """
    from lm_eval.api.instance import Instance

    if IS_05:
        return Instance(
            request_type=request_type, doc=doc, arguments=arguments, task_name=task_name,
            doc_id=doc_id, idx=0, repeats=repeats,
        )
    return Instance(request_type=request_type, doc=doc, arguments=arguments, idx=0,
                    metadata=(task_name, doc_id, repeats))
