"""lm-eval internals of tasks: the base class, config, instances, filters, scoring, discovery."""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import inspect
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from uta_tasks.schema.probe import FilteredRecord

from .version import ENTRY_POINT_GROUP, FILTER_NAME, IS_05


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


def load_task_yaml(path: Path) -> dict[str, Any]:
    """Parse the lm-eval task YAML file ``path`` with lm-eval's own loader."""
    from lm_eval.tasks._yaml_loader import load_yaml

    return load_yaml(path)


def builtin_task_dir(name: str) -> Path:
    """The folder ``lm_eval/tasks/<name>`` of a task that ships with lm-eval."""
    import lm_eval

    return Path(lm_eval.__file__).parent / "tasks" / name


def apply_filters(pipelines: Sequence[dict[str, Any]], doc: dict, text: str) -> dict[str, Any]:
    """Run lm-eval filter pipelines (a task YAML's ``filter_list``) on one response.

    Args:
        pipelines: ``[{"name", "filter": [{"function", ...kwargs}]}]``.
        doc: the doc.
        text: the response.

    Returns:
        pipeline name -> filtered response.
    """
    from lm_eval.filters import build_filter_ensemble

    out = {}
    for pipeline in pipelines:
        components = [[f["function"], {k: v for k, v in f.items() if k != "function"}] for f in pipeline["filter"]]
        ensemble = build_filter_ensemble(pipeline["name"], components)
        instance = make_instance("generate_until", doc, ("", {}), task_name="uta", doc_id=0, repeats=1)
        instance.resps = [text]
        ensemble.apply([instance])
        value = instance.filtered_resps[pipeline["name"]]
        out[pipeline["name"]] = value[0] if IS_05 and isinstance(value, list) else value
    return out


def exact_match(gold: str, prediction: str, **kwargs: Any) -> float:
    """lm-eval's ``exact_match`` of one prediction.

    Args:
        gold: the reference.
        prediction: the extracted answer.
        kwargs: the metric's options from the task YAML.
    """
    if IS_05:
        from lm_eval.api.metrics.generation import exact_match_fn

        return float(exact_match_fn(references=[gold], predictions=[prediction], **kwargs)["exact_match"][0])
    from lm_eval.api.metrics import exact_match_hf_evaluate

    return float(exact_match_hf_evaluate(references=[gold], predictions=[prediction], **kwargs)["exact_match"])


def apply_template(template: str, doc: dict) -> str:
    """Render a task YAML's jinja field for a doc, as lm-eval does.

    Args:
        template: e.g. ``doc_to_target``.
        doc: the doc.
    """
    if IS_05:
        from lm_eval.config.templates import apply_template as apply
    else:
        from lm_eval.utils import apply_template as apply
    return apply(template, doc)


def mean(values: Sequence[float]) -> float:
    """lm-eval's ``mean`` aggregation of per-doc ``values``."""
    from lm_eval.api.metrics import mean as lm_mean

    return float(lm_mean(values))


def nanmean(values: Sequence[float]) -> float:
    """lm-eval's ``nanmean`` of per-doc ``values`` (NaN, i.e. unjudged, docs left out)."""
    from lm_eval.api.metrics import nanmean as lm_nanmean

    return float(lm_nanmean(values))


def native_aggregation(name: str) -> Callable[[list], float]:
    """lm-eval's own aggregation function of that name (``mean``, ``nanmean``): the objects
    ``api.metrics.stderr_for_metric`` recognises to compute a standard error.

    Args:
        name: the aggregation's name in ``lm_eval.api.metrics``.
    """
    from lm_eval.api import metrics

    return getattr(metrics, name)


def builtin_task_module(name: str) -> Any:
    """A module of a task that ships with lm-eval (its reference scorer code), e.g.
    ``ifeval.utils`` is ``lm_eval.tasks.ifeval.utils``.

    Args:
        name: the dotted path below ``lm_eval.tasks``.
    """
    return importlib.import_module(f"lm_eval.tasks.{name}")


def stderr(aggregation: Callable[[list], float], values: Sequence[float], iters: int) -> Any:
    """lm-eval's standard error of an aggregation (``api.metrics.stderr_for_metric``),
    ``"N/A"`` where lm-eval gives none, as in its results files.

    Args:
        aggregation: the aggregation function.
        values: per-doc values.
        iters: bootstrap iterations.
    """
    from lm_eval.api.metrics import stderr_for_metric

    fn = stderr_for_metric(metric=aggregation, bootstrap_iters=iters)
    return fn(list(values)) if fn is not None and len(values) > 1 else "N/A"


