"""Constructed runs for the report tests: 2 models x 2 temperatures of GSM8K (base and truncation),
plus one run of GPQA Diamond without samples."""

from __future__ import annotations

from pathlib import Path

from run_builder import RunSpec, docs, write_run

N = 20
# (model, temperature) -> genuine user turns out of N on uta_gsm8k and uta_gsm8k_trunc
RATES = {("org/model-a", 0.0): (2, 10), ("org/model-a", 0.7): (6, 12), ("org/model-b", 0.0): (0, 4),
         ("org/model-b", 0.7): (1, 5)}


def _flags(k: int) -> list[bool]:
    return [i < k for i in range(N)]


def write_report_runs(root: Path) -> list[Path]:
    """Write the runs (one output folder per model and temperature) and return the folders."""
    folders = []
    for (model, t), (k, k_trunc) in RATES.items():
        out = root / f"{model.split('/')[1]}-t{t}"
        labels = ["previous_turn_restate" if i % 2 else "degenerate_short" for i in range(N)]
        labels[:k] = ["plausible_followup"] * k
        spec = RunSpec({"uta_gsm8k": docs(_flags(k), correct=[i % 2 == 0 for i in range(N)], labels=labels),
                        "uta_gsm8k_trunc": docs(_flags(k_trunc), ref=_flags(k))},
                       model=model, temperature=t)
        write_run(out, spec)
        folders.append(out)
    out = root / "model-a-gpqa"
    write_run(out, RunSpec({"uta_gpqa_diamond": docs([True, True, True, None], correct=[True, False, True, False])},
                           model="org/model-a", samples=False))
    folders.append(out)
    return folders
