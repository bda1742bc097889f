"""Role switch: the pass-2 prompt is the model's own rendering of ``[user q, assistant a']``
as it would appear in a real conversation, followed by the *user* role header.

Three ways to get it, chosen by the ``role_switch`` setting (``auto`` by default):

* ``sentinel`` - render ``[..., assistant a', user SENTINEL]`` with the tokenizer's own chat
  template (no generation prompt) and cut at the sentinel. Works for any template that
  renders a user turn after an assistant turn (ChatML, Llama-3, Gemma, Qwen, ...).
* ``harmony`` - gpt-oss: explicit jinja2 template in ``templates/role_switch/harmony.jinja``;
  the assistant history carries the ``final`` channel only; the user turn ends at ``<|end|>``.
* ``glm4`` - GLM-4.x: explicit template ``templates/role_switch/glm4.jinja``; a turn ends
  where the next role token starts.

``auto`` picks harmony or glm4 from markers in the model's chat template, else sentinel.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from uta_tasks.templates import render

SENTINEL = "UTAxSENTINELx7f3a9c"
ROLE_SWITCHES = ("auto", "sentinel", "harmony", "glm4")

# Stop strings of the explicit families: a user turn ends where any of these starts.
_EXPLICIT_STOPS = {
    "harmony": ["<|end|>", "<|return|>", "<|start|>", "<|call|>"],
    "glm4": ["<|assistant|>", "<|user|>", "<|observation|>", "<|system|>", "<|endoftext|>"],
}


class RoleSwitchError(ValueError):
    """The model's chat template cannot produce a user turn; the message names the fix."""


@dataclass(frozen=True)
class RoleSwitch:
    """How one model's conversation is rendered for both passes.

    Attributes:
        name: ``sentinel``, ``harmony`` or ``glm4``.
        history: ``raw`` (the template decides what an earlier assistant turn keeps) or
            ``final`` (the history carries the final answer, reasoning removed).
        stop: strings that end a generated user turn.
        tokenizer: the model's tokenizer.
        template_args: the chat-template arguments the model object holds
            (``enable_thinking``, ``reasoning_effort``, ...), used in both passes.
    """

    name: str
    history: str
    stop: tuple[str, ...]
    tokenizer: Any
    template_args: dict[str, Any] = field(default_factory=dict)

    def _render(self, messages: list[dict], add_generation_prompt: bool) -> str:
        return self.tokenizer.apply_chat_template(
            messages, add_generation_prompt=add_generation_prompt, tokenize=False, **self.template_args
        )

    def assistant_prompt(self, messages: list[dict]) -> str:
        """Pass-1 prompt: ``messages`` plus the assistant generation prompt.

        Args:
            messages: the conversation up to and including the user turn q.
        """
        return self._render(messages, add_generation_prompt=True)

    def assistant_header(self) -> str:
        """The assistant role header the generation prompt writes, without the thinking block
        some templates open after it (``<|im_start|>assistant``, ``<|start|>assistant``,
        ``<|assistant|>``); "" when the template writes none."""
        probe = [{"role": "user", "content": SENTINEL}]
        with_prompt, without = self._render(probe, True), self._render(probe, False)
        header = with_prompt[len(os.path.commonprefix([with_prompt, without])):]  # Phi-3 ends `without` with EOS
        return header.split("<think>", 1)[0].strip()

    def _harmony_prefix(self, messages: list[dict]) -> str | None:
        """Everything pass 1 rendered before the first user turn (system header with its
        reasoning level and date, developer message), or None when the model's template
        does not render a harmony system header."""
        text = self._render(messages, add_generation_prompt=False)
        start = text.find("<|start|>user")
        return text[:start] if text.startswith("<|start|>system<|message|>") and start > 0 else None

    def own_template_prompt(self, messages: list[dict], answer: str) -> str:
        """``messages`` + assistant ``answer`` + the user header, all rendered by the model's
        own template (cut where a sentinel user message starts).

        Args:
            messages: the conversation up to and including the user turn q.
            answer: the assistant turn as the history should carry it.
        """
        history = [*messages, {"role": "assistant", "content": answer}, {"role": "user", "content": SENTINEL}]
        text = self._render(history, add_generation_prompt=False)
        if text.count(SENTINEL) != 1:
            raise RoleSwitchError(
                "The model's chat template did not render a user turn after the "
                "assistant turn exactly once; force an explicit template with "
                "--metadata '{\"role_switch\": \"harmony\"}' or '\"glm4\"'."
            )
        return text[: text.index(SENTINEL)]

    def user_prompt(self, messages: list[dict], answer: str) -> str:
        """Pass-2 prompt: ``messages`` + assistant ``answer`` + the user role header.

        Args:
            messages: the conversation up to and including the user turn q.
            answer: the assistant turn a' as the history should carry it.
        """
        history = [*messages, {"role": "assistant", "content": answer}]
        if self.name == "sentinel":
            return self.own_template_prompt(messages, answer)
        if self.name == "harmony":
            return render("role_switch/harmony.jinja", messages=history, prefix=self._harmony_prefix(messages))
        return render(f"role_switch/{self.name}.jinja", messages=history)


