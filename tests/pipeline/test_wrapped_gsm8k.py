"""A wrapped lm-eval task (``uta:gsm8k``) scores the same answers exactly as ``uta_gsm8k``.

Runs on lm-eval 0.4.13 and 0.5 (``make test-lm05``): the real evaluator, the real gsm8k task
of the installed lm-eval as the source, a scripted model, the fixture in gsm8k's schema.
"""

from __future__ import annotations

import json

import pytest
from pipeline_run import DATA, NO_JUDGE, evaluate, records

from uta_tasks.datasets import gsm8k
from uta_tasks.wrap.benchmark import benchmark
from uta_tasks.wrap.check import plan
from uta_tasks.wrap.yamls import write

GSM8K = DATA / "gsm8k_test.jsonl"
META = {**NO_JUDGE, "gsm8k_data_files": str(GSM8K)}
#: our uta_gsm8k metric -> the wrapped task's metric (lm-eval's metric_filter)
SAME = {"exact_match_flexible": "exact_match_flexible-extract", "exact_match_strict": "exact_match_strict-match"}


def _docs() -> list[dict]:
    return [json.loads(line) for line in GSM8K.read_text().splitlines()]


def _answers(doc: dict) -> list[str]:
    gold = doc["answer"].split("#### ")[-1]
    return [f"The answer is {gold}.", f"#### {gold}", f"So ${gold},000 in total.", "I think 41.", "no number",
            f"First 3, then {gold}", f"{gold}.5", f"#### {gold}\nor maybe 7"]


def test_wrapped_gsm8k_scores_every_answer_as_uta_gsm8k():
    wrapped = benchmark("uta_wrap_gsm8k", "lm-eval:gsm8k", META)
    assert wrapped.primary == "exact_match_flexible-extract"
    compared = 0
    for doc in _docs():
        for answer in _answers(doc):
            ours, theirs = gsm8k.score(doc, answer), wrapped.score(doc, answer)
            assert {SAME[k]: v for k, v in ours.items()} == theirs, answer
            compared += 1
    assert compared == 6 * 8


def test_wrapped_gsm8k_through_the_evaluator(scripted, tmp_path):
    """Same per-doc accuracy as uta_gsm8k on the answers the wrapped run got; q is lm-eval's prompt."""
    write(tmp_path, plan(["gsm8k"]), {})
    results = evaluate(scripted, ["uta_wrap_gsm8k"], metadata=META, include=(tmp_path,), limit=4)
    docs = {d["question"]: d for d in _docs()}
    logged = results["samples"]["uta_wrap_gsm8k"]
    assert len(logged) == 4
    for sample, record in zip(logged, records(results, "uta_wrap_gsm8k"), strict=True):
        doc = docs[sample["doc"]["question"]]
        assert record.q == f"Question: {doc['question']}\nAnswer:"  # lm-eval's own prompt, zero-shot
        assert record.benchmark == "lm-eval:gsm8k"
        ours = gsm8k.score(doc, record.answer)
        for mine, theirs in SAME.items():
            assert sample[theirs] == ours[mine]
    config = results["configs"]["uta_wrap_gsm8k"]
    assert config["metadata"]["uta_benchmark"] == "lm-eval:gsm8k"
    accuracy = results["results"]["uta_wrap_gsm8k"]["exact_match_flexible-extract,none"]
    assert accuracy == pytest.approx(sum(s["exact_match_flexible-extract"] for s in logged) / 4)
    _the_report_names_it_by_its_source_task(results, accuracy, tmp_path / "run")


def _the_report_names_it_by_its_source_task(results: dict, accuracy: float, out) -> None:
    from lm_eval.loggers import EvaluationTracker

    from uta_tasks.runs.collect import collect
    from uta_tasks.schema import output

    tracker = EvaluationTracker(output_path=str(out))
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    tracker.save_results_samples(task_name="uta_wrap_gsm8k", samples=samples["uta_wrap_gsm8k"])
    (row,) = collect([out]).rows
    assert (row.task, row.benchmark) == ("uta_wrap_gsm8k", "lm-eval:gsm8k")
    assert row.run.tasks["uta_wrap_gsm8k"].primary == "exact_match_flexible-extract"
    assert row.metric(output.ACCURACY).value == pytest.approx(accuracy)
