"""Krippendorff's alpha among several raters: the ``krippendorff`` package's statistic, one
case computed by hand, the degenerate cases, and uta-agreement with three sources."""

from __future__ import annotations

import json

import krippendorff
import numpy as np
import pytest

from uta_tasks.judge import LABELS
from uta_tasks.stats.alpha import krippendorff_alpha, value_counts


def test_alpha_of_a_hand_computed_case() -> None:
    """Three raters, four items, one answer missing.

    Items: u1 = {1,1,1}, u2 = {1,0,1}, u3 = {0,0,0}, u4 = {0,0} (rater C silent). Coincidences
    o_11 = 3 + 1 = 4, o_00 = 3 + 2 = 5, o_01 = o_10 = 1; n_1 = 5, n_0 = 6, n = 11.
    alpha = 1 - (n - 1) * (o_01 + o_10) / (2 * n_0 * n_1) = 1 - 10 * 2 / 60 = 2/3.
    """
    a = {"u1": True, "u2": True, "u3": False, "u4": False}
    b = {"u1": True, "u2": False, "u3": False, "u4": False}
    c = {"u1": True, "u2": True, "u3": False}
    found = krippendorff_alpha(["A", "B", "C"], [a, b, c], (True, False), replicates=0)
    assert found.value == pytest.approx(2 / 3) and found.items == 4 and found.left_out == 0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_alpha_equals_the_krippendorff_package_on_labels_with_missing_answers(seed: int) -> None:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, len(LABELS), size=60)
    raters = []
    for _ in range(4):
        answers = np.where(rng.random(60) < 0.7, truth, rng.integers(0, len(LABELS), size=60))
        raters.append({f"i{k}": LABELS[int(v)] for k, v in enumerate(answers) if rng.random() > 0.1})
    found = krippendorff_alpha(["a", "b", "c", "d"], raters, LABELS, replicates=0)
    matrix = np.array([[LABELS.index(r[f"i{k}"]) if f"i{k}" in r else np.nan for k in range(60)] for r in raters])
    assert found.value == pytest.approx(krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal"))
    assert value_counts(raters, LABELS).sum() == sum(len(r) for r in raters)


def test_alpha_is_undefined_without_variation_and_items_with_one_answer_are_left_out() -> None:
    same = [{"x": True, "y": True}, {"x": True, "y": True}, {"x": True, "z": False}]
    found = krippendorff_alpha(["a", "b", "c"], same, (True, False), replicates=100)
    assert found.value is None and "no variation" in found.reason and found.left_out == 1


def test_bootstrap_interval_is_seeded_and_brackets_alpha() -> None:
    rng = np.random.default_rng(5)
    truth = rng.random(80) < 0.4
    raters = [{f"i{k}": bool(v) for k, v in enumerate(np.where(rng.random(80) < 0.85, truth, ~truth))}
              for _ in range(3)]
    one = krippendorff_alpha(["a", "b", "c"], raters, (True, False), replicates=300, seed=1)
    assert one.ci is not None and one.ci[0] < one.value < one.ci[1]
    assert one == krippendorff_alpha(["a", "b", "c"], raters, (True, False), replicates=300, seed=1)


def test_uta_agreement_reports_alpha_with_three_sources(tmp_path, capsys) -> None:
    from uta_tasks.apps.agreement.cli import main

    rows = {"a": [True, True, False, False], "b": [True, False, False, False], "c": [True, True, False, None]}
    paths = []
    for name, answers in rows.items():
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(
            json.dumps({"item_id": f"{k:064x}", "label": "plausible_followup" if g else "other", "genuine": g}) + "\n"
            for k, g in enumerate(answers) if g is not None))
        paths.append(f"{name}={path}")
    assert main([*paths, "--replicates", "200", "--json", str(tmp_path / "out.json")]) == 0
    text = capsys.readouterr().out
    assert "Krippendorff's alpha (nominal) over 3 sources" in text and "genuine: 0.667" in text
    data = json.loads((tmp_path / "out.json").read_text())
    assert data["alpha"]["genuine"]["value"] == pytest.approx(2 / 3)
    assert data["alpha"]["label"]["value"] == pytest.approx(2 / 3)  # labels follow genuine one to one here
