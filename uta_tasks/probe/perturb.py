"""The functions of the paper's perturbations of the assistant turn (the paper's summary,
"Controlled Perturbations"), the positive controls; :mod:`uta_tasks.probe.perturbations`
registers them.

* ``none`` - a' = a.
* ``trunc`` - remove ``max(25, ceil(0.25 * n))`` tokens from the end of a, counted with the
  model's own tokenizer; the ``truncate_scope`` setting says what a is (the whole response,
  reasoning included, by default; or the final answer only). The cut falls on a token boundary and never inside a character:
  a' is the text of a up to the first character of the first removed token. An answer of
  25 tokens or fewer loses everything (a' = ""); such docs are counted as
  ``trunc_emptied``.
* ``question`` - a' = a + " " + cue, the cue drawn from a versioned pool
  ``templates/perturb/<pool>.txt`` (the ``question_pool`` setting, default
  ``question_pool_v2``) by a hash of (seed, q): the same doc gets the same cue in every
  run and process. The paper shows two of its cues ("What do you think?", "Any
  questions?"); ``question_pool_v2`` is a reconstruction around them: open-ended
  conversational cues, none inviting a bare yes or no. ``question_pool_v1`` (yes/no
  offers such as "Would you like me to go into more detail?" among them) stays
  selectable.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from uta_tasks.templates import TEMPLATES_DIR

TruncateScope = Literal["response", "final_answer"]
# ``response``: n counts every token of a, reasoning included (the paper: "n_tokens is the
# total number of tokens in the assistant response"); ``final_answer``: the final answer only.
TRUNCATE_SCOPES: tuple[TruncateScope, ...] = ("response", "final_answer")
DEFAULT_TRUNCATE_SCOPE: TruncateScope = "response"
DEFAULT_QUESTION_POOL = "question_pool_v2"
_POOL_DIR = TEMPLATES_DIR / "perturb"
MIN_TRUNC_TOKENS = 25


@dataclass(frozen=True)
class Perturbed:
    """The assistant turn as shown in pass 2.

    Attributes:
        text: a'.
        n_tokens: tokens of a (trunc only).
        removed_tokens: tokens removed from the end (trunc only).
        emptied: the whole answer was removed (trunc of an answer of <= 25 tokens).
        scope: the ``truncate_scope`` the cut was made under (trunc only).
        cue: the appended question (question only).
        question_pool: the pool the cue was drawn from (question only).
    """

    text: str
    n_tokens: int | None = None
    removed_tokens: int | None = None
    emptied: bool = False
    scope: str | None = None
    cue: str | None = None
    question_pool: str | None = None

    @property
    def truncation(self) -> dict[str, Any] | None:
        """The record's ``truncation`` block (``{scope, n_tokens, removed_tokens, emptied}``),
        None unless tokens were removed by count."""
        if self.n_tokens is None:
            return None
        return {"scope": self.scope, "n_tokens": self.n_tokens, "removed_tokens": self.removed_tokens,
                "emptied": self.emptied}


@dataclass(frozen=True)
class Context:
    """What a perturbation function may read besides the text it perturbs.

    Attributes:
        question: the user turn q (seeds a reproducible draw, such as the ``question`` cue).
        tokenizer: the model's tokenizer; None unless the registry entry says ``needs_tokenizer``.
        seed: the ``question_seed`` setting.
        pool: the ``question_pool`` setting.
        truncate_scope: the ``truncate_scope`` setting (recorded by ``trunc``).
    """

    question: str
    tokenizer: Any = None
    seed: int = 0
    pool: str = DEFAULT_QUESTION_POOL
    truncate_scope: str = DEFAULT_TRUNCATE_SCOPE


def question_pools() -> tuple[str, ...]:
    """The names of the cue pools shipped in ``templates/perturb`` (``question_pool_v1``, ...)."""
    return tuple(sorted(path.stem for path in _POOL_DIR.glob("question_pool_*.txt")))


@lru_cache(maxsize=8)
def question_pool(pool: str = DEFAULT_QUESTION_POOL) -> tuple[str, ...]:
    """The generic conversational cues of one pool, one per line.

    Args:
        pool: the ``question_pool`` setting, a name from :func:`question_pools`.
    """
    if pool not in question_pools():
        raise ValueError(f"question_pool={pool!r} is not one of {', '.join(question_pools())}; set one of those")
    path = _POOL_DIR / f"{pool}.txt"
    return tuple(line.strip() for line in path.read_text().splitlines() if line.strip())


def draw_cue(question: str, seed: int = 0, pool: str = DEFAULT_QUESTION_POOL) -> str:
    """Pick the cue for one doc, reproducibly.

    Args:
        question: the user turn q (identifies the doc across tasks and runs).
        seed: the ``question_seed`` setting.
        pool: the ``question_pool`` setting.
    """
    digest = hashlib.sha256(f"{seed}\x00{question}".encode()).digest()
    cues = question_pool(pool)
    return cues[int.from_bytes(digest[:8], "big") % len(cues)]


def tokens_to_remove(n_tokens: int) -> int:
    """``max(25, ceil(0.25 * n))``, capped at n.

    Args:
        n_tokens: length of the answer in the model's tokens.
    """
    return min(n_tokens, max(MIN_TRUNC_TOKENS, math.ceil(0.25 * n_tokens)))


def truncate(answer: str, tokenizer: Any, scope: str = DEFAULT_TRUNCATE_SCOPE) -> Perturbed:
    """Cut the end of ``answer`` by :func:`tokens_to_remove` tokens.

    Args:
        answer: the assistant turn a.
        tokenizer: the model's (fast) Hugging Face tokenizer.
        scope: the ``truncate_scope`` setting, recorded.
    """
    enc = tokenizer(answer, add_special_tokens=False, return_offsets_mapping=True)
    offsets = enc["offset_mapping"]
    n = len(offsets)
    remove = tokens_to_remove(n)
    keep = n - remove
    cut = offsets[keep][0] if keep < n else len(answer)
    return Perturbed(
        text=answer[:cut], n_tokens=n, removed_tokens=remove, emptied=keep == 0, scope=scope
    )


def append_cue(answer: str, question: str, seed: int = 0, pool: str = DEFAULT_QUESTION_POOL) -> Perturbed:
    """a' = a + " " + the doc's cue (:func:`draw_cue`).

    Args:
        answer: the assistant turn a.
        question: the user turn q (seeds the cue).
        seed: the ``question_seed`` setting.
        pool: the ``question_pool`` setting.
    """
    cue = draw_cue(question, seed, pool)
    return Perturbed(text=f"{answer} {cue}", cue=cue, question_pool=pool)


# ---- the paper's three as registered (``(text, context) -> Perturbed``, uta_tasks.probe.perturbations)


def unchanged(text: str, context: Context) -> Perturbed:
    """``none``: a' = a."""
    return Perturbed(text=text)


def trunc(text: str, context: Context) -> Perturbed:
    """``trunc``: :func:`truncate` with the model's tokenizer, the scope recorded."""
    return truncate(text, context.tokenizer, scope=context.truncate_scope)


def question(text: str, context: Context) -> Perturbed:
    """``question``: :func:`append_cue` from the task's pool and seed."""
    return append_cue(text, context.question, seed=context.seed, pool=context.pool)
