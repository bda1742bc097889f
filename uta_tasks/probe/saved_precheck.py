"""``answers_from`` checked before the model loads: under ``uta-eval``, every request's saved
answer goes through the probe's own pass-1 checks (:func:`uta_tasks.probe.hook.resolve_one`,
which calls :func:`uta_tasks.probe.saved.check`: the model's chat template in the prompt, the
same temperature) with only the model's tokenizer and chat template. An answer that ran into its
saved budget is not refused: pass 1 continues it (:func:`uta_tasks.probe.saved.continuation`).

``--model hf`` and ``--model vllm`` both render with the Hugging Face tokenizer of
``--model_args tokenizer=...`` (else ``pretrained=...``), which is loaded here on its own; a
tokenizer that cannot be loaded that way leaves these checks to the probe's first step, after
the model loads and before anything generates.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from uta_tasks.probe import hook, judging
from uta_tasks.schema.probe import ProbeSpec

log = logging.getLogger(__name__)

# --model_args keys that choose the tokenizer's files (lm-eval's hf and vllm read the same).
_REVISION_KEYS = ("tokenizer_revision", "revision")


def tokenizer_of(model_args: Mapping[str, Any]) -> Any | None:
    """The Hugging Face tokenizer the model of ``--model_args`` renders with, or None (and a log
    line saying the checks wait for the model) when it cannot be loaded on its own.

    Args:
        model_args: ``--model_args``, parsed.
    """
    name = model_args.get("tokenizer") or model_args.get("pretrained")
    if not name:
        return None
    try:
        from transformers import AutoTokenizer
    except ImportError:
        log.info("answers_from: transformers is not installed; the saved prompts are checked after the model loads")
        return None
    kwargs: dict[str, Any] = {"trust_remote_code": bool(model_args.get("trust_remote_code", False))}
    revision = next((model_args[k] for k in _REVISION_KEYS if model_args.get(k)), None)
    if revision:
        kwargs["revision"] = str(revision)
    try:
        return AutoTokenizer.from_pretrained(str(name), **kwargs)
    except (OSError, ValueError) as exc:
        log.warning("answers_from: the tokenizer of %s could not be loaded before the model (%s); the saved prompts "
                    "are checked after the model loads, before anything generates", name, exc)
        return None


def check(arguments: Sequence[tuple], tokenizer: Any, template_args: dict[str, Any]) -> None:
    """Refuse, before the model loads, a saved answer the probe's first step would refuse.

    Args:
        arguments: the ``args`` of the uta requests (``(q, gen_kwargs, spec)``).
        tokenizer: the model's tokenizer (:func:`tokenizer_of`).
        template_args: the model's chat-template arguments.

    Raises:
        hook.ProbeError: the message names the task, the document and the fix.
    """
    decode = judging.judge_decoder()
    for args in arguments:
        spec = ProbeSpec.from_dict(args[2], decode)
        if spec.saved is not None:
            hook.resolve_one(spec, dict(args[1]), tokenizer, template_args, {})