def _template_text(tokenizer: Any) -> str:
    template = getattr(tokenizer, "chat_template", None)
    if isinstance(template, dict):  # some tokenizers keep several named templates
        template = template.get("default") or next(iter(template.values()), None)
    return template or ""


def detect(tokenizer: Any) -> str:
    """Pick the role-switch family from the model's chat template.

    Args:
        tokenizer: a Hugging Face tokenizer with ``chat_template``.
    """
    text = _template_text(tokenizer)
    if "<|channel|>" in text and "<|start|>" in text:
        return "harmony"
    # Phi-3 shares <|user|>/<|assistant|> but ends each turn with <|end|>; GLM writes no end marker.
    bare_roles = "<|user|>" in text and "<|assistant|>" in text and "<|im_start|>" not in text and "<|end|>" not in text
    if "[gMASK]" in text or bare_roles:
        return "glm4"
    return "sentinel"


def _sentinel_end_of_turn(tokenizer: Any, template_args: dict[str, Any]) -> str:
    """The string the template writes after a user turn's content, stripped."""
    text = tokenizer.apply_chat_template(
        [{"role": "user", "content": SENTINEL}], add_generation_prompt=False, tokenize=False, **template_args
    )
    tail = text[text.index(SENTINEL) + len(SENTINEL) :].strip()
    eos = getattr(tokenizer, "eos_token", None) or ""
    if eos and tail.endswith(eos) and tail != eos:  # Phi-3 ends a conversation with EOS after <|end|>
        tail = tail[: -len(eos)].strip()
    return tail or eos


def build(tokenizer: Any, choice: str = "auto", template_args: dict[str, Any] | None = None) -> RoleSwitch:
    """Make the role switch for a model, failing before any generation when impossible.

    Args:
        tokenizer: the model's tokenizer (``lm.tokenizer`` for ``hf`` and ``vllm``).
        choice: ``auto``, ``sentinel``, ``harmony`` or ``glm4`` (metadata ``role_switch``).
        template_args: the model object's chat-template arguments.
    """
    args = dict(template_args or {})
    if choice not in ROLE_SWITCHES:
        raise RoleSwitchError(
            f"role_switch={choice!r} is not one of {', '.join(ROLE_SWITCHES)}; "
            "set it with --metadata '{\"role_switch\": \"auto\"}'."
        )
    if not _template_text(tokenizer):
        name = getattr(tokenizer, "name_or_path", "this model")
        raise RoleSwitchError(
            f"{name} has no chat template, so it has no user role to continue under. "
            "The uta tasks need an instruct/chat model whose tokenizer defines chat_template."
        )
    name = detect(tokenizer) if choice == "auto" else choice
    if name == "sentinel":
        eot = _sentinel_end_of_turn(tokenizer, args)
        return RoleSwitch("sentinel", "raw", (eot,) if eot else (), tokenizer, args)
    return RoleSwitch(name, "final", tuple(_EXPLICIT_STOPS[name]), tokenizer, args)


@lru_cache(maxsize=8)
def _cached(tokenizer_id: int, choice: str, args_key: str, tokenizer: Any) -> RoleSwitch:
    return build(tokenizer, choice, json.loads(args_key))


def for_model(tokenizer: Any, choice: str = "auto", template_args: dict[str, Any] | None = None) -> RoleSwitch:
    """Cached :func:`build` per tokenizer object and template arguments.

    Args:
        tokenizer: the model's tokenizer.
        choice: the ``role_switch`` setting.
        template_args: the model object's chat-template arguments.
    """
    return _cached(id(tokenizer), choice, json.dumps(template_args or {}, sort_keys=True), tokenizer)
