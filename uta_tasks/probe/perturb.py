"""Perturbations of the assistant turn (PROTOCOL section 3), the positive controls.

* ``none`` - a' = a.
* ``trunc`` - remove ``max(25, ceil(0.25 * n))`` tokens from the end of a, counted with the
  model's own tokenizer. The cut falls on a token boundary and never inside a character:
  a' is the text of a up to the first character of the first removed token. An answer of
  25 tokens or fewer loses everything (a' = ""); such docs are counted as
  ``trunc_emptied``.
* ``question`` - a' = a + " " + cue, the cue drawn from ``templates/perturb/question_pool_v1.txt``
  by a hash of (seed, q): the same doc gets the same cue in every run and process.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from uta_tasks.templates import TEMPLATES_DIR

PERTURBATIONS = ("none", "trunc", "question")
QUESTION_POOL_VERSION = "question_pool_v1"
MIN_TRUNC_TOKENS = 25


@dataclass(frozen=True)
class Perturbed:
    """The assistant turn as shown in pass 2.

    Attributes:
        text: a'.
        n_tokens: tokens of a (trunc only).
        removed_tokens: tokens removed from the end (trunc only).
        emptied: the whole answer was removed (trunc of an answer of <= 25 tokens).
        cue: the appended question (question only).
    """

    text: str
    n_tokens: int | None = None
    removed_tokens: int | None = None
    emptied: bool = False
    cue: str | None = None


@lru_cache(maxsize=1)
def question_pool() -> tuple[str, ...]:
    """The generic conversational cues, one per line."""
    path = TEMPLATES_DIR / "perturb" / f"{QUESTION_POOL_VERSION}.txt"
    return tuple(line.strip() for line in path.read_text().splitlines() if line.strip())


def draw_cue(question: str, seed: int = 0) -> str:
    """Pick the cue for one doc, reproducibly.

    Args:
        question: the user turn q (identifies the doc across tasks and runs).
        seed: the ``question_seed`` setting.
    """
    digest = hashlib.sha256(f"{seed}\x00{question}".encode()).digest()
    pool = question_pool()
    return pool[int.from_bytes(digest[:8], "big") % len(pool)]


def tokens_to_remove(n_tokens: int) -> int:
    """``max(25, ceil(0.25 * n))``, capped at n.

    Args:
        n_tokens: length of the answer in the model's tokens.
    """
    return min(n_tokens, max(MIN_TRUNC_TOKENS, math.ceil(0.25 * n_tokens)))


def truncate(answer: str, tokenizer: Any) -> Perturbed:
    """Cut the end of ``answer`` by :func:`tokens_to_remove` tokens.

    Args:
        answer: the assistant turn a.
        tokenizer: the model's (fast) Hugging Face tokenizer.
    """
    enc = tokenizer(answer, add_special_tokens=False, return_offsets_mapping=True)
    offsets = enc["offset_mapping"]
    n = len(offsets)
    remove = tokens_to_remove(n)
    keep = n - remove
    cut = offsets[keep][0] if keep < n else len(answer)
    return Perturbed(
        text=answer[:cut], n_tokens=n, removed_tokens=remove, emptied=keep == 0
    )


def perturb(kind: str, answer: str, *, tokenizer: Any, question: str, seed: int = 0) -> Perturbed:
    """Apply one perturbation.

    Args:
        kind: ``none``, ``trunc`` or ``question``.
        answer: the assistant turn a.
        tokenizer: the model's tokenizer (used by ``trunc``).
        question: the user turn q (seeds the ``question`` cue).
        seed: the ``question_seed`` setting.
    """
    if kind == "none":
        return Perturbed(text=answer)
    if kind == "trunc":
        return truncate(answer, tokenizer)
    if kind == "question":
        cue = draw_cue(question, seed)
        return Perturbed(text=f"{answer} {cue}", cue=cue)
    raise ValueError(f"perturbation {kind!r} is not one of {', '.join(PERTURBATIONS)}")
