"""Constructed runs of three paper models whose verdicts equal published cells, for the report tests.

* Qwen/Qwen3.5-27B at T=0 and T=1 on GPQA Diamond and IFBench (Tables 3, 4, 5);
* openai/gpt-oss-120b at T=0: GPQA Diamond truncation (Table 1 left) and IFBench appended question
  (Table 1 right, a text cell);
* zai-org/GLM-4.7 at T=0 on GSM8K: follow-up 1.2% and accuracy 95.3% (Table 5).
"""

from __future__ import annotations

from pathlib import Path

from paper_runs import write_paper_run
from run_builder import Doc, Turn

RESTATE = "previous_turn_restate"


def _docs(k: int, n: int, correct: int | None = None, label: str = RESTATE) -> list[Doc]:
    return [Doc([Turn(i < k, None if i < k else label)], correct=correct is None or i < correct) for i in range(n)]


def _pert(k: int, k_ref: int, changed: int, n: int) -> list[Doc]:
    return [Doc([Turn(i < k, ref=i < k_ref, changed=i < changed)]) for i in range(n)]


# (model, temperature) -> task -> docs; rates as published.
RUNS = {
    ("Qwen/Qwen3.5-27B", 0.0): {"uta_gpqa_diamond": lambda: _docs(3, 198), "uta_ifbench": lambda: _docs(3, 300)},
    ("Qwen/Qwen3.5-27B", 1.0): {"uta_gpqa_diamond": lambda: _docs(71, 198), "uta_ifbench": lambda: _docs(92, 300)},
    ("openai/gpt-oss-120b", 0.0): {"uta_gpqa_diamond_trunc": lambda: _pert(130, 41, 198, 198),
                                   "uta_ifbench_question": lambda: _pert(77, 4, 297, 300)},
    ("zai-org/GLM-4.7", 0.0): {"uta_gsm8k": lambda: _docs(16, 1319, correct=1257, label="meta_planning")},
}


def write_paper_report_runs(root: Path) -> list[Path]:
    """Write one output folder per model and temperature and return the folders."""
    folders = []
    for (model, t), tasks in RUNS.items():
        out = root / f"{model.split('/')[1]}-t{t:g}"
        write_paper_run(out, model, {name: make() for name, make in tasks.items()}, temperature=t)
        folders.append(out)
    return folders
