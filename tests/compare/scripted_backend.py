"""A test-only lm-eval backend, ``--model uta-scripted``: the scripted model of the pipeline tests
(``tests/pipeline/scripted_lm.py``: a real tokenizer and chat template, a script instead of
weights) constructed by lm-eval itself from ``--model_args``, so that a real ``uta-eval`` process
runs it. It stands for a model that cannot run here. ``sitecustomize.py`` in ``site/`` imports
this module in every process whose ``PYTHONPATH`` holds that folder.

``--model_args pretrained=NAME,tokenizer=DIR,script=KIND`` (``pretrained`` is only the model's
name; ``tokenizer`` a tokenizer folder with a chat template); the scripts:

* ``curious``: an answer, then a user turn that asks about it (the judge double calls it genuine);
* ``echo``: an answer, then the question again (not genuine);
* ``mixed``: an answer, then a question on even-numbered documents and a restatement on the others.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "pipeline"))

import lm_eval.models  # noqa: E402, F401  (lm-eval's own backends first: an early registration hides them)
from lm_eval.api.registry import register_model  # noqa: E402
from scripted_lm import ScriptedLM, load_tokenizer  # noqa: E402

ASSISTANT, USER, END = "<|im_start|>assistant\n", "<|im_start|>user\n", "<|im_end|>"
NAME = "uta-scripted"


def _question(prompt: str, turns_after: int) -> str:
    """The question of the last user turn before ``turns_after`` user headers."""
    return prompt.rsplit(USER, turns_after + 1)[1].split(END, 1)[0]


def answer(kind: str, question: str) -> str:
    """Pass 1 of a script: an answer that names the question's length."""
    return f"Reading {len(question)} characters, the answer is {len(question) % 97}."


def user_turn(kind: str, prompt: str) -> str:
    """Pass 2 of a script (the prompt ends with the user header)."""
    question = _question(prompt, 1)
    shown = prompt.rsplit(ASSISTANT, 1)[1].split(END, 1)[0]
    parity = int(hashlib.sha256(question.encode()).hexdigest(), 16) % 2
    if kind == "curious" or (kind == "mixed" and parity == 0):
        return f"Why does it end with {shown[-8:]!r}?"
    return question[:200].replace("?", ".")


def script_of(kind: str):
    def script(prompt: str, gen_kwargs: dict) -> str:
        if prompt.endswith(ASSISTANT):
            return answer(kind, _question(prompt, 0))
        if prompt.endswith(USER):
            return user_turn(kind, prompt)
        raise AssertionError(f"unexpected prompt tail {prompt[-40:]!r}")
    return script


@register_model(NAME)
class ScriptedBackend(ScriptedLM):
    """The scripted model as lm-eval builds a backend (``create_from_arg_string``)."""

    def __init__(self, pretrained: str = "scripted", tokenizer: str = "smollm2", script: str = "curious",
                 **_ignored: Any) -> None:
        folder = Path(tokenizer)
        super().__init__(load_tokenizer(folder.name) if not folder.is_dir() else _tokenizer(folder), script_of(script))
        self.pretrained = pretrained

    def apply_chat_template(self, chat_history: list[dict], add_generation_prompt: bool = True) -> str:
        return self.tokenizer.apply_chat_template(chat_history, tokenize=False,
                                                  add_generation_prompt=add_generation_prompt)

    def chat_template(self, chat_template: Any = False) -> str:
        return str(self.tokenizer.chat_template)

    @property
    def tokenizer_name(self) -> str:
        return "smollm2-scripted"


def _tokenizer(folder: Path) -> Any:
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(folder))
