import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from uta_tasks.probe import perturb, perturbations

REPO_ROOT = Path(__file__).resolve().parents[2]


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


PAPER_CUES = ("What do you think?", "Any questions?")  # the two examples the paper gives
YES_NO_OPENERS = {"would", "do", "does", "did", "is", "are", "was", "were", "can", "could", "shall", "should",
                  "will", "may", "might", "have", "has", "am"}
OPEN_OPENERS = {"what", "which", "how", "where", "why", "who", "when"}


def yes_no_cues(cues):
    """Cues that invite a bare yes or no: a yes/no question, not an open one."""
    bad = []
    for cue in cues:
        first = cue.split()[0].lower().strip(",")
        if cue in PAPER_CUES:
            continue
        if first in YES_NO_OPENERS or first not in OPEN_OPENERS or " or not" in cue.lower():
            bad.append(cue)
    return bad


@pytest.mark.parametrize("pool", ["question_pool_v1", "question_pool_v2"])
def test_question_pool_is_large_and_draw_is_reproducible(pool):
    cues = perturb.question_pool(pool)
    assert len(cues) >= 8 and len(set(cues)) == len(cues)
    questions = [f"Question number {i}?" for i in range(200)]
    first = [perturb.draw_cue(q, pool=pool) for q in questions]
    assert first == [perturb.draw_cue(q, pool=pool) for q in questions]
    assert len(set(first)) >= 6  # the draw spreads over the pool
    assert [perturb.draw_cue(q, seed=1, pool=pool) for q in questions] != first


def test_v2_is_the_default_pool_and_holds_the_papers_cues():
    assert perturb.DEFAULT_QUESTION_POOL == "question_pool_v2"
    assert perturb.question_pool() == perturb.question_pool("question_pool_v2")
    assert set(PAPER_CUES) <= set(perturb.question_pool())
    assert perturb.question_pools() == ("question_pool_v1", "question_pool_v2")


def test_every_v2_cue_is_open_ended():
    cues = perturb.question_pool("question_pool_v2")
    assert all(cue.endswith("?") for cue in cues)
    assert yes_no_cues(cues) == []


def test_the_open_ended_check_finds_v1s_yes_no_offers():
    assert "Would you like me to go into more detail?" in yes_no_cues(perturb.question_pool("question_pool_v1"))
    assert len(yes_no_cues(perturb.question_pool("question_pool_v1"))) >= 5


def test_draws_are_the_same_in_another_process():
    """The draw hashes (seed, q) with sha256, not Python's per-process string hash."""
    questions = [f"How many clips, case {i}?" for i in range(30)]
    here = [perturb.draw_cue(q, seed=3) for q in questions]
    code = ("import json, sys; from uta_tasks.probe import perturb; "
            "print(json.dumps([perturb.draw_cue(q, seed=3) for q in json.loads(sys.argv[1])]))")
    env = {**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run([sys.executable, "-c", code, json.dumps(questions)], env=env, check=True,
                          capture_output=True, text=True, timeout=120)
    assert json.loads(done.stdout) == here


def test_question_perturbation_appends_the_cue_of_the_chosen_pool():
    out = perturbations.apply("question", "It is 4.", perturb.Context(question="2+2?"))
    assert out.text == f"It is 4. {out.cue}" and out.cue in perturb.question_pool("question_pool_v2")
    assert out.question_pool == "question_pool_v2" and out.truncation is None
    old = perturbations.apply("question", "It is 4.", perturb.Context(question="2+2?", pool="question_pool_v1"))
    assert old.cue == perturb.draw_cue("2+2?", pool="question_pool_v1") and old.cue in perturb.question_pool("question_pool_v1")


def test_the_registry_holds_the_papers_three_with_what_each_needs():
    assert perturbations.names()[:3] == ("none", "trunc", "question")
    assert perturbations.paper_names() == ("none", "trunc", "question")
    trunc = perturbations.get("trunc")
    assert trunc.needs_tokenizer and trunc.takes_whole_response("response")
    assert not trunc.takes_whole_response("final_answer")
    assert not perturbations.get("question").needs_tokenizer and not perturbations.get("question").whole_response


def test_an_unknown_or_clashing_perturbation_names_the_fix():
    with pytest.raises(ValueError, match="'upside_down' is not one of none, trunc, question.*make generate"):
        perturbations.get("upside_down")
    with pytest.raises(ValueError, match="'trunc' is already registered"):
        perturbations.register(perturbations.Perturbation("trunc", perturbations.get("none").apply, "again"))
    with pytest.raises(ValueError, match="task suffix"):
        perturbations.register(perturbations.Perturbation("Upper-Case", perturbations.get("none").apply, "bad"))
    assert "Upper-Case" not in perturbations.names()


def test_unknown_pool_names_the_setting():
    with pytest.raises(ValueError, match="question_pool='question_pool_v9'.*question_pool_v2"):
        perturb.draw_cue("q", pool="question_pool_v9")
    with pytest.raises(ValueError, match="question_pool="):
        perturb.question_pool("../role_switch/glm4")


def test_unknown_perturbation_is_rejected():
    with pytest.raises(ValueError, match="trunc"):
        perturbations.apply("shuffle", "x", perturb.Context(question="q"))
