"""lm-eval's ``simple_evaluate`` from before it loads the model (0.4.13 and 0.5 alike).

``simple_evaluate`` creates the model first and builds the tasks after, so a check on the
requests would come after the model loads. :func:`check_before_model` runs a check at the top
of ``simple_evaluate``, on its own arguments; :func:`requests_without_model` builds the
requests of chosen tasks as its ``evaluate`` does, with no model, and hands the tasks it built
to ``simple_evaluate``, which then does not build them again.
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

    The tasks are built once: ``simple_evaluate``'s own ``task_manager.load`` of the same tasks
    then returns these task objects, so what they read and checked here (a saved run, its
    refusals) is what lm-eval evaluates. ``simple_evaluate``'s overrides are applied as it applies
    them (``--gen_kwargs``, ``--num_fewshot``); the requests are built with its ``--limit``,
    ``--samples``, ``--system_instruction``, ``--apply_chat_template`` and
    ``--fewshot_as_multiturn`` (a chat template that needs the model object is not applied here).

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
    loaded = manager.load(arguments["tasks"])
    _hand_over(manager, arguments["tasks"], loaded)
    out: list[Any] = []
    for name, task in loaded["tasks"].items():
        if not wanted(task):
            continue
        if gen_kwargs and task.get_config("output_type") == "generate_until":
            task.set_config(key="generation_kwargs", value=dict(gen_kwargs), update=True)
        _num_fewshot(task, arguments.get("num_fewshot"))
        task.build_all_requests(limit=size(task, arguments.get("limit")), samples=samples.get(name), rank=0,
                                world_size=1, system_instruction=arguments.get("system_instruction"),
                                apply_chat_template=bool(arguments.get("apply_chat_template")),
                                fewshot_as_multiturn=bool(arguments.get("fewshot_as_multiturn")))
        out.extend(task.instances)
    return out


def _num_fewshot(task: Any, asked: int | None) -> None:
    """``--num_fewshot`` as ``simple_evaluate`` applies it: never over a task's own 0, else the
    asked number, else 0 for a task that sets none."""
    default = task.get_config("num_fewshot")
    if asked is not None and default != 0:
        task.set_config(key="num_fewshot", value=asked)
    elif asked is None and default is None:
        task.set_config(key="num_fewshot", value=0)


def _hand_over(manager: Any, tasks: Any, loaded: dict[str, Any]) -> None:
    """Make ``manager``'s next ``load`` of ``tasks`` (``simple_evaluate``'s own) return ``loaded``
    instead of building the tasks again; any other call loads as usual."""
    original = manager.load

    def load(asked: Any, *args: Any, **kwargs: Any) -> Any:
        if asked == tasks and not args and not kwargs:
            manager.load = original
            return loaded
        return original(asked, *args, **kwargs)

    manager.load = load
