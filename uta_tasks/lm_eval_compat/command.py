"""lm-eval's command line: its entry point, and its ``k=v,k=v`` flag values."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


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
