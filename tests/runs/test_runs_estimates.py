"""Counts, rates and intervals of tasks and groups, with and without samples."""

from __future__ import annotations

import pytest
from run_builder import Doc, RunSpec, Turn, docs, write_run

from uta_tasks.runs import EstimateSettings, estimate, load_run
from uta_tasks.schema import output
from uta_tasks.stats import newcombe, wilson

GENUINE = [True, False, None, True, False, False, True, None, False, False]
CORRECT = [True, True, True, False, False, True, True, True, False, True]
REF = [False, False, True, None, False, False, False, False, True, False]


@pytest.fixture
def run_dir(tmp_path):
    spec = RunSpec(
        {"uta_gsm8k": docs(GENUINE, CORRECT), "uta_gsm8k_trunc": docs(GENUINE[::-1], CORRECT, REF)},
        groups={"uta_gsm8k_all": ["uta_gsm8k", "uta_gsm8k_trunc"]},
    )
    return write_run(tmp_path / "with", spec).parent


@pytest.fixture
def run_dir_no_samples(tmp_path):
    spec = RunSpec({"uta_gsm8k": docs(GENUINE, CORRECT), "uta_gsm8k_trunc": docs(GENUINE[::-1], CORRECT, REF)},
                   samples=False, groups={"uta_gsm8k_all": ["uta_gsm8k", "uta_gsm8k_trunc"]})
    return write_run(tmp_path / "without", spec).parent


def test_follow_up_rate_counts_judged_turns_only(run_dir):
    run = load_run(run_dir)
    est = estimate(run, "uta_gsm8k", output.GENUINE)
    assert (est.k, est.n, est.counts) == (3, 8, "samples")
    assert est.value == pytest.approx(3 / 8)
    assert est.lm_eval == pytest.approx(3 / 8)  # one repeat: lm-eval's mean of per-doc rates is the same
    ref = wilson(3, 8)
    assert (est.interval.low, est.interval.high) == (ref.low, ref.high)


def test_label_accuracy_and_conditioned_rates(run_dir):
    run = load_run(run_dir)
    label = estimate(run, "uta_gsm8k", output.label_metric("previous_turn_restate"))
    assert (label.k, label.n) == (5, 8)
    acc = estimate(run, "uta_gsm8k", output.ACCURACY)
    assert (acc.k, acc.n) == (7, 10)
    assert acc.lm_eval == pytest.approx(0.7)
    correct = estimate(run, "uta_gsm8k", output.GENUINE_CORRECT)
    wrong = estimate(run, "uta_gsm8k", output.GENUINE_WRONG)
    # correct docs 0,1,2,5,6,7,9 -> judged 0,1,5,6,9 with genuine 0 and 6; wrong docs 3,4,8 -> genuine 3
    assert (correct.k, correct.n) == (2, 5)
    assert (wrong.k, wrong.n) == (1, 3)


def test_unjudged_and_changed_shares_of_a_perturbed_task(run_dir):
    run = load_run(run_dir)
    unj = estimate(run, "uta_gsm8k_trunc", output.UNJUDGED_SHARE)
    assert (unj.k, unj.n) == (3, 20)  # two unjudged u, one unjudged u_ref, over u and u_ref verdicts
    assert unj.lm_eval == pytest.approx(3 / 20)
    changed = estimate(run, "uta_gsm8k_trunc", output.SHARE_CHANGED)
    assert (changed.k, changed.n) == (10, 10)
    assert changed.lm_eval == pytest.approx(run.tasks["uta_gsm8k_trunc"].values[output.SHARE_CHANGED]
                                            / 1.0)


def test_pass_at_k_is_per_doc_with_repeats(tmp_path):
    spec = RunSpec({"uta_gsm8k": [Doc([Turn(False), Turn(True)]), Doc([Turn(False), Turn(None)]),
                                  Doc([Turn(None), Turn(None)])]})
    run = load_run(write_run(tmp_path, spec).parent)
    p = estimate(run, "uta_gsm8k", output.GENUINE_PASS_AT_K)
    assert (p.k, p.n) == (1, 2)
    g = estimate(run, "uta_gsm8k", output.GENUINE)
    assert (g.k, g.n) == (1, 3)


def test_group_rows_pool_their_tasks(run_dir):
    run = load_run(run_dir)
    parts = [estimate(run, t, output.GENUINE) for t in ("uta_gsm8k", "uta_gsm8k_trunc")]
    group = estimate(run, "uta_gsm8k_all", output.GENUINE)
    assert group.k == sum(p.k for p in parts) and group.n == sum(p.n for p in parts)
    assert estimate(run, "uta_gsm8k_all", output.UNJUDGED).value == 5.0  # summed like lm-eval's total


def test_diff_uses_a_paired_bootstrap_with_samples(run_dir):
    run = load_run(run_dir)
    diff = estimate(run, "uta_gsm8k_trunc", output.GENUINE_DIFF, EstimateSettings(iterations=500, seed=1))
    assert diff.interval.method == "paired_bootstrap"
    # docs judged on both u and u_ref: 0,1,4,5,6,8,9 (doc 2 and 7 have u unjudged, doc 3 has u_ref unjudged)
    assert diff.n == 7
    assert diff.interval.low <= diff.value <= diff.interval.high


def test_without_samples_counts_are_derived_and_flagged(run_dir_no_samples):
    run = load_run(run_dir_no_samples)
    est = estimate(run, "uta_gsm8k", output.GENUINE)
    assert est.approximate and (est.k, est.n) == (3, 8)  # 10 docs - 2 unjudged
    acc = estimate(run, "uta_gsm8k", output.ACCURACY)
    assert (acc.k, acc.n) == (7, 10)
    diff = estimate(run, "uta_gsm8k_trunc", output.GENUINE_DIFF)
    assert diff.interval.method == "newcombe"
    c = estimate(run, "uta_gsm8k_trunc", output.GENUINE)
    b = estimate(run, "uta_gsm8k_trunc", output.GENUINE_BASE)
    ref = newcombe(c.k, c.n, b.k, b.n)
    assert (diff.interval.low, diff.interval.high) == (ref.low, ref.high)


def test_rates_with_nothing_judged_are_none_and_unknown_metrics_absent(tmp_path):
    spec = RunSpec({"uta_gsm8k": docs([None, None], correct=[True, True])})
    run = load_run(write_run(tmp_path, spec).parent)
    g = estimate(run, "uta_gsm8k", output.GENUINE)
    assert g is not None and g.value is None and g.interval is None
    assert estimate(run, "uta_gsm8k", output.GENUINE_WRONG).value is None
    assert estimate(run, "uta_gsm8k", "no_such_metric") is None
    assert estimate(run, "uta_nope", output.GENUINE) is None
