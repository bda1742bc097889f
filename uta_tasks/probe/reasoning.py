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
        form: ``think``, ``harmony``, ``unclosed`` (reasoning that never reached its end
            marker: no final answer) or ``plain``.
        prefix: the text before the final answer, as generated (reasoning and its markers),
            so that ``prefix + final`` rebuilds the answer with a changed final part.
    """

    reasoning: str
    final: str
    form: str
    prefix: str = ""

    @property
    def unclosed(self) -> bool:
        """True when the reasoning never closed, so there is no final answer."""
        return self.form == "unclosed"


def _lead(text: str) -> int:
    return len(text) - len(text.lstrip())


def split(text: str, prompt: str = "") -> Split:
    """Split a generation into reasoning and final answer.

    Args:
        text: the pass-1 generation as the backend returned it.
        prompt: the pass-1 prompt (a template may open ``<think>`` in the generation prompt).
    """
    if "</think>" in text:
        head, _, tail = text.rpartition("</think>")
        start = len(head) + len("</think>") + _lead(tail)
        return Split(head.replace("<think>", "", 1).strip(), tail.strip(), "think", text[:start])
    finals = list(_HARMONY_FINAL.finditer(text))
    match = finals[-1] if finals else None
    if match is not None:
        rest = text[match.end() :]
        final = _HARMONY_TAIL.sub("", rest)
        return Split(text[: match.start()], final.strip(), "harmony", text[: match.end() + _lead(rest)])
    stripped = _HARMONY_STRIPPED.match(text)
    if stripped:
        rest = text[stripped.end() :]
        return Split(
            stripped.group(0)[: -len("assistantfinal")], rest.strip(), "harmony", text[: stripped.end() + _lead(rest)]
        )
    opened = "<think>" in text or prompt.rstrip().endswith("<think>")
    analysis = "<|channel|>analysis" in text or prompt.rstrip().endswith("<|channel|>analysis<|message|>")
    if opened or analysis:
        return Split(text, "", "unclosed", text)
    return Split("", text, "plain", "")
