"""Cells the paper states only in its text, each with the sentence it comes from: the summary
(paper-summary.txt) or, for Appendix D.1's per-model rates and correlations, the paper's page
(paper-page-with-tables.txt).

The seed tables (paper-figures-and-tables.txt) lack Table 1's right panel, the Table 3/4
rows of Qwen3.5-35B-A3B, -122B-A10B and -397B-A17B, the Fig. 1 (right) curves of gpt-oss
and GLM-4.7, the GPQA and IFBench accuracies of Fig. 3 and Section 3, Table 6's
plausible_followup shares and the judge numbers of Appendix D. The builder checks that every
quote occurs in its seed text and holds the number as printed.
"""

from __future__ import annotations

from dataclasses import dataclass

from uta_tasks.paper.cells import (
    GENUINE_AGREEMENT,
    GENUINE_FOLLOWUP_NANO,
    GENUINE_KAPPA,
    GENUINE_SHARE,
    LABEL_AGREEMENT,
    LABEL_KAPPA,
    RATE_PEARSON,
    RATE_SPEARMAN,
)

SUMMARY, PAGE = "summary", "page"


@dataclass(frozen=True)
class TextCell:
    """A number stated in a sentence of the paper.

    Attributes:
        source: the table or figure the sentence cites.
        model: the model as the paper names it (or the judge for Appendix D).
        benchmark: package benchmark name, or None.
        perturbation: ``none``, ``trunc`` or ``question``.
        temperature: temperature, or None.
        metric: metric name.
        printed: the number as printed in the quote (without ``%``).
        quote: the sentence part it is taken from, verbatim.
        unit: ``%``, ``kappa`` or ``r`` (a correlation coefficient).
        seed: the seed text holding the quote, ``summary`` or ``page``.
        n: the denominator the paper states elsewhere (Table 7's slice sizes), when the
            benchmark does not give one.
    """

    source: str
    model: str
    benchmark: str | None
    perturbation: str
    temperature: float | None
    metric: str
    printed: str
    quote: str
    unit: str = "%"
    seed: str = SUMMARY
    n: int | None = None


_Q120 = "with gpt-oss-120b's genuine-follow-up rate jumping from 1.3% to 25.7% and 99.0% of user turns changing text"
_QGLM = "GLM-4.7 changes 99% of its user turns but genuine-follow-up barely increases (4.7% to 5.0%)"
_Q397 = "Qwen3.5-397B-A17B's genuine-follow-up rate actually decreases (7.7% to 4.7%)"
_QGPQA = "(27B at 35.9% vs. 35B-A3B at 2.5%, 122B-A10B at 3.5%, 397B-A17B at 12.1%)"
_QIFB = "(27B at 30.7% vs. 35B-A3B at 13.3%, 122B-A10B at 25.3%, 397B-A17B at 43.7%"
_QGLMT = "GLM-4.7 shows a similar trajectory: from 1.2% to 15.2% on GSM8K, and from 1.5% to 35.4% on GPQA Diamond at T=1.0"
_QACC = ("than Qwen3.5-397B-A17B (86.1% accuracy, 0.5% follow-up) or GLM-4.7 (66.4% accuracy, 1.5% follow-up)")
_QHUMAN = "gpt-5.4-mini achieved 90.5% pooled agreement with human annotators (κ = 0.726), compared to 73.0% (κ = 0.311) for nano"
_QLABEL = "Primary-label agreement was lower at 58.5% (κ = 0.481)"
_QSHARE = "(37.9% of examples vs. 22.4% for mini and 18.1% for gpt-5.4)"
_QRATE = "with the overall genuine-follow-up rate dropping from 26.6% (nano) to 18.5% (mini)"

_Q20 = "gpt-oss-20B from 1.0% to 6.0% with 97.3% changed"
_Q27 = "Qwen3.5-27B changes only 6.3% of user turns (0.0% → 6.3% genuine)"
_Q397C = "Qwen3.5-397B's genuine-follow-up rate decreases from 7.7% to 4.7% with 40.3% of turns changed"
_QGPQA_ACC = "(gpt-oss-20B at 61.1%, gpt-oss-120B at 67.2%) relative to Qwen3.5-397B (86.1%)"
_Q9B = "despite lower accuracy (78.6% vs. 86.1%)"
_QIFB_ACC = "(21.6% vs. 51.6% by the paper's reported IFBench accuracy numbers)"
_Q122 = "the 2B, 4B, 35B-A3B, and 122B-A10B models are all at 0.0%"
_QD1 = "gpt-oss-120b falls from 21.2% to 4.8% on HealthBench and from 43.0% to 16.1% on Coval."
_QCORR = "Pearson r = 0.642 and Spearman ρ = 0.685 are reported for file-level rates."
_FULL_PANEL, _BALANCED = 7815, 965  # Table 7's N of the full-panel rerun and of the balanced slice
_FILES = "gpt-5.4-nano vs gpt-5.4-mini (random slice, file-level rates)"

