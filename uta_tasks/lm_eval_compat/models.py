"""lm-eval internals of model objects: request methods, chat-template arguments, limits,
the request cache, and what kind of backend a model is."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import SimpleNamespace
from typing import Any

from .task_class import make_instance


def backend_instance(arguments: tuple[str, dict]) -> Any:
    """A ``generate_until`` Instance of ``arguments = (prompt, gen_kwargs)``."""
    return make_instance("generate_until", {}, arguments, task_name="uta", doc_id=0, repeats=1)


def install_request_method(name: str, method: Callable) -> None:
    """Give every lm-eval model class (``lm_eval.api.model.LM``) a request method (idempotent).

    The evaluator calls ``getattr(lm, request_type)(instances)`` once per request type.

    Args:
        name: the request type.
        method: the function (``self`` is the model).
    """
    from lm_eval.api.model import LM

    if getattr(LM, name, None) is not method:
        setattr(LM, name, method)


def chat_template_args(lm: Any) -> dict[str, Any]:
    """The chat-template arguments an lm-eval model renders with (``hf``: its
    ``chat_template_args``, ``enable_thinking`` folded in; ``vllm``: ``chat_template_args``
    plus ``enable_thinking`` when set).

    Args:
        lm: the lm-eval model.
    """
    args = dict(getattr(lm, "chat_template_args", None) or {})
    thinking = getattr(lm, "enable_thinking", None)
    if thinking is not None:
        args.setdefault("enable_thinking", thinking)
    return args


def model_chat_template_args(model_args: Mapping[str, Any]) -> dict[str, Any]:
    """The chat-template arguments of the model ``--model_args`` will make, before it loads (read
    as :func:`chat_template_args` reads them off the model: ``chat_template_args``, ``enable_thinking``).

    Args:
        model_args: ``--model_args``, parsed.
    """
    given = model_args.get("chat_template_args")
    return chat_template_args(SimpleNamespace(chat_template_args=given if isinstance(given, dict) else None,
                                              enable_thinking=model_args.get("enable_thinking")))


def think_end_token(lm: Any) -> Any:
    """``think_end_token`` of model ``lm`` (it makes lm-eval strip reasoning from outputs)."""
    return getattr(lm, "think_end_token", None)


SAMPLING_KEYS = ("temperature", "top_p", "top_k", "min_p", "repetition_penalty", "presence_penalty",
                 "frequency_penalty")


def sampling_defaults(lm: Any) -> dict[str, Any]:
    """The sampling settings a backend uses for keys a request does not give: ``hf`` takes
    the model's ``generation_config``; ``vllm`` (lm-eval builds ``SamplingParams``) takes
    vLLM's ``SamplingParams`` defaults; other backends (a server) are unknown: {}.

    Args:
        lm: the lm-eval model.
    """
    model = getattr(lm, "model", None)
    config = getattr(model, "generation_config", None)
    if config is not None and hasattr(config, "to_dict"):
        values = config.to_dict()
        return {k: values[k] for k in SAMPLING_KEYS if k in values}
    if type(model).__module__.startswith("vllm"):
        from vllm import SamplingParams

        params = SamplingParams()
        return {k: getattr(params, k) for k in SAMPLING_KEYS if hasattr(params, k)}
    return {}


def max_length(lm: Any) -> int | None:
    """Model ``lm``'s maximum length (prompt + generation) as lm-eval uses it, or None."""
    try:
        value = getattr(lm, "max_length", None)
    except (AttributeError, TypeError, ValueError):
        return None
    return int(value) if isinstance(value, int) and value > 0 else None


def request_cache_key(prompt: str, gen_kwargs: dict) -> str:
    """The key lm-eval's ``--use_cache`` gives a ``generate_until`` of (prompt, gen_kwargs)."""
    from lm_eval.api.model import hash_args

    return hash_args("generate_until", (prompt, gen_kwargs))


def request_cache(lm: Any) -> Any:
    """lm-eval's request cache of model ``lm`` (``lm.cache_hook.dbdict``), or None."""
    return getattr(getattr(lm, "cache_hook", None), "dbdict", None)


# count drops the first ones); ``LocalCompletionsAPI`` sends unknown gen_kwargs as request
# fields; ``VLLM.modify_gen_kwargs`` decodes with VLLM_DECODING.
VLLM_DECODING = {"skip_special_tokens": False, "spaces_between_special_tokens": False}


def _is_model_class(lm: Any, module: str, name: str) -> bool:
    return any(c.__module__ == module and c.__name__ == name for c in type(lm).__mro__)


def vllm_engine_args(lm: Any) -> dict[str, Any] | None:
    """An in-process ``--model vllm``'s engine args (``VLLM.model_args``) and
    ``data_parallel_size``; None for other models.

    Args:
        lm: the lm-eval model.
    """
    if not _is_model_class(lm, "lm_eval.models.vllm_causallms", "VLLM"):
        return None
    return {**(getattr(lm, "model_args", None) or {}), "data_parallel_size": int(lm.data_parallel_size)}


def is_local_completions(lm: Any) -> bool:
    """Whether ``lm`` is ``--model local-completions`` (not its OpenAI API subclass).

    Args:
        lm: the lm-eval model.
    """
    module = "lm_eval.models.openai_completions"
    return _is_model_class(lm, module, "LocalCompletionsAPI") and not _is_model_class(
        lm, module, "OpenAICompletionsAPI")
