"""Draw the annotation packet: a seeded sample of items, stratified by task, model and
judge label.

- Items are deduplicated by id (the same context and user turn in several tasks or
  runs is annotated once; its stratum is that of its smallest occurrence by model,
  task, kind, doc and repeat).
- Strata are ``(task, model, judge label)``; the judge label is ``unjudged`` when the
  item has no judged verdict (a ``--predict_only`` run).
- ``proportional`` allocation (default) keeps the natural prevalence of the strata
  (largest-remainder rounding); ``equal`` takes the strata in turn, one item each,
  until ``n`` (rare labels get covered; rates in the packet are then not the natural
  ones).
- ``hard`` (the paper's hard-case packet, Appendix D.2) needs a second judge's verdicts on
  the same items (``--hard_against FOLDER``): up to ``n // 2`` items where the two judges
  disagree on genuine, plus as many they agree on, half agreed-genuine and half
  agreed-not-genuine (:func:`uta_tasks.stats.sampling.balanced_hard`). Its rates are not
  the natural ones: never use it as a calibration set.
- Everything is a function of the seed and the item ids, never of file order or time.
- Only the ``model``-generated user turns are annotated: the held-out reference turn
  (``verdict_reference``) is never shown to annotators.
- Each text of an item (every context turn and the user turn) is cut at
  :data:`~uta_tasks.templates.escape.MAX_SHOWN_CHARS` with a visible note
  (:func:`~uta_tasks.templates.escape.bounded_text`); the item's id is that of the full
  texts, which stay in the samples.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from uta_tasks.runs.sample_items import SampleItem
from uta_tasks.schema.probe import VERDICT, VERDICT_REF
from uta_tasks.schema.verdict import UNJUDGED, Verdict
from uta_tasks.templates.escape import bounded_text

ALLOCATIONS = ("proportional", "equal", "hard")
ANNOTATED_KINDS = (VERDICT, VERDICT_REF)


@dataclass(frozen=True)
class PacketItem:
    """One item of the packet.

    Attributes:
        item_id: The stable item id.
        context: ``(role, content)`` turns shown to the annotator.
        user_turn: The candidate user turn shown to the annotator.
        task: Stratum: task (never shown).
        model: Stratum: model under test (never shown).
        judge_label: Stratum: the judge's label or ``unjudged`` (never shown).
    """

    item_id: str
    context: tuple[tuple[str, str], ...]
    user_turn: str
    task: str
    model: str
    judge_label: str


def judge_label(verdict: Verdict | None) -> str:
    """The stratum label of a stored verdict.

    Args:
        verdict: A verdict from a probe record, or None.
    """
    if verdict is not None and verdict.judged and verdict.label:
        return str(verdict.label)
    return UNJUDGED


def draw_packet(items: Sequence[SampleItem], n: int, seed: int, allocation: str = "proportional") -> list[PacketItem]:
    """Sample ``n`` distinct items (all of them when there are fewer).

    Args:
        items: Items from :func:`uta_tasks.runs.sample_items.sample_items`.
        n: Packet size.
        seed: Random seed.
        allocation: ``proportional`` or ``equal``.

    Returns:
        The packet, in sampling order.

    Raises:
        ValueError: Bad ``n`` or ``allocation``, or no annotatable item.
    """
    if allocation not in ALLOCATIONS or allocation == "hard":
        raise ValueError(f"allocation={allocation!r}: use one of {ALLOCATIONS[:2]} (hard: draw_hard_packet)")
    if n < 1:
        raise ValueError(f"packet size n={n}: give a positive number of items")
    unique, _ = _unique(items)
    strata: dict[tuple[str, str, str], list[PacketItem]] = defaultdict(list)
    for item in sorted(unique.values(), key=lambda it: it.item_id):
        strata[(item.task, item.model, item.judge_label)].append(item)
    rng = random.Random(seed)
    keys = sorted(strata)
    for key in keys:
        rng.shuffle(strata[key])
    quotas = _proportional(keys, strata, n) if allocation == "proportional" else _equal(keys, strata, n)
    picked: list[PacketItem] = []
    for key in keys:
        picked.extend(strata[key][: quotas[key]])
    rng.shuffle(picked)
    return picked


def _unique(items: Sequence[SampleItem]) -> tuple[dict[str, PacketItem], dict[str, bool]]:
    unique: dict[str, PacketItem] = {}
    genuine: dict[str, bool] = {}
    ordered = sorted(items, key=lambda e: (e.model, e.task, e.kind, e.doc_id, e.repeat, str(e.source.path)))
    for entry in ordered:
        if entry.kind in ANNOTATED_KINDS and entry.item_id not in unique:
            context = tuple((role, bounded_text(content)) for role, content in entry.item.context)
            unique[entry.item_id] = PacketItem(  # the id is of the full texts; the page shows them bounded
                entry.item_id, context, bounded_text(entry.item.user_turn), entry.task, entry.model,
                judge_label(entry.verdict),
            )
            if judge_label(entry.verdict) != UNJUDGED and entry.verdict is not None:
                genuine[entry.item_id] = bool(entry.verdict.genuine)
    if not unique:
        raise ValueError("the samples hold no generated user turn to annotate")
    return unique, genuine


def draw_hard_packet(items: Sequence[SampleItem], other: dict[str, bool], n: int, seed: int) -> list[PacketItem]:
    """The hard-case packet: disagreements of the samples' judge and another judge, balanced.

    Args:
        items: Items from :func:`uta_tasks.runs.sample_items.sample_items` (judged).
        other: item id -> the other judge's genuine decision.
        n: Packet size (fewer when there are fewer than ``n // 2`` disagreements).
        seed: Random seed.

    Raises:
        ValueError: Bad ``n``, or no item both judges decided.
    """
    from uta_tasks.stats.sampling import balanced_hard

    if n < 2:
        raise ValueError(f"packet size n={n}: a hard-case packet needs at least 2 items")
    unique, genuine = _unique(items)
    both = sorted(set(genuine) & set(other))
    if not both:
        raise ValueError("no item was judged by both judges: re-judge the same folders with the other judge")
    disagree = [i for i in both if genuine[i] != other[i]]
    yes = [i for i in both if genuine[i] and other[i]]
    no = [i for i in both if not genuine[i] and not other[i]]
    rng = random.Random(seed)
    picked = [unique[i] for i in balanced_hard(disagree, yes, no, n // 2, rng)]
    rng.shuffle(picked)
    return picked


def _proportional(
    keys: list[tuple[str, str, str]], strata: dict[tuple[str, str, str], list[PacketItem]], n: int
) -> dict[tuple[str, str, str], int]:
    total = sum(len(strata[key]) for key in keys)
    if n >= total:
        return {key: len(strata[key]) for key in keys}
    exact = {key: n * len(strata[key]) / total for key in keys}
    quotas = {key: int(exact[key]) for key in keys}
    by_remainder = sorted(keys, key=lambda key: (-(exact[key] - quotas[key]), key))
    for key in by_remainder[: n - sum(quotas.values())]:
        quotas[key] += 1
    return quotas


def _equal(
    keys: list[tuple[str, str, str]], strata: dict[tuple[str, str, str], list[PacketItem]], n: int
) -> dict[tuple[str, str, str], int]:
    quotas = {key: 0 for key in keys}
    taken = 0
    while taken < n:
        progressed = False
        for key in keys:
            if taken < n and quotas[key] < len(strata[key]):
                quotas[key] += 1
                taken += 1
                progressed = True
        if not progressed:
            break
    return quotas