_BASE, _RATE, _CHANGED, _ACC = "genuine_followup_base", "genuine_followup", "share_changed", "accuracy"
_T1R, _T4, _F1, _F3 = "Table 1 (right)", "Table 4", "Fig. 1", "Fig. 3"
_MINI, _NANO = "gpt-5.4-mini vs human", "gpt-5.4-nano vs human"

TEXT_CELLS: tuple[TextCell, ...] = (
    TextCell(_T1R, "gpt-oss-120b", "ifbench", "question", 0.0, _BASE, "1.3", _Q120),
    TextCell(_T1R, "gpt-oss-120b", "ifbench", "question", 0.0, _RATE, "25.7", _Q120),
    TextCell(_T1R, "gpt-oss-120b", "ifbench", "question", 0.0, _CHANGED, "99.0", _Q120),
    TextCell(_T1R, "GLM-4.7", "ifbench", "question", 0.0, _BASE, "4.7", _QGLM),
    TextCell(_T1R, "GLM-4.7", "ifbench", "question", 0.0, _RATE, "5.0", _QGLM),
    TextCell(_T1R, "GLM-4.7", "ifbench", "question", 0.0, _CHANGED, "99", _QGLM),
    TextCell(_T1R, "Qwen3.5-27B", "ifbench", "question", 0.0, _CHANGED, "6.3", "Qwen3.5-27B changes only 6.3% of turns"),
    TextCell(_T1R, "Qwen3.5-397B-A17B", "ifbench", "question", 0.0, _BASE, "7.7", _Q397),
    TextCell(_T1R, "Qwen3.5-397B-A17B", "ifbench", "question", 0.0, _RATE, "4.7", _Q397),
    TextCell(_T1R, "gpt-oss-20b", "ifbench", "question", 0.0, _BASE, "1.0", _Q20),
    TextCell(_T1R, "gpt-oss-20b", "ifbench", "question", 0.0, _RATE, "6.0", _Q20),
    TextCell(_T1R, "gpt-oss-20b", "ifbench", "question", 0.0, _CHANGED, "97.3", _Q20),
    TextCell(_T1R, "Qwen3.5-27B", "ifbench", "question", 0.0, _BASE, "0.0", _Q27),
    TextCell(_T1R, "Qwen3.5-27B", "ifbench", "question", 0.0, _RATE, "6.3", _Q27),
    TextCell(_T1R, "Qwen3.5-397B-A17B", "ifbench", "question", 0.0, _CHANGED, "40.3", _Q397C),
    TextCell("Table 3", "Qwen3.5-122B-A10B", "gpqa_diamond", "none", 0.0, _RATE, "0.0", _Q122),
    TextCell("Table 6", "Qwen3.5", None, "none", 0.0, "label_plausible_followup", "2.1",
             "Plausible followup accounts for only 2.1% of generations."),
    TextCell("Table 6", "gpt-oss", None, "none", 0.0, "label_plausible_followup", "4.2", "Plausible followup is 4.2%."),
    TextCell("Table 6", "GLM-4.7", None, "none", 0.0, "label_plausible_followup", "1.9", "Plausible followup is 1.9%."),
    TextCell(_T4, "Qwen3.5-397B-A17B", "gsm8k", "none", 1.0, _RATE, "18.0", "followed by 397B-A17B at 18.0%"),
    TextCell(_T4, "Qwen3.5-35B-A3B", "gsm8k", "none", 1.0, _RATE, "5.5", "while 9B (7.7%) and 35B-A3B (5.5%) lag"),
    TextCell(_T4, "Qwen3.5-122B-A10B", "gsm8k", "none", 1.0, _RATE, "3.3", "the MoE 122B-A10B reaches 3.3%"),
    TextCell(_T4, "Qwen3.5-35B-A3B", "gpqa_diamond", "none", 1.0, _RATE, "2.5", _QGPQA),
    TextCell(_T4, "Qwen3.5-122B-A10B", "gpqa_diamond", "none", 1.0, _RATE, "3.5", _QGPQA),
    TextCell(_T4, "Qwen3.5-397B-A17B", "gpqa_diamond", "none", 1.0, _RATE, "12.1", _QGPQA),
    TextCell(_T4, "Qwen3.5-35B-A3B", "ifbench", "none", 1.0, _RATE, "13.3", _QIFB),
    TextCell(_T4, "Qwen3.5-122B-A10B", "ifbench", "none", 1.0, _RATE, "25.3", _QIFB),
    TextCell(_T4, "Qwen3.5-397B-A17B", "ifbench", "none", 1.0, _RATE, "43.7", _QIFB),
    TextCell(_F1, "GLM-4.7", "gsm8k", "none", 1.0, _RATE, "15.2", _QGLMT),
    TextCell(_F1, "GLM-4.7", "gpqa_diamond", "none", 1.0, _RATE, "35.4", _QGLMT),
    TextCell(_F1, "gpt-oss-20b", "gpqa_diamond", "none", 1.0, _RATE, "47.0",
             "gpt-oss-20B scales from 20.7% (T=0) to 47.0% (T=1.0)"),
    TextCell(_F1, "gpt-oss-120b", "gsm8k", "none", 1.0, _RATE, "0.1", "even at T=1.0, gpt-oss-120B's follow-up rate is 0.1%"),
    TextCell(_F1, "gpt-oss-120b", "ifbench", "none", 1.0, _RATE, "3.7",
             "(gpt-oss-120B: 3.3% → 3.7% at T=0.0 → 1.0 from Figure 1"),
    TextCell(_F3, "Qwen3.5-397B-A17B", "gpqa_diamond", "none", 0.0, _ACC, "86.1", _QACC),
    TextCell(_F3, "GLM-4.7", "gpqa_diamond", "none", 0.0, _ACC, "66.4", _QACC),
    TextCell(_F3, "gpt-oss-120b", "gpqa_diamond", "none", 0.0, _ACC, "67.2", "gpt-oss-120B: 67.2% GPQA Diamond accuracy"),
    TextCell(_F3, "gpt-oss-20b", "gpqa_diamond", "none", 0.0, _ACC, "61.1", _QGPQA_ACC),
    TextCell("Section 3.1", "Qwen3.5-9B", "gpqa_diamond", "none", 0.0, _ACC, "78.6", _Q9B),
    TextCell("Section 3.3", "Qwen3.5-0.8B", "ifbench", "none", 0.0, _ACC, "21.6", _QIFB_ACC),
    TextCell("Section 3.3", "Qwen3.5-397B-A17B", "ifbench", "none", 0.0, _ACC, "51.6", _QIFB_ACC),
    TextCell("Appendix D.2", _MINI, None, "none", None, GENUINE_AGREEMENT, "90.5", _QHUMAN),
    TextCell("Appendix D.2", _MINI, None, "none", None, GENUINE_KAPPA, "0.726", _QHUMAN, "kappa"),
    TextCell("Appendix D.2", _NANO, None, "none", None, GENUINE_AGREEMENT, "73.0", _QHUMAN),
    TextCell("Appendix D.2", _NANO, None, "none", None, GENUINE_KAPPA, "0.311", _QHUMAN, "kappa"),
    TextCell("Appendix D.2", _MINI, None, "none", None, LABEL_AGREEMENT, "58.5", _QLABEL),
    TextCell("Appendix D.2", _MINI, None, "none", None, LABEL_KAPPA, "0.481", _QLABEL, "kappa"),
    TextCell("Appendix D.1", "gpt-5.4-nano (full panel)", None, "none", None, GENUINE_SHARE, "26.6", _QRATE,
             n=_FULL_PANEL),
    TextCell("Appendix D.1", "gpt-5.4-mini (full panel)", None, "none", None, GENUINE_SHARE, "18.5", _QRATE,
             n=_FULL_PANEL),
    TextCell("Appendix D.1", "gpt-5.4-nano (balanced slice)", None, "none", None, GENUINE_SHARE, "37.9", _QSHARE,
             n=_BALANCED),
    TextCell("Appendix D.1", "gpt-5.4-mini (balanced slice)", None, "none", None, GENUINE_SHARE, "22.4", _QSHARE,
             n=_BALANCED),
    TextCell("Appendix D.1", "gpt-5.4 (balanced slice)", None, "none", None, GENUINE_SHARE, "18.1", _QSHARE,
             n=_BALANCED),
    TextCell("Appendix D.1", "gpt-oss-120b", "healthbench", "none", 0.0, GENUINE_FOLLOWUP_NANO, "21.2", _QD1, seed=PAGE),
    TextCell("Appendix D.1", "gpt-oss-120b", "healthbench", "none", 0.0, _RATE, "4.8", _QD1, seed=PAGE),
    TextCell("Appendix D.1", "gpt-oss-120b", "coval", "none", 0.0, GENUINE_FOLLOWUP_NANO, "43.0", _QD1, seed=PAGE),
    TextCell("Appendix D.1", "gpt-oss-120b", "coval", "none", 0.0, _RATE, "16.1", _QD1, seed=PAGE),
    TextCell("Appendix D.1", _FILES, None, "none", None, RATE_PEARSON, "0.642", _QCORR, "r", seed=PAGE),
    TextCell("Appendix D.1", _FILES, None, "none", None, RATE_SPEARMAN, "0.685", _QCORR, "r", seed=PAGE),
)
