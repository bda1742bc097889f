"""The evidence docs/parity.md gives on the label/decision pairing, recomputed from the published
cells: gpt-oss's Table 5 rates pooled by benchmark size against the text's plausible_followup
share and Table 6's failure labels."""

from __future__ import annotations

from pathlib import Path

from uta_tasks.paper.build import N_DOCS
from uta_tasks.paper.cells import load_reference

FIVE = ("gsm8k", "ifeval", "ifbench", "gpqa_main", "gpqa_diamond")
PARITY = Path(__file__).resolve().parents[2] / "docs" / "parity.md"
HALF = 0.05  # every printed number is off by at most half its last digit


def _pooled(model: str, shift: float = 0.0) -> float:
    """Genuine turns of a model over the five benchmarks (a count, from Table 5's rates)."""
    rates = {c.benchmark: c.value for c in load_reference().cells
             if c.source == "Table 5" and c.model == model and c.metric == "genuine_followup"}
    return sum((rates[b] + shift) * N_DOCS[b] / 100 for b in FIVE)


def _family(name: str, label: str) -> float:
    return next(c.value for c in load_reference().cells if c.source == "Table 6" and c.model == name
                and c.metric == label)


def test_gpt_oss_genuine_turns_outnumber_its_plausible_followups():
    docs = sum(N_DOCS[b] for b in FIVE)
    n20, n120 = _pooled("openai/gpt-oss-20b"), _pooled("openai/gpt-oss-120b")
    assert (round(n20), round(n120)) == (140, 141)
    genuine = 100 * (n20 + n120) / (2 * docs)
    assert f"{genuine:.2f}" == "5.01"
    followup = _family("gpt-oss", "label_plausible_followup")
    failures = sum(c.value for c in load_reference().cells if c.source == "Table 6" and c.model == "gpt-oss"
                   and c.origin == "table")
    assert (followup, f"{failures:.1f}") == (4.2, "95.8")
    # bounds under rounding
    low = 100 * (_pooled("openai/gpt-oss-20b", -HALF) + _pooled("openai/gpt-oss-120b", -HALF)) / (2 * docs)
    other_max = 100 - (failures - 6 * HALF) - (followup - HALF)
    assert f"{low:.2f}" == "4.96" and f"{other_max:.2f}" == "0.35"
    gap = low - (followup + HALF) - other_max
    assert f"{gap:.2f}" == "0.36" and round(gap / 100 * 5612) == 20
    high = 100 * (_pooled("openai/gpt-oss-20b", HALF) + _pooled("openai/gpt-oss-120b", HALF)) / (2 * docs)
    assert f"{genuine - followup:.1f}" == "0.8" and f"{high - (followup - HALF):.2f}" == "0.91"
    text = PARITY.read_text(encoding="utf-8")
    for figure in ("5.01%", "4.96%", "4.25%", "0.35%", "0.36%", "about 20 of 5,612", "about 140 of 2,806",
                   "at most 0.91"):
        assert figure in text, figure


def test_glm_gap_is_within_rounding():
    docs = sum(N_DOCS[b] for b in FIVE)
    genuine = 100 * _pooled("zai-org/GLM-4.7") / docs
    assert f"{genuine:.2f}" == "2.06"
    assert _family("GLM-4.7", "label_plausible_followup") == 1.9
    assert "2.06% genuine" in PARITY.read_text(encoding="utf-8")
