"""A scripted lm-eval model: a real tokenizer and chat template, and a ``generate_until``
that answers from a script instead of a network. It exercises every line of the probe
that a real model does, except the weights, in milliseconds and without torch.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from lm_eval.api.model import LM

TOKENIZERS = Path(__file__).resolve().parents[1] / "fixtures" / "tokenizers"
TEMPLATES = Path(__file__).resolve().parents[1] / "fixtures" / "chat_templates"

Script = Callable[[str, dict], str]


def load_tokenizer(name: str = "smollm2", template: str | None = None) -> Any:
    """A tokenizer shipped under ``tests/fixtures/tokenizers``, optionally with another chat
    template from ``tests/fixtures/chat_templates`` (``qwen_think``, ``harmony``, ``glm``).

    Args:
        name: its folder.
        template: a template file name without ``.jinja``.
    """
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(TOKENIZERS / name))
    if template is not None:
        tokenizer.chat_template = (TEMPLATES / f"{template}.jinja").read_text()
    return tokenizer


def chatml_script(prompt: str, gen_kwargs: dict) -> str:
    """Default script for ChatML: a numbered answer in pass 1, a question about it in pass 2.

    Args:
        prompt: the rendered prompt.
        gen_kwargs: its settings.
    """
    if prompt.endswith("<|im_start|>assistant\n"):
        q = prompt.rsplit("<|im_start|>user\n", 1)[1].split("<|im_end|>", 1)[0]
        words = " ".join(f"w{i}" for i in range(60))
        return f"Answer to [{q[:30]}]: {words} The answer is 42."
    if prompt.endswith("<|im_start|>user\n"):
        shown = prompt.rsplit("<|im_start|>assistant\n", 1)[1].split("<|im_end|>", 1)[0]
        return f"Why does it end with '{shown[-12:]}'?"
    raise AssertionError(f"unexpected prompt tail: {prompt[-40:]!r}")


class ScriptedLM(LM):
    """An lm-eval model whose ``generate_until`` calls a script.

    Args:
        tokenizer: a Hugging Face tokenizer with a chat template.
        script: ``(prompt, gen_kwargs) -> text``.
    """

    def __init__(self, tokenizer: Any, script: Script = chatml_script, **attributes: Any) -> None:
        super().__init__()
        self.tokenizer = tokenizer
        self.script = script
        self.calls: list[list[tuple[str, dict]]] = []
        # lm-eval model attributes the probe reads: chat_template_args, enable_thinking,
        # think_end_token, max_length.
        for name, value in attributes.items():
            setattr(self, name, value)

    def generate_until(self, requests: list, disable_tqdm: bool = False) -> list[str]:
        batch = [(r.args[0], dict(r.args[1])) for r in requests]
        self.calls.append(batch)
        return [self.script(prompt, kwargs) for prompt, kwargs in batch]

    def loglikelihood(self, requests: list, disable_tqdm: bool = False) -> list:
        raise NotImplementedError("the uta tasks only generate")

    def loglikelihood_rolling(self, requests: list, disable_tqdm: bool = False) -> list:
        raise NotImplementedError("the uta tasks only generate")
