"""What goes into the judge (:class:`JudgeItem`) and what comes out (:class:`Verdict`,
:class:`JudgeRun`).

:class:`Verdict` is defined in :mod:`uta_tasks.schema.verdict` and importable from here."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import Any

from uta_tasks.schema.reasons import INTERNAL
from uta_tasks.schema.verdict import JUDGED, UNJUDGED, Verdict

__all__ = ["JUDGED", "ROLES", "UNJUDGED", "ItemUsage", "JudgeItem", "JudgeRun", "Verdict"]

ROLES = ("system", "user", "assistant")


@dataclass(frozen=True)
class JudgeItem:
    """One trace to judge.

    Attributes:
        context: ``(role, content)`` turns the model under test saw, ending with the
            assistant turn ``a'`` (for held-out conversations: the whole context).
            Roles are ``system``, ``user`` or ``assistant``. Lists are turned into tuples.
        user_turn: ``u``, the generated user turn to judge (judged verbatim, even if empty).
        special_tokens: Chat-template special tokens of the model under test, for the
            ``special_token`` pre-label (empty: a default list, see :mod:`.prelabel`).
            Not part of the item's identity (:meth:`fingerprint`).
    """

    context: tuple[tuple[str, str], ...]
    user_turn: str
    special_tokens: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        turns = tuple((str(role), content) for role, content in self.context)
        if not turns:
            raise ValueError("JudgeItem.context is empty: it must end with the assistant turn")
        for index, (role, content) in enumerate(turns):
            if role not in ROLES:
                raise ValueError(f"JudgeItem.context[{index}] has role {role!r}; expected one of {ROLES}")
            if not isinstance(content, str):
                raise ValueError(f"JudgeItem.context[{index}] content is {type(content).__name__}, not str")
        if turns[-1][0] != "assistant":
            raise ValueError(
                f"JudgeItem.context must end with the assistant turn a', got role {turns[-1][0]!r}"
            )
        if not isinstance(self.user_turn, str):
            raise ValueError(f"JudgeItem.user_turn is {type(self.user_turn).__name__}, not str")
        object.__setattr__(self, "context", turns)
        object.__setattr__(self, "special_tokens", tuple(str(token) for token in self.special_tokens))

    def fingerprint(self) -> str:
        """A stable digest of the context and the user turn (the dedup and cache identity).

        Returns:
            64 hex characters (computed once per item: the runner, the cache key and the
            delimiter tag all ask).
        """
        return self._digest

    @cached_property
    def _digest(self) -> str:
        payload = json.dumps(
            {"context": [list(turn) for turn in self.context], "user_turn": self.user_turn},
            ensure_ascii=False,
            separators=(",", ":"),
        )
        return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()  # any text, same digest for valid text


@dataclass
class ItemUsage:
    """What one input item cost in a run.

    Attributes:
        calls: Requests sent for it (0 when cached or a duplicate).
        rate_limited: Of those, answers that said "come back later" (429, 503 with ``Retry-After``).
        input_tokens: Prompt tokens reported by the endpoint over those requests.
        output_tokens: Completion tokens reported over those requests.
        cache_hit: True when its verdict came from the disk cache (a duplicate never
            counts: the hit, like the cost, belongs to its first occurrence).
        duplicate_of: Index of the earlier identical item that carries the cost, or None.
        prelabelled: True when a pre-label rule labelled it (no call: one judge call saved).
    """

    calls: int = 0
    rate_limited: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_hit: bool = False
    duplicate_of: int | None = None
    prelabelled: bool = False

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable copy."""
        return asdict(self)


@dataclass
class JudgeRun:
    """The result of :func:`uta_tasks.judge.judge_all`.

    Attributes:
        verdicts: One per input item, in input order.
        calls: Requests sent in this run (retries included).
        cache_hits: Distinct items answered from the disk cache.
        input_tokens: Prompt tokens over all requests of this run.
        output_tokens: Completion tokens over all requests of this run.
        per_item_usage: One :class:`ItemUsage` per input item; the cost of a
            deduplicated item is attributed to its first occurrence.
        unique_items: Distinct items after deduplication.
        not_persisted: Distinct verdicts that should have been written to the cache but
            were not (the cache could not be opened or written); a rerun pays for them.
        rate_limited: Answers that said "come back later" (retried without using up retries).
        window_peak: Largest window of requests in flight the run reached (0 without calls).
        prelabelled: Distinct items labelled by a pre-label rule: the judge calls saved.
    """

    verdicts: list[Verdict]
    calls: int = 0
    cache_hits: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    per_item_usage: list[ItemUsage] = field(default_factory=list)
    unique_items: int = 0
    not_persisted: int = 0
    rate_limited: int = 0
    window_peak: int = 0
    prelabelled: int = 0

    @property
    def unjudged(self) -> int:
        """Number of input items without a verdict."""
        return sum(1 for verdict in self.verdicts if not verdict.judged)

    def summary(self) -> dict[str, Any]:
        """The run's figures: ``items``, ``unique_items``, ``judged``, ``unjudged``,
        ``unjudged_by_reason`` (code -> count, see :mod:`uta_tasks.schema.reasons`),
        ``calls``, ``rate_limited``, ``prelabelled``, ``cache_hits``, ``input_tokens``, ``output_tokens``,
        ``not_persisted``.
        Item counts are over input items (duplicates included); the rest over requests."""
        reasons = Counter(v.reason_code or INTERNAL for v in self.verdicts if not v.judged)
        return {
            "items": len(self.verdicts),
            "unique_items": self.unique_items,
            JUDGED: sum(1 for v in self.verdicts if v.judged),
            UNJUDGED: sum(reasons.values()),
            "unjudged_by_reason": dict(sorted(reasons.items(), key=lambda pair: (-pair[1], pair[0]))),
            "calls": self.calls,
            "rate_limited": self.rate_limited,
            "prelabelled": self.prelabelled,
            "cache_hits": self.cache_hits,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "not_persisted": self.not_persisted,
        }

    def usage(self) -> dict[str, int]:
        """Run totals as a plain dict."""
        return {
            "calls": self.calls,
            "cache_hits": self.cache_hits,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "unique_items": self.unique_items,
            UNJUDGED: self.unjudged,
            "not_persisted": self.not_persisted,
            "prelabelled": self.prelabelled,
        }
