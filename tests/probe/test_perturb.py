import math

import pytest

from uta_tasks.probe import perturb


@pytest.mark.parametrize("n,expected", [(0, 0), (10, 10), (25, 25), (26, 25), (100, 25), (101, 26), (400, 100)])
def test_tokens_to_remove_follows_protocol(n, expected):
    assert perturb.tokens_to_remove(n) == expected
    if n > 25:
        assert expected == max(25, math.ceil(0.25 * n))


def test_truncation_cuts_exact_token_count_with_model_tokenizer(smollm2_tokenizer):
    tok = smollm2_tokenizer
    answer = "Let me compute this step by step. " * 8 + "The final answer is 42."
    ids = tok(answer, add_special_tokens=False)["input_ids"]
    out = perturb.truncate(answer, tok)
    assert out.n_tokens == len(ids)
    assert out.removed_tokens == max(25, math.ceil(0.25 * len(ids)))
    kept = ids[: len(ids) - out.removed_tokens]
    assert tok.decode(kept) == out.text
    assert answer.startswith(out.text) and len(out.text) < len(answer)
    assert not out.emptied


def test_truncation_never_breaks_a_character(smollm2_tokenizer):
    answer = "Résumé: 🙂🙂🙂 naïve café " * 12
    out = perturb.truncate(answer, smollm2_tokenizer)
    assert answer.startswith(out.text)
    out.text.encode("utf-8")  # a broken surrogate or half character would raise
    assert "\ufffd" not in out.text


def test_short_answers_are_emptied_and_flagged(smollm2_tokenizer):
    out = perturb.truncate("The answer is 4.", smollm2_tokenizer)
    assert out.text == "" and out.emptied and out.removed_tokens == out.n_tokens


def test_question_pool_is_large_and_draw_is_reproducible():
    pool = perturb.question_pool()
    assert len(pool) >= 8 and len(set(pool)) == len(pool)
    questions = [f"Question number {i}?" for i in range(200)]
    first = [perturb.draw_cue(q) for q in questions]
    assert first == [perturb.draw_cue(q) for q in questions]
    assert len(set(first)) >= 6  # the draw spreads over the pool
    assert [perturb.draw_cue(q, seed=1) for q in questions] != first


def test_question_perturbation_appends_the_cue():
    out = perturb.perturb("question", "It is 4.", tokenizer=None, question="2+2?")
    assert out.text == f"It is 4. {out.cue}" and out.cue in perturb.question_pool()


def test_unknown_perturbation_is_rejected():
    with pytest.raises(ValueError, match="trunc"):
        perturb.perturb("shuffle", "x", tokenizer=None, question="q")
