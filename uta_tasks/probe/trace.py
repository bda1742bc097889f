"""The paper's pass 2 (``pass2_context: trace``): the existing conversation trace, then the
user header.

The paper (summary, generation steps): "Append a user-role header to the existing
conversation trace, placing it immediately after the assistant turn's <|im_end|>". So the
pass-2 prompt is, character for character::

    pass-1 prompt + a' (as generated, reasoning included) + marker + user header

The *join* (marker + user header) is read from the model's own chat template, never
written down per family: render ``[..., user S1, assistant S2, user S3]`` with sentinel
contents and take the text between S2 and S3. ChatML gives ``<|im_end|>\\n<|im_start|>user\\n``,
Llama-3 ``<|eot_id|><|start_header_id|>user<|end_header_id|>\\n\\n``, Gemma
``<end_of_turn>\\n<start_of_turn>user\\n``, Phi-3 ``<|end|>\\n<|user|>\\n``, Mistral
``</s>[INST]``, harmony ``<|end|><|start|>user<|message|>``, GLM ``<|user|>\\n`` (GLM writes
no end-of-turn marker: a turn ends where the next role token starts).

What the template does to an assistant turn that the raw generation does not: a
generation may end with the token that stopped it (harmony stops at ``<|return|>``, which
its template writes as ``<|end|>`` in history; a backend keeping special tokens may
return ChatML's ``<|im_end|>``). Such a trailing end-of-generation string is removed before
the join is appended, so the marker appears exactly once, as the template writes it.

Held-out conversations were never generated: their trace is the data's conversation as
the model's template renders it, then the same join
(:meth:`uta_tasks.probe.role_switch.RoleSwitch.own_template_prompt`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from uta_tasks.schema.probe import PASS2_CONTEXTS, Pass2Context

__all__ = ["PASS2_CONTEXTS", "Pass2Context"]

DEFAULT_PASS2_CONTEXT: Pass2Context = "trace"

_S1, _S2, _S3 = "UTAxQx1c5e", "UTAxAx9b2d", "UTAxUx4f7a"


class TraceError(ValueError):
    """The model's template cannot give the join; the message names the fix."""


@dataclass(frozen=True)
class Join:
    """What comes after an assistant turn's content in the model's own template.

    Attributes:
        marker: the end-of-turn marker the template writes after a turn (``<|im_end|>\\n``;
            ``""`` for GLM).
        header: the user role header that follows it (``<|im_start|>user\\n``).
        generation_ends: strings a raw generation may end with that the template's history
            does not keep there (the marker itself, ``<|return|>``, the EOS token...).
    """

    marker: str
    header: str
    generation_ends: tuple[str, ...]

    @property
    def text(self) -> str:
        """marker + header: the string appended after a'."""
        return self.marker + self.header

    def body(self, generation: str) -> str:
        """The generation as the trace carries it: one trailing end-of-generation string
        removed (the join writes the template's own marker instead).

        Args:
            generation: the pass-1 generation as the backend returned it.
        """
        stripped = generation.rstrip()
        for end in self.generation_ends:
            if end and stripped.endswith(end):
                return stripped[: -len(end)]
        return generation

    def prompt(self, pass1_prompt: str, assistant_turn: str) -> str:
        """The pass-2 prompt: pass-1 prompt + a' + marker + user header.

        Args:
            pass1_prompt: the rendered pass-1 prompt, generation prompt included.
            assistant_turn: a' (or the unperturbed body), as generated.
        """
        return pass1_prompt + assistant_turn + self.text

    def to_dict(self) -> dict[str, Any]:
        """The join as records store it."""
        return {"marker": self.marker, "header": self.header}


def _render(tokenizer: Any, messages: list[dict], args: dict[str, Any]) -> str:
    return tokenizer.apply_chat_template(messages, add_generation_prompt=False, tokenize=False, **args)


def _between(text: str, left: str, right: str) -> str:
    if text.count(left) != 1 or text.count(right) != 1 or text.index(left) > text.index(right):
        raise TraceError(
            "pass2_context=trace: the model's chat template did not render a user turn after an assistant turn "
            "(each exactly once), so the end-of-turn marker and user header cannot be read from it. Use "
            "--metadata '{\"pass2_context\": \"template\"}' to render pass 2 through the template instead."
        )
    return text[text.index(left) + len(left) : text.index(right)]


def derive(tokenizer: Any, template_args: dict[str, Any] | None = None, stops: tuple[str, ...] = ()) -> Join:
    """Read the join from the model's own chat template.

    Args:
        tokenizer: the model's tokenizer with ``chat_template``.
        template_args: the chat-template arguments of the model object.
        stops: the role switch's end-of-turn strings (harmony's ``<|return|>`` among them).
    """
    args = dict(template_args or {})
    convo = [{"role": "user", "content": _S1}, {"role": "assistant", "content": _S2},
             {"role": "user", "content": _S3}]
    join = _between(_render(tokenizer, convo, args), _S2, _S3)
    marker = _marker(tokenizer, join, args)
    eos = getattr(tokenizer, "eos_token", None) or ""
    ends = tuple(dict.fromkeys(e for e in (marker, marker.strip(), eos, *stops) if e))
    return Join(marker=marker, header=join[len(marker):], generation_ends=ends)


def _marker(tokenizer: Any, join: str, args: dict[str, Any]) -> str:
    """Split the join into marker and header: the marker is what the template writes after
    a user turn too (ChatML, Llama-3, Gemma, harmony), else the EOS token (Mistral), else what
    precedes the user header as the template writes it at the start of a conversation
    (Phi-3 ``<|end|>\n``; GLM: nothing)."""
    single = _render(tokenizer, [{"role": "user", "content": _S1}], args)
    before, after = single[: single.index(_S1)], single[single.index(_S1) + len(_S1):]
    eos = getattr(tokenizer, "eos_token", None) or ""
    for candidate in (after, eos):
        if candidate and len(candidate) < len(join) and join.startswith(candidate):
            return candidate
    common = 0
    while common < min(len(join), len(before)) and join[-1 - common] == before[-1 - common]:
        common += 1
    return join[: len(join) - common]


@lru_cache(maxsize=8)
def _cached(tokenizer_id: int, args_key: str, stops: tuple[str, ...], tokenizer: Any) -> Join:
    return derive(tokenizer, json.loads(args_key), stops)


def for_model(tokenizer: Any, template_args: dict[str, Any] | None = None, stops: tuple[str, ...] = ()) -> Join:
    """Cached :func:`derive` per tokenizer object, template arguments and stops.

    Args:
        tokenizer: the model's tokenizer.
        template_args: its chat-template arguments.
        stops: the role switch's end-of-turn strings.
    """
    return _cached(id(tokenizer), json.dumps(template_args or {}, sort_keys=True), tuple(stops), tokenizer)