def task_manager_class() -> type:
    """``lm_eval.tasks.TaskManager``."""
    return importlib.import_module("lm_eval.tasks").TaskManager


@functools.lru_cache(maxsize=1)
def reads_task_entry_points() -> bool:
    """Whether the installed lm-eval discovers task folders through the ``lm_eval.tasks``
    entry point group (upstream PR #4015); neither 0.4.13 nor 0.5.0.dev1 does."""
    source = inspect.getsource(importlib.import_module("lm_eval.tasks.manager"))
    return ENTRY_POINT_GROUP in source and "entry_points" in source


def wrap_once(owner: Any, name: str, item: Any,
              wrap: Callable[[Callable[..., Any], inspect.Signature, list[Any]], Callable[..., Any]]) -> None:
    """Replace ``owner.name`` (a class's method or a module's function) once by
    ``wrap(original, its signature, items)``; every call adds ``item`` to the ``items`` the
    wrapper reads (once per item).

    Args:
        owner: the class or module.
        name: the attribute.
        item: what this call adds (a folder, a check).
        wrap: makes the replacement.
    """
    original = vars(owner)[name] if name in vars(owner) else getattr(owner, name)  # lm_eval loads simple_evaluate lazily
    items = getattr(original, "_uta_items", None)
    if items is not None:
        if item not in items:
            items.append(item)
        return
    items = [item]
    replacement = functools.wraps(original)(wrap(original, inspect.signature(original), items))
    replacement._uta_items = items  # type: ignore[attr-defined]
    setattr(owner, name, replacement)


def add_include_path(path: Path) -> None:
    """Make every ``TaskManager`` of this process also index ``path`` (for ``uta-eval``).

    Wraps ``TaskManager.__init__``'s ``include_path`` once; each call adds one more folder
    (idempotent per folder); a path already given is not added twice.

    Args:
        path: a task folder.
    """
    def wrap(original: Callable[..., Any], signature: inspect.Signature, added: list[Any]) -> Callable[..., Any]:
        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            bound = signature.bind(self, *args, **kwargs)
            given = bound.arguments.get("include_path")
            paths = [] if given is None else (list(given) if isinstance(given, (list, tuple)) else [given])
            for extra in added:
                if not any(Path(p).resolve() == extra.resolve() for p in paths):
                    paths.append(extra)
            bound.arguments["include_path"] = paths
            original(*bound.args, **bound.kwargs)
        return __init__

    wrap_once(task_manager_class(), "__init__", path, wrap)


def cli_main(clean_results: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> None:
    """lm-eval's command line entry point (``lm_eval.__main__.cli_evaluate``).

    Args:
        clean_results: applied to the aggregated results just before lm-eval's
            ``EvaluationTracker`` writes them (``uta-eval`` masks credentials with it); the
            tracker is as it was once the command returns.
    """
    if clean_results is None:
        importlib.import_module("lm_eval.__main__").cli_evaluate()
        return
    tracker = importlib.import_module("lm_eval.loggers").EvaluationTracker
    original = tracker.save_results_aggregated

    def save(self: Any, results: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        return original(self, clean_results(results), *args, **kwargs)

    tracker.save_results_aggregated = save
    try:
        importlib.import_module("lm_eval.__main__").cli_evaluate()
    finally:
        tracker.save_results_aggregated = original




# Generation backends (0.4.13 and 0.5 alike; read by uta_tasks/probe/scale_out.py): ``VLLM`` with
# ``data_parallel_size`` > 1 loads the model in new Ray workers on every ``generate_until``;
# ``TemplateAPI`` keeps the last ``max_length - 1 - max_gen_toks`` prompt tokens (a negative


def parse_args_string(text: str) -> dict[str, Any]:
    """``--gen_kwargs`` / ``--model_args`` text as lm-eval reads it (``k=v,k=v`` through
    ``lm_eval.utils.simple_parse_args_string``, or a JSON object).

    Args:
        text: the flag's value ("" gives {}).
    """
    import json

    text = text.strip()
    if not text:
        return {}
    if text.startswith("{"):
        return dict(json.loads(text))
    from lm_eval.utils import simple_parse_args_string

    return dict(simple_parse_args_string(text))
