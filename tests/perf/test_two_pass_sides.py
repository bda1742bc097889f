"""perf/two_pass_overhead.py's comparison, on the scripted model of the pipeline tests with
the real hook (no weights, no timing): both sides warmed up, the order of the sides drawn
from a seeded generator, and sides that generate different texts refused."""

from __future__ import annotations

import importlib.util
import itertools
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "pipeline"))

from scripted_lm import ScriptedLM, chatml_script, load_tokenizer  # noqa: E402

_PATH = HERE.parents[1] / "perf" / "two_pass_overhead.py"
_SPEC = importlib.util.spec_from_file_location("uta_perf_two_pass", _PATH)
assert _SPEC is not None and _SPEC.loader is not None
two_pass = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(two_pass)

USER_MAX = 16


@pytest.fixture(scope="module")
def instances() -> list:
    found = two_pass._requests(3, USER_MAX)
    gen = dict(found[0].args[1], max_gen_toks=48)
    for inst in found:
        inst.arguments = (inst.args[0], gen, inst.args[2])
    return found


def _gen(instances: list) -> dict:
    return dict(instances[0].args[1])


def _with_settings(prompt: str, gen_kwargs: dict) -> str:
    """The default script's reply and the settings it was sent with: texts equal only when
    both sides send the same prompts and the same settings, as a real model's are."""
    return f"{chatml_script(prompt, gen_kwargs)} {sorted(gen_kwargs.items())}"


def test_the_hook_and_the_baseline_generate_the_same_texts(instances: list) -> None:
    lm = ScriptedLM(load_tokenizer("smollm2"), _with_settings)
    clocks = two_pass.compare(lm, instances, _gen(instances), USER_MAX, rounds=2)
    assert {side: len(runs) for side, runs in clocks.items()} == {"baseline": 2, "hook": 2}
    # each full run sent its 3 answers then its 3 user turns; the warm-ups 2 each
    assert [len(batch) for batch in lm.calls] == [2, 2, 2, 2] + [3] * 8


def test_sides_that_generate_different_texts_fail(instances: list) -> None:
    calls = itertools.count()

    def drifting(prompt: str, gen_kwargs: dict) -> str:  # a model whose answers change from call to call
        return chatml_script(prompt, gen_kwargs) + f" (call {next(calls)})"

    with pytest.raises(two_pass.SidesDiffer, match="generated another answer for document 0"):
        two_pass.compare(ScriptedLM(load_tokenizer("smollm2"), drifting), instances, _gen(instances), USER_MAX)


def test_both_sides_are_warmed_up_then_run_in_a_seeded_random_order(monkeypatch: pytest.MonkeyPatch) -> None:
    ran: list[tuple[str, int]] = []
    texts = (["a"], ["u"])
    monkeypatch.setattr(two_pass, "_baseline", lambda lm, batch, gen, user: (ran.append(("baseline", len(batch)))
                                                                            or ((1.0, 1.0), texts)))
    monkeypatch.setattr(two_pass, "_hook", lambda lm, batch: ran.append(("hook", len(batch))) or ((1.0, 1.0), texts))

    def orders(seed: int) -> list[tuple[str, ...]]:
        ran.clear()
        two_pass.compare(None, list(range(5)), {}, USER_MAX, rounds=8, seed=seed)
        assert sorted(ran[:2]) == [("baseline", 2), ("hook", 2)]  # the warm-ups, on two documents
        assert all(size == 5 for _side, size in ran[2:])
        return [tuple(side for side, _ in ran[i:i + 2]) for i in range(2, len(ran), 2)]

    first = orders(7)
    assert set(first) == {("baseline", "hook"), ("hook", "baseline")}  # neither side always first
    assert orders(7) == first  # seeded: the same order again
