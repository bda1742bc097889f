"""The paper's Table 7 slices (full, random, balanced hard) and the per-file view of two
judges, on constructed verdicts checked against counts computed by hand."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from uta_tasks.apps.agreement.slices import draw_slices, file_view, slice_rows
from uta_tasks.runs.label_sources import LabelSource

# 20 items: A yes/B no 4, A no/B yes 2, both yes 4, both no 10 (A genuine: 8 of 20 = 40%).
CELLS = [(True, False)] * 4 + [(False, True)] * 2 + [(True, True)] * 4 + [(False, False)] * 10


def _judge(name: str, column: int, cells=CELLS, files: dict[str, list[str]] | None = None) -> LabelSource:
    answers = {f"{k:02d}": ("plausible_followup" if c[column] else "other", c[column]) for k, c in enumerate(cells)}
    return LabelSource(name, f"/runs/{name}", answers, rater=name, judge=(name, "followupeval-v2"),
                       files=files or {})


def test_slices_hold_the_hand_counted_items() -> None:
    a, b = _judge("nano", 0), _judge("mini", 1)
    slices = draw_slices(a, b, size=10, seed=0)
    assert len(slices["full"]) == 20
    assert len(slices["random"]) == 10 and sum(a.answers[i][1] for i in slices["random"]) == 4  # 40% kept
    hard = slices["hard"]
    cells = [(a.answers[i][1], b.answers[i][1]) for i in hard]
    # limit 10 // 2 = 5 of the 6 disagreements, then 3 agreed-genuine and 2 agreed-not-genuine
    assert len(hard) == 10
    assert sum(x != y for x, y in cells) == 5
    assert cells.count((True, True)) == 3 and cells.count((False, False)) == 2
    assert draw_slices(a, b, size=10, seed=0) == slices


def test_slice_agreement_and_kappa_equal_the_hand_computed_values() -> None:
    a, b = _judge("nano", 0), _judge("mini", 1)
    rows = {r.slice: r for r in slice_rows(a, b, size=200, seed=0, replicates=0)}
    full = rows["full"].comparison.genuine
    # full: 14 of 20 agree; p_e = (8*6 + 12*14) / 400 = 0.54; kappa = 0.16 / 0.46 = 8/23
    assert full.agreement == pytest.approx(70.0) and full.kappa == pytest.approx(8 / 23)
    # hard: all 6 disagreements + 3 both-yes + 3 both-no: yy 3, yn 4, ny 2, nn 3
    hard = rows["hard"]
    assert hard.comparison.n == 12 and hard.comparison.genuine.confusion == [[3, 4], [2, 3]]
    assert hard.comparison.genuine.agreement == pytest.approx(50.0)
    assert hard.comparison.genuine.kappa == pytest.approx(1 / 37)  # (72 - 70) / (144 - 70)
    assert (hard.rate_a, hard.rate_b) == (pytest.approx(7 / 12), pytest.approx(5 / 12))
    assert rows["random"].comparison.n == 20  # size 200 > 20 items: the whole panel


def test_hard_slice_can_be_defined_by_another_pair() -> None:
    a, b = _judge("nano", 0), _judge("mini", 1)
    c = _judge("full", 0, cells=[(x, x) for x, _ in CELLS])  # "full" agrees with nano everywhere
    slices = draw_slices(b, c, size=200, seed=0, hard_from=(a, b))
    assert sorted(slices["hard"]) == sorted(draw_slices(a, b, size=200, seed=0)["hard"])


def test_per_file_rates_correlations_and_model_shifts() -> None:
    cells = CELLS[:4] + [(False, True)] + [(True, True)] * 4 + [(False, True), (True, False)] + CELLS[11:]
    files = {f"m{m}/t{t}": [f"{k:02d}" for k in range(5 * (2 * (m - 1) + t - 1), 5 * (2 * (m - 1) + t))]
             for m in (1, 2) for t in (1, 2)}
    a, b = _judge("nano", 0, cells, files), _judge("mini", 1, cells, files)
    view = file_view(a, b)
    assert view is not None and [f[0] for f in view.files] == ["m1/t1", "m1/t2", "m2/t1", "m2/t2"]
    x = np.array([f[2] for f in view.files])
    y = np.array([f[3] for f in view.files])
    for (_key, n, ra, rb), ids in zip(view.files, files.values()):
        assert n == 5 and ra == sum(cells[int(i)][0] for i in ids) / 5 and rb == sum(cells[int(i)][1] for i in ids) / 5
    assert view.pearson == pytest.approx(stats.pearsonr(x, y)[0])
    assert view.spearman == pytest.approx(stats.spearmanr(x, y)[0])
    by_model = {m: (n, ra, rb, d) for m, n, ra, rb, d in view.models}
    for model in ("m1", "m2"):
        ids = [i for key, v in files.items() if key.startswith(model + "/") for i in v]
        ra = sum(cells[int(i)][0] for i in ids) / len(ids)
        rb = sum(cells[int(i)][1] for i in ids) / len(ids)
        assert by_model[model] == (len(ids), pytest.approx(ra), pytest.approx(rb), pytest.approx(rb - ra))
