"""The held-out setting: the assistant turn comes from a real conversation.

Cut point (one per conversation): the LAST assistant turn that is preceded by a user
turn and followed by a user turn, all three with non-empty text. The document is

- ``messages``: every message before that assistant turn (system messages and earlier
  turns included), ending with the user turn the assistant answered;
- ``given_answer``: that assistant turn (pass 1 is skipped and this is ``a``);
- ``reference_user_turn``: the user turn that really followed (judged as a human ceiling);
- ``id``: the conversation's id; ``turn_index``: position of the assistant turn;
  ``user_turn``: the number of the user turn that really followed (2 for the first reply).

The ``conversations`` benchmark can instead probe a chosen user turn, or every one
(``probe_turn``, see :mod:`uta_tasks.datasets.conversations`).

Conversations with no such assistant turn are skipped and counted in one log line.
Messages are reduced to ``{"role", "content"}``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .base import Benchmark, Message, no_score
from .errors import BenchmarkDataError

if TYPE_CHECKING:
    import datasets

    from .sources import DataSource

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Cut:
    """One conversation cut after an assistant turn that a user answered."""

    context: list[Message]
    given_answer: str
    reference_user_turn: str
    turn_index: int


def _text(message: Any) -> str | None:
    """A message's non-empty text content, or None."""
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, str) and content.strip() else None


def cuts(messages: list[dict]) -> list[Cut]:
    """Every possible cut point of one conversation, first to last.

    Args:
        messages: the conversation's messages ({"role", "content"} dicts).
    """
    found = []
    for i in range(1, len(messages) - 1):
        before, turn, after = messages[i - 1], messages[i], messages[i + 1]
        roles = (before.get("role"), turn.get("role"), after.get("role"))
        if roles != ("user", "assistant", "user"):
            continue
        if _text(before) and _text(turn) and _text(after):
            context = [{"role": str(m.get("role")), "content": str(m.get("content") or "")} for m in messages[:i]]
            found.append(Cut(context, turn["content"], after["content"], i))
    return found


def cut(messages: list[dict]) -> Cut | None:
    """Find the (last) cut point of one conversation.

    Args:
        messages: the conversation's messages ({"role", "content"} dicts).

    Returns:
        The cut, or None when no assistant turn sits between two user turns.
    """
    found = cuts(messages)
    return found[-1] if found else None


def user_turn(context: list[Message]) -> int:
    """The 1-based number of the user turn written after a context (1 + its user turns).

    Args:
        context: the messages before the assistant turn (``Cut.context``).
    """
    return 1 + sum(1 for m in context if m.get("role") == "user")


#: which user turn a held-out document probes: the last one, every one, or the k-th (an int >= 2)
ProbeTurn = str | int
PROBE_TURN_LAST = "last"
PROBE_TURN_EVERY = "every"


def _chosen(found: list[Cut], probe_turn: ProbeTurn) -> list[Cut]:
    if probe_turn == PROBE_TURN_EVERY:
        return found
    if probe_turn == PROBE_TURN_LAST:
        return found[-1:]
    return [c for c in found if user_turn(c.context) == probe_turn]


def build_docs(benchmark: str, conversations: Iterable[tuple[str | int, Any]],
               probe_turn: ProbeTurn = PROBE_TURN_LAST) -> datasets.Dataset:
    """Cut every conversation and keep those with a cut point.

    Args:
        benchmark: name for the log line and errors.
        conversations: (id, messages) pairs.
        probe_turn: ``last`` (one document per conversation, at its last cut), ``every``
            (one per cut) or k (the cut where the real next user turn is the k-th).

    Returns:
        Documents with "id", "messages", "given_answer", "reference_user_turn", "turn_index",
        "user_turn".
    """
    import datasets

    docs, total = [], 0
    for conv_id, messages in conversations:
        total += 1
        if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
            raise BenchmarkDataError(
                f"{benchmark}: conversation {conv_id!r} has no list of {{\"role\", \"content\"}} messages."
            )
        for found in _chosen(cuts(messages), probe_turn):
            docs.append({
                "id": str(conv_id),
                "messages": found.context,
                "given_answer": found.given_answer,
                "reference_user_turn": found.reference_user_turn,
                "turn_index": found.turn_index,
                "user_turn": user_turn(found.context),
            })
    kept = len({d["id"] for d in docs})
    skipped = total - kept
    where = "" if probe_turn == PROBE_TURN_LAST else f" (probe_turn {probe_turn}: {len(docs)} documents)"
    (log.warning if skipped else log.info)(
        "%s: %d of %d conversations have an assistant turn between two user turns%s; %d skipped.",
        benchmark, kept, total, where, skipped,
    )
    if not docs:
        raise BenchmarkDataError(
            f"{benchmark}: none of the {total} conversations has an assistant turn followed by a user turn"
            + ("." if probe_turn == PROBE_TURN_LAST else f" at user turn {probe_turn}.")
        )
    return datasets.Dataset.from_list(docs)


def doc_to_messages(doc: dict) -> list[Message]:
    """The conversation before the given assistant turn.

    Args:
        doc: a held-out document.
    """
    return [{"role": m["role"], "content": m["content"]} for m in doc["messages"]]


def given_answer(doc: dict) -> str:
    """The real assistant turn.

    Args:
        doc: a held-out document.
    """
    return doc["given_answer"]


def reference_user_turn(doc: dict) -> str:
    """The real next user turn.

    Args:
        doc: a held-out document.
    """
    return doc["reference_user_turn"]


def benchmark(name: str, load: Any, source: DataSource, paper_size: int | None = None) -> Benchmark:
    """A held-out :class:`Benchmark`.

    Args:
        name: "healthbench" or "conversations".
        load: the module-level ``load`` (named in task YAMLs).
        source: its default data origin.
        paper_size: the documents the paper evaluated, after the cut (None: not in the paper).
    """
    return Benchmark(
        name=name,
        load=load,
        doc_to_messages=doc_to_messages,
        score=no_score,
        aggregations={},
        primary=None,
        given_answer=given_answer,
        reference_user_turn=reference_user_turn,
        source=source,
        paper_size=paper_size,
    )
