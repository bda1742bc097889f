"""The registry matches the interface the generation core calls."""

from __future__ import annotations

import inspect

import pytest

from uta_tasks.datasets import BENCHMARKS, Benchmark

SELF_GENERATED = ["gsm8k", "ifeval", "ifbench", "gpqa_main", "gpqa_diamond"]
HELD_OUT = ["healthbench", "conversations"]


def test_names():
    assert list(BENCHMARKS) == SELF_GENERATED + HELD_OUT
    assert all(isinstance(b, Benchmark) and b.name == name for name, b in BENCHMARKS.items())


@pytest.mark.parametrize("name", SELF_GENERATED)
def test_self_generated_have_accuracy(name):
    bench = BENCHMARKS[name]
    assert bench.primary in bench.aggregations
    assert bench.higher_is_better == {m: True for m in bench.aggregations}
    assert bench.given_answer is None and bench.reference_user_turn is None
    assert not bench.held_out


@pytest.mark.parametrize("name", HELD_OUT)
def test_held_out_have_given_turns(name):
    bench = BENCHMARKS[name]
    assert bench.primary is None and bench.aggregations == {}
    assert bench.held_out and bench.reference_user_turn is not None
    assert bench.score({}, "anything") == {}
    assert bench.is_correct({}) is None


@pytest.mark.parametrize("name", SELF_GENERATED + HELD_OUT)
def test_load_is_a_module_function_taking_any_metadata(name):
    """Task YAMLs name it as ``!function uta_tasks.datasets.<module>.<function>``: a module-level
    function of a module of ``uta_tasks.datasets``, found again by that dotted name."""
    import importlib

    from uta_tasks.tasks.generate import loader

    load = BENCHMARKS[name].load
    module_name, _, function = loader(name).rpartition(".")
    assert module_name.startswith("uta_tasks.datasets.") and "<" not in function
    assert getattr(importlib.import_module(module_name), function) is load
    assert any(p.kind is p.VAR_KEYWORD for p in inspect.signature(load).parameters.values())


def test_is_correct_reads_primary():
    gsm8k = BENCHMARKS["gsm8k"]
    assert gsm8k.is_correct({"exact_match_flexible": 1.0, "exact_match_strict": 0.0}) is True
    assert gsm8k.is_correct({"exact_match_flexible": 0.0, "exact_match_strict": 1.0}) is False


def test_each_benchmark_declares_what_the_plan_reads_without_its_data():
    """``uta-eval --plan`` counts from the paper's size when the data cannot load, and names
    NLTK's index as a contact for the scorers that need NLTK data: both from the entry."""
    sizes = {name: bench.documents_in_paper for name, bench in BENCHMARKS.items()}
    assert sizes == {"gsm8k": 1319, "ifeval": 541, "ifbench": 300, "gpqa_main": 448, "gpqa_diamond": 198,
                     "healthbench": 1470, "conversations": None}
    assert {name for name, bench in BENCHMARKS.items() if bench.needs_nltk} == {"ifeval", "ifbench"}
    assert all(bench.source is not None and bench.source.benchmark == name for name, bench in BENCHMARKS.items())
