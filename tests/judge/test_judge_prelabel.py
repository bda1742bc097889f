"""The deterministic pre-label rules (uta_tasks.judge.prelabel)."""

from __future__ import annotations

import pytest

from uta_tasks.judge import JudgeItem
from uta_tasks.judge.prelabel import (
    COPY_THRESHOLD,
    MIN_BLOCK,
    MIN_COPY_TOKENS,
    PRELABEL_MODEL,
    RULES_VERSION,
    coverage,
    normalize,
    prelabel,
    verdict,
)

Q = "What is the female equivalent to chivalry?"
A = "There is no exact female equivalent, but some people use the word 'damehood' for the honour."


def item(u: str, q: str = Q, a: str = A, **extra: object) -> JudgeItem:
    return JudgeItem(context=(("system", "Be brief."), ("user", q), ("assistant", a)), user_turn=u, **extra)


def rule(u: str, **kwargs: object) -> str | None:
    found = prelabel(item(u, **kwargs))  # type: ignore[arg-type]
    return None if found is None else found.rule


@pytest.mark.parametrize("u", ["", " ", "\n\t  \n", "\u3000"])
def test_empty_or_whitespace_is_degenerate_short(u: str) -> None:
    found = prelabel(item(u))
    assert found is not None and (found.rule, found.label) == ("empty", "degenerate_short")


@pytest.mark.parametrize("u", [Q, Q.upper(), f"  {Q}\n", "What is the female  equivalent\nto chivalry ?"])
def test_a_copy_of_q_restates_the_prompt(u: str) -> None:
    found = prelabel(item(u))
    assert found is not None and found.label == "previous_turn_restate"
    assert "copied in order from q" in found.evidence


def test_a_copy_of_the_answer_restates_the_assistant() -> None:
    for u in (A.upper(), A.split(", but ")[1]):  # the whole answer, or a passage of it
        found = prelabel(item(u))
        assert found is not None and (found.rule, found.label) == ("copies_answer", "assistant_turn_restate")


@pytest.mark.parametrize("u", [
    "Why is there no exact female equivalent?",  # grounded follow-up
    "What is the male equivalent to chivalry, then?",  # shares words with q, is not a copy
    "Female equivalent?",  # a copied passage, but shorter than MIN_COPY_TOKENS
    "What is the point of the word damehood?",  # words of q and a' in order, but scattered
    "Can you write me a poem about the sea?",
])
def test_turns_that_are_not_copies_go_to_the_judge(u: str) -> None:
    assert rule(u) is None


def test_a_copied_passage_of_q_restates_it() -> None:
    # SmolLM2 after an IFBench prompt: the question without its formatting constraints
    q = f"{Q} Include keyword meridian once in your response, keyword gossamer twice in your response."
    assert rule(Q, q=q) == "restates_prompt"
    assert rule(" ".join(q.split()[:12]), q=q) == "restates_prompt"  # cut at the token limit


def test_threshold_is_the_documented_coverage() -> None:
    assert (COPY_THRESHOLD, MIN_COPY_TOKENS, MIN_BLOCK) == (0.9, 4, 3)
    assert coverage(Q, Q.lower()) == 1.0
    assert normalize(" A\u00a0b\n\nC ") == "a b c"
    long_q = ("Write a short story about a lighthouse keeper who finds a message in a bottle. Use exactly "
              "three paragraphs, do not use any commas, and end the story with a question to the reader.")
    almost = long_q.replace("lighthouse keeper", "lighthouse guard")
    assert coverage(almost, long_q) == pytest.approx(0.97, abs=0.01)
    assert rule(almost, q=long_q) == "restates_prompt"
    assert coverage("What is the male equivalent to chivalry, then?", Q) == pytest.approx(0.6)
    assert coverage("What  IS the female equivalent to chivalry ?", Q) == 1.0  # case and spacing never count
    assert coverage(f"{Q} And why is that so?", Q) == pytest.approx(8 / 14)  # more than a copy


def test_q_is_the_last_user_turn_of_a_longer_context() -> None:
    context = (("user", "Hello there, who are you?"), ("assistant", "I am a model."), ("user", Q), ("assistant", A))
    assert prelabel(JudgeItem(context=context, user_turn=Q)).rule == "restates_prompt"  # type: ignore[union-attr]
    assert prelabel(JudgeItem(context=context, user_turn="Hello there, who are you today?")) is None


@pytest.mark.parametrize("u, expected", [
    ("<|channel|>analysis<|message|>We need to check the answer.", "assistant_scaffolding"),
    ("<think>Let me verify the claim about damehood first.", "assistant_scaffolding"),
    ("<think>\n\n</think>\n\nWhy is there no exact female equivalent?", None),  # empty block: not scaffolding
    ("Why is that?<|im_end|>\n<|im_start|>assistant\nBecause", "special_token"),
    ("[INST] tell me more [/INST]", "special_token"),
])
def test_scaffolding_and_special_tokens(u: str, expected: str | None) -> None:
    assert rule(u) == expected


def test_special_tokens_of_the_item_replace_the_default_list() -> None:
    assert rule("Tell me more <|user|> please") == "special_token"
    own = {"special_tokens": ("<eos_custom>",)}
    assert rule("Tell me more <|user|> please", **own) is None
    assert rule("Tell me more <eos_custom>", **own) == "special_token"
    # not part of the item's identity: the cache and the ids of saved items do not change
    assert item("x", special_tokens=("<a>",)).fingerprint() == item("x").fingerprint()


def test_rules_fire_in_order_first_wins() -> None:
    assert rule(Q, a=Q) == "restates_prompt"  # a copy of both q and a': q first
    assert rule(f"{Q}<|im_end|>") == "restates_prompt"  # a copy of q with a trailing token


def test_prelabel_verdict_is_marked_and_never_genuine() -> None:
    found = prelabel(item(""))
    assert found is not None
    record = verdict(found).to_dict()
    assert record["status"] == "judged" and record["genuine"] is False and record["label"] == "degenerate_short"
    assert record["judge_model"] == PRELABEL_MODEL and record["prompt_version"] == RULES_VERSION
    assert record["prelabel_rule"] == "empty" and record["prompt"] == [] and record["raw_reply"] is None
    assert record["attempts"] == 0 and "empty" in record["rationale"] and record["prompt_sha"]
