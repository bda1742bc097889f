"""Scoring one response as an lm-eval task YAML says: its filter pipelines, its jinja
templates and lm-eval's ``exact_match``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .task_class import make_instance
from .version import IS_05


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
