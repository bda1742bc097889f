"""Cells the paper states only in its text (paper-summary.txt), each with the sentence it comes from.

The seed tables (paper-figures-and-tables.txt) lack Table 1's right panel, the Table 3/4
rows of Qwen3.5-35B-A3B, -122B-A10B and -397B-A17B, the Fig. 1 (right) curves of gpt-oss
and GLM-4.7, the GPQA accuracies of Fig. 3 and the judge-vs-human numbers of Appendix D.2.
The builder checks that every quote occurs in the summary and holds the number as printed.
"""

from __future__ import annotations

from dataclasses import dataclass

from uta_tasks.paper.cells import GENUINE_AGREEMENT, GENUINE_KAPPA, GENUINE_SHARE, LABEL_AGREEMENT, LABEL_KAPPA


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
        unit: ``%`` or ``kappa``.
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

_BASE, _RATE, _CHANGED, _ACC = "genuine_followup_base", "genuine_followup", "changed_share", "accuracy"
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
    TextCell("Appendix D.2", _MINI, None, "none", None, GENUINE_AGREEMENT, "90.5", _QHUMAN),
    TextCell("Appendix D.2", _MINI, None, "none", None, GENUINE_KAPPA, "0.726", _QHUMAN, "kappa"),
    TextCell("Appendix D.2", _NANO, None, "none", None, GENUINE_AGREEMENT, "73.0", _QHUMAN),
    TextCell("Appendix D.2", _NANO, None, "none", None, GENUINE_KAPPA, "0.311", _QHUMAN, "kappa"),
    TextCell("Appendix D.2", _MINI, None, "none", None, LABEL_AGREEMENT, "58.5", _QLABEL),
    TextCell("Appendix D.2", _MINI, None, "none", None, LABEL_KAPPA, "0.481", _QLABEL, "kappa"),
    TextCell("Appendix D.1", "gpt-5.4-nano (full panel)", None, "none", None, GENUINE_SHARE, "26.6", _QRATE),
    TextCell("Appendix D.1", "gpt-5.4-mini (full panel)", None, "none", None, GENUINE_SHARE, "18.5", _QRATE),
    TextCell("Appendix D.1", "gpt-5.4-nano (balanced slice)", None, "none", None, GENUINE_SHARE, "37.9", _QSHARE),
    TextCell("Appendix D.1", "gpt-5.4-mini (balanced slice)", None, "none", None, GENUINE_SHARE, "22.4", _QSHARE),
    TextCell("Appendix D.1", "gpt-5.4 (balanced slice)", None, "none", None, GENUINE_SHARE, "18.1", _QSHARE),
)
