r"""Deterministic pre-labels: the unambiguous user turns labelled without a judge call.

Opt-in (``judge_prelabel``, off by default: the paper judges with an LLM rather than string
matching, summary "The LLM Judge: FOLLOWUPEVAL", so a shortcut that labels turns without the
judge is opt-in, marked in the record and validated against the judge, see
:mod:`.prelabel_check`). The rules, in this order (the first that fires wins):

- ``empty``: ``u`` is empty or whitespace only -> ``degenerate_short``;
- ``restates_prompt``: ``u`` is a near-verbatim copy of ``q`` (the last user turn of the
  context) or of a passage of it: :func:`coverage` of ``u`` by ``q`` is at least
  :data:`COPY_THRESHOLD` and ``u`` has at least :data:`MIN_COPY_TOKENS` tokens (or ``u``
  equals ``q`` after normalization) -> ``previous_turn_restate``;
- ``copies_answer``: the same for ``u`` and ``a'`` (the assistant turn the judge sees)
  -> ``assistant_turn_restate``;
- ``assistant_scaffolding``: ``u`` holds gpt-oss channel scaffolding
  (``<|channel|>``, ``<|message|>``) or a non-empty ``<think>`` block: the model keeps
  talking in the assistant's voice, which the paper labels (summary, "The LLM Judge:
  FOLLOWUPEVAL": "channel-delimited scaffolding text")
  ``assistant_turn_restate`` (an empty ``<think></think>`` block, as non-thinking
  templates emit, does not fire);
- ``special_token``: ``u`` holds a chat-template special token of the model
  (``JudgeItem.special_tokens``, else :data:`DEFAULT_SPECIAL_TOKENS`) -> ``malformed_artifact``.

Coverage: both texts are normalized (Unicode NFKC, case-folded) and split into words
and punctuation marks (``\w+|[^\w\s]``), so whitespace and case never count. The
coverage of ``u`` by ``q`` is the share of ``u``'s tokens that lie in runs of at least
:data:`MIN_BLOCK` consecutive tokens found, in the same order, in ``q``
(``difflib.SequenceMatcher(autojunk=False)`` matching blocks): 1.0 when ``u`` is ``q`` or
a passage of it (SmolLM2 asked "What is the female equivalent to chivalry? Include
keyword meridian once ..." answers as the user "What is the female equivalent to
chivalry?"). One changed word in a 40-word copy gives about 0.97; "What is the male
equivalent to chivalry, then?" after "What is the female equivalent to chivalry?" gives
0.6. Runs, not scattered words, so a short generic turn whose words happen to occur in
``q`` does not count as a copy. When ``u`` copies both ``q`` and ``a'``, the higher
coverage wins (``q`` on a tie). Special tokens and channel markers are removed from ``u``
first, so a copy of ``q`` followed by ``<|im_end|>`` is still a copy.

A pre-labelled verdict is ``judged`` with ``genuine`` False, ``judge_model``
:data:`PRELABEL_MODEL`, ``prompt_version`` :data:`RULES_VERSION`, ``prompt_sha`` a digest
of the rules' parameters, ``prelabel_rule`` the rule, no prompt (nothing was sent) and a
rationale naming the rule and its evidence. It is never sent to the judge and never
cached. :func:`partition` and :func:`merge_run` are used by
:func:`uta_tasks.judge.judge_all` and by batch mode alike.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from .records import ItemUsage, JudgeItem, JudgeRun, Verdict

RULES_VERSION = "prelabel-v1"
PRELABEL_MODEL = "prelabel"
COPY_THRESHOLD = 0.9
MIN_COPY_TOKENS = 4
MIN_BLOCK = 3
DEFAULT_SPECIAL_TOKENS: tuple[str, ...] = (
    "<|im_start|>", "<|im_end|>", "<|endoftext|>", "<|end|>", "<|user|>", "<|assistant|>", "<|system|>",
    "<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>", "<|eom_id|>",
    "<start_of_turn>", "<end_of_turn>", "<|start|>", "<|return|>", "<|call|>", "<|constrain|>",
    "<|endofprompt|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "[INST]", "[/INST]",
    "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>", "<｜User｜>", "<｜Assistant｜>",
)
CHANNEL_MARKERS: tuple[str, ...] = ("<|channel|>", "<|message|>")
_THINKING = re.compile(r"<think>(?!\s*(?:</think>|$))", re.DOTALL)
RULE_LABELS: dict[str, str] = {
    "empty": "degenerate_short",
    "restates_prompt": "previous_turn_restate",
    "copies_answer": "assistant_turn_restate",
    "assistant_scaffolding": "assistant_turn_restate",
    "special_token": "malformed_artifact",
}
RULES: tuple[str, ...] = tuple(RULE_LABELS)
_WHITESPACE = re.compile(r"\s+")
_TOKENS = re.compile(r"\w+|[^\w\s]")


@dataclass(frozen=True)
class PreLabel:
    """A rule that fired on one item.

    Attributes:
        rule: One of :data:`RULES`.
        label: Its label (:data:`RULE_LABELS`).
        evidence: What made it fire, for the rationale.
    """

    rule: str
    label: str
    evidence: str


def rules_sha() -> str:
    """Digest of the rules' parameters (goes into every pre-labelled verdict)."""
    parts = [RULES_VERSION, COPY_THRESHOLD, MIN_COPY_TOKENS, MIN_BLOCK, _TOKENS.pattern, DEFAULT_SPECIAL_TOKENS,
             CHANNEL_MARKERS, _THINKING.pattern, RULE_LABELS]
    payload = json.dumps(parts, ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def normalize(text: str) -> str:
    """NFKC, case-folded, whitespace runs made one space, trimmed.

    Args:
        text: Any text.
    """
    return _WHITESPACE.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def tokens(text: str) -> list[str]:
    """The words and punctuation marks of the normalized text.

    Args:
        text: Any text.
    """
    return _TOKENS.findall(normalize(text))


def _covered(a: list[str], b: list[str]) -> float:
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    copied = sum(block.size for block in matcher.get_matching_blocks() if block.size >= min(MIN_BLOCK, len(a)))
    return copied / len(a)


def coverage(u: str, other: str) -> float:
    """The share of ``u``'s tokens copied, in order, from ``other`` (see the module docstring).

    Args:
        u: The user turn.
        other: ``q`` or ``a'``.
    """
    a, b = tokens(u), tokens(other)
    return _covered(a, b) if a and b else 0.0


def _copied(u: str, other: str, threshold: float) -> float | None:
    a, b = tokens(u), tokens(other)
    if not a or not b:
        return None
    if a == b:
        return 1.0
    if len(a) < MIN_COPY_TOKENS:
        return None
    available = Counter(b)
    if sum(min(count, available[token]) for token, count in Counter(a).items()) < threshold * len(a):
        return None  # an upper bound first: most turns share few tokens with q and a'
    share = _covered(a, b)
    return share if share >= threshold else None


def prompt_and_answer(item: JudgeItem) -> tuple[str, str]:
    """``q`` (the last user turn of the context, '' if none) and ``a'`` (its last turn).

    Args:
        item: The judge item.
    """
    user_turns = [content for role, content in item.context if role == "user"]
    return (user_turns[-1] if user_turns else ""), item.context[-1][1]


def prelabel(item: JudgeItem, threshold: float = COPY_THRESHOLD) -> PreLabel | None:
    """The first rule that fires on ``item``, or None (the judge decides).

    Args:
        item: The judge item.
        threshold: Coverage threshold of ``restates_prompt`` and ``copies_answer``.
    """
    u = item.user_turn
    if not u.strip():
        return _fired("empty", f"u is {'empty' if not u else 'whitespace only'}")
    q, answer = prompt_and_answer(item)
    tokens_of_model = item.special_tokens or DEFAULT_SPECIAL_TOKENS
    text = u
    for marker in (*tokens_of_model, *CHANNEL_MARKERS):
        text = text.replace(marker, " ") if marker else text
    copies = [
        (share, rule, name)
        for rule, other, name in (("restates_prompt", q, "q"), ("copies_answer", answer, "a'"))
        if (share := _copied(text, other, threshold)) is not None
    ]
    if copies:  # the closer copy wins; on a tie, q
        share, rule, name = max(copies, key=lambda copy: copy[0])
        return _fired(rule, f"{share:.0%} of u's tokens are copied in order from {name} (>= {threshold:.0%})")
    channel = next((marker for marker in CHANNEL_MARKERS if marker in u), None)
    if channel is not None:
        return _fired("assistant_scaffolding", f"u holds the channel marker {channel}")
    if _THINKING.search(u):
        return _fired("assistant_scaffolding", "u holds a non-empty <think> block")
    token = next((token for token in tokens_of_model if token and token in u), None)
    if token is not None:
        return _fired("special_token", f"u holds the special token {token}")
    return None


def _fired(rule: str, evidence: str) -> PreLabel:
    return PreLabel(rule, RULE_LABELS[rule], evidence)


def verdict(found: PreLabel) -> Verdict:
    """The verdict record of a pre-label.

    Args:
        found: What :func:`prelabel` returned.
    """
    return Verdict.judged_as(
        found.label, False, rationale=f"pre-label rule {found.rule} ({RULES_VERSION}): {found.evidence}", prompt=[],
        judge_model=PRELABEL_MODEL, prompt_version=RULES_VERSION, prompt_sha=rules_sha(), prelabel_rule=found.rule,
    )


@dataclass
class Partition:
    """Which items a rule labelled.

    Attributes:
        total: Number of input items.
        verdicts: Pre-labelled verdicts by input index.
        rest: Input indices of the items the judge must see, in order.
    """

    total: int
    verdicts: dict[int, Verdict]
    rest: list[int]

    def combine(self, judged: Sequence[Verdict]) -> list[Verdict]:
        """All verdicts in input order, given those of the ``rest`` items.

        Args:
            judged: One verdict per ``rest`` index, in that order.
        """
        out: list[Verdict | None] = [None] * self.total
        for index, found in self.verdicts.items():
            out[index] = found
        for index, found in zip(self.rest, judged, strict=True):
            out[index] = found
        return [found for found in out if found is not None]


def partition(items: Sequence[JudgeItem]) -> Partition:
    """Apply the rules to every item.

    Args:
        items: The traces to judge.
    """
    verdicts: dict[int, Verdict] = {}
    rest: list[int] = []
    for index, item in enumerate(items):
        found = prelabel(item)
        if found is None:
            rest.append(index)
        else:
            verdicts[index] = verdict(found)
    return Partition(len(items), verdicts, rest)


def merge_run(split: Partition, items: Sequence[JudgeItem], run: JudgeRun) -> JudgeRun:
    """The judge run of all items from the run over ``split.rest``.

    Pre-labelled items cost nothing; the first occurrence of each distinct one has
    ``ItemUsage.prelabelled`` set (later identical ones are its duplicates), and
    ``JudgeRun.prelabelled`` counts them: the judge calls saved.

    Args:
        split: The partition of ``items``.
        items: All items.
        run: The judge run over the ``rest`` items, in that order.
    """
    usage: list[ItemUsage | None] = [None] * split.total
    for index, entry in zip(split.rest, run.per_item_usage, strict=True):
        duplicate = entry.duplicate_of
        usage[index] = ItemUsage(
            calls=entry.calls, rate_limited=entry.rate_limited, input_tokens=entry.input_tokens,
            output_tokens=entry.output_tokens, cache_hit=entry.cache_hit,
            duplicate_of=None if duplicate is None else split.rest[duplicate],
        )
    first: dict[str, int] = {}
    for index in sorted(split.verdicts):
        fingerprint = items[index].fingerprint()
        if fingerprint in first:
            usage[index] = ItemUsage(duplicate_of=first[fingerprint])
        else:
            first[fingerprint] = index
            usage[index] = ItemUsage(prelabelled=True)
    return JudgeRun(
        verdicts=split.combine(run.verdicts),
        calls=run.calls,
        cache_hits=run.cache_hits,
        input_tokens=run.input_tokens,
        output_tokens=run.output_tokens,
        per_item_usage=[entry for entry in usage if entry is not None],
        unique_items=run.unique_items + len(first),
        not_persisted=run.not_persisted,
        rate_limited=run.rate_limited,
        window_peak=run.window_peak,
        prelabelled=len(first),
    )
