"""lm-eval's ``simple_evaluate`` from before it loads the model (0.4.13 and 0.5 alike).

``simple_evaluate`` creates the model first and builds the tasks after, so a check on the
requests would come after the model loads. :func:`check_before_model` runs a check at the top
of ``simple_evaluate``, on its own arguments; :func:`requests_without_model` builds the
requests of chosen tasks as its ``evaluate`` does (the command line's ``TaskManager``, its
``--gen_kwargs``, ``--limit``, ``--samples`` and ``--system_instruction``), with no model.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from .command import parse_args_string
from .patching import wrap_once

Check = Callable[[dict[str, Any]], None]


def check_before_model(check: Check) -> None:
    """Make ``lm_eval.simple_evaluate`` call ``check(arguments)`` (its bound arguments, defaults
    applied) before it does anything else (idempotent per check). lm-eval's command line
    (``lm_eval run``) imports ``simple_evaluate`` from the package when it runs, so the check
    runs there too.

    Args:
        check: raises to stop the run.
    """
    def wrap(original: Callable[..., Any], signature: inspect.Signature, checks: list[Any]) -> Callable[..., Any]:
        def simple_evaluate(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            for each in checks:
                each(dict(bound.arguments))
            return original(*args, **kwargs)
        return simple_evaluate

    wrap_once(importlib.import_module("lm_eval"), "simple_evaluate", check, wrap)


def _sample_size() -> Callable[[Any, Any], int | None]:
    utils = importlib.import_module("lm_eval.evaluator_utils")
    return getattr(utils, "get_sample_size", None) or utils._get_sample_size  # 0.4.13, 0.5


def requests_without_model(arguments: Mapping[str, Any], wanted: Callable[[Any], bool]) -> list[Any] | None:
    """The Instances of the tasks ``wanted`` picks, built as lm-eval's ``evaluate`` builds them,
    without a model; None when ``simple_evaluate`` was given no ``TaskManager`` (the Python API
    without one: lm-eval makes it after the model loads).

    Args:
        arguments: ``simple_evaluate``'s arguments (:func:`check_before_model`).
        wanted: picks the tasks (lm-eval task objects) whose requests to build.
    """
    manager = arguments.get("task_manager")
    if manager is None or not arguments.get("tasks"):
        return None
    gen_kwargs = arguments.get("gen_kwargs")
    if isinstance(gen_kwargs, str):
        gen_kwargs = parse_args_string(gen_kwargs)
    samples = arguments.get("samples") or {}
    size = _sample_size()
    out: list[Any] = []
    for name, task in manager.load(arguments["tasks"])["tasks"].items():
        if not wanted(task):
            continue
        if gen_kwargs:  # as simple_evaluate applies --gen_kwargs to a generate_until task
            task.set_config(key="generation_kwargs", value=dict(gen_kwargs), update=True)
        task.build_all_requests(limit=size(task, arguments.get("limit")), samples=samples.get(name), rank=0,
                                world_size=1, system_instruction=arguments.get("system_instruction"))
        out.extend(task.instances)
    return out
