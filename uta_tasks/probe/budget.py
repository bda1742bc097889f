"""Token budgets of the two passes: never let lm-eval cut a prompt.

lm-eval's ``hf`` and ``vllm`` models reserve ``max_gen_toks`` out of the model's maximum
length and cut the prompt from the left to fit the rest, without a word. Before each
pass, every prompt is measured with the model's tokenizer and its budget becomes
``min(max_gen_toks, max_length - prompt tokens)``: a long default (32768, for reasoning
models) is capped per request instead of eating the prompt. A prompt that leaves no room
at all is over-long: by default the run stops with an error naming the setting; with
``overlong: drop`` the doc is dropped from the metrics and counted (``overlong``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

OVERLONG_CHOICES = ("error", "drop")
# Tokens a backend may add around the prompt (BOS) that the count below may miss.
_MARGIN = 1


class OverlongPromptError(RuntimeError):
    """A prompt does not fit the model's maximum length; the message names the setting."""


@dataclass(frozen=True)
class Fitted:
    """A request's generation settings with its budget fitted, or None when over-long.

    Attributes:
        gen_kwargs: the settings sent to the backend (``max_gen_toks`` capped), None when dropped.
        prompt_tokens: tokens of the prompt.
        budget: the ``max_gen_toks`` sent (0 when dropped).
    """

    gen_kwargs: dict | None
    prompt_tokens: int
    budget: int


def count_tokens(tokenizer: Any, text: str) -> int:
    """Tokens of a rendered prompt, special tokens included.

    Args:
        tokenizer: the model's tokenizer.
        text: the prompt.
    """
    return len(tokenizer(text, add_special_tokens=True)["input_ids"]) + _MARGIN


def fit(
    prompts: list[tuple[str, dict]], tokenizer: Any, max_length: int | None, *, what: str, policy: str, tasks: list[str]
) -> list[Fitted]:
    """Fit every request's budget into the model's maximum length.

    Args:
        prompts: ``(prompt, gen_kwargs)`` per request.
        tokenizer: the model's tokenizer.
        max_length: the model's maximum length (None: unknown, nothing is capped).
        what: ``pass 1`` or ``pass 2`` (for messages).
        policy: ``error`` or ``drop`` (metadata ``overlong``).
        tasks: the task of each request (for messages).
    """
    out = []
    over: list[int] = []
    for i, (prompt, gen_kwargs) in enumerate(prompts):
        requested = int(gen_kwargs.get("max_gen_toks", 256))
        n = count_tokens(tokenizer, prompt)
        if max_length is None:
            out.append(Fitted(gen_kwargs, n, requested))
            continue
        budget = min(requested, max_length - n)
        if budget < 1:
            over.append(i)
            out.append(Fitted(None, n, 0))
        else:
            out.append(Fitted({**gen_kwargs, "max_gen_toks": budget}, n, budget))
    if over and policy != "drop":
        worst = max(out[i].prompt_tokens for i in over)
        raise OverlongPromptError(
            f"{tasks[over[0]]}: {len(over)} {what} prompt(s) do not fit the model's maximum length {max_length} "
            f"(longest {worst} tokens), and lm-eval would cut them from the left without a word. Raise the model's "
            f"maximum length (--model_args max_model_len=... for vllm, max_length=... for hf), or pass "
            '--metadata \'{"overlong": "drop"}\' to drop and count those docs.'
        )
    if over:
        log.warning("%s: dropped %d over-long %s prompt(s) (overlong=drop)", tasks[over[0]], len(over), what)
    return out
