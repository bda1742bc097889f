"""Separate a reasoning model's thinking from its final answer.

Accuracy is always computed on the final answer. What pass 2 shows as history depends on
the role switch: ``raw`` hands the whole generation to the model's own template (which
keeps or drops earlier reasoning as the model was trained to), ``final`` shows only the
final answer (harmony's ``final`` channel, GLM's answer after ``</think>``).

Recognised forms:
* ``<think> ... </think> answer`` and ``... </think> answer`` (the opening tag is often in
  the generation prompt, e.g. Qwen3 and GLM);
* harmony ``<|channel|>analysis<|message|>...<|end|>...<|channel|>final<|message|>answer``
  and the same with special tokens stripped by the backend (``analysis...assistantfinal answer``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HARMONY_FINAL = re.compile(r"<\|channel\|>\s*final\s*<\|message\|>", re.S)
_HARMONY_STRIPPED = re.compile(r"^analysis.*?assistantfinal", re.S)
_HARMONY_TAIL = re.compile(r"<\|(end|return|call)\|>.*\Z", re.S)


@dataclass(frozen=True)
class Split:
    """A generation split into its parts.

    Attributes:
        reasoning: the thinking text ("" when there was none).
        final: the final answer, reasoning removed.
        form: ``think``, ``harmony`` or ``plain``.
    """

    reasoning: str
    final: str
    form: str


def split(text: str) -> Split:
    """Split a generation into reasoning and final answer.

    Args:
        text: the pass-1 generation as the backend returned it.
    """
    if "</think>" in text:
        head, _, tail = text.rpartition("</think>")
        return Split(head.replace("<think>", "", 1).strip(), tail.strip(), "think")
    finals = list(_HARMONY_FINAL.finditer(text))
    match = finals[-1] if finals else None
    if match is not None:
        final = _HARMONY_TAIL.sub("", text[match.end() :])
        return Split(text[: match.start()], final.strip(), "harmony")
    stripped = _HARMONY_STRIPPED.match(text)
    if stripped:
        return Split(stripped.group(0)[: -len("assistantfinal")], text[stripped.end() :].strip(), "harmony")
    return Split("", text, "plain")
