"""The published cells one GPU can check, and the width of the 95% interval to expect at each.

``docs/reproducing.md`` holds :func:`width_table` verbatim (a test compares them). The
width is the Wilson interval's at the published rate over the cell's N: a run that
reproduces the paper lands anywhere in about that range, so a cell cannot be checked more
finely than this.
"""

from __future__ import annotations

from uta_tasks.paper.cells import Cell, load_reference
from uta_tasks.stats import wilson

# (source, model, benchmark, perturbation, temperature, metric) of each cell, grouped as the page lists them.
_QWEN_ACC = ("0.8B", "2B", "4B", "9B", "27B", "35B-A3B")
CELLS: tuple[tuple[str, str, str, str, float, str], ...] = (
    *(("Table 3", f"Qwen/Qwen3.5-{s}", "gsm8k", "none", 0.0, "accuracy") for s in _QWEN_ACC),
    *(("Table 5", f"openai/gpt-oss-{s}", "gsm8k", "none", 0.0, "accuracy") for s in ("20b", "120b")),
    ("Table 5", "Qwen/Qwen3.5-9B", "gpqa_diamond", "none", 0.0, "genuine_followup"),
    *(("Table 1", f"openai/gpt-oss-{s}", b, "trunc", 0.0, m) for s in ("20b", "120b")
      for b in ("gsm8k", "gpqa_diamond") for m in ("genuine_followup_base", "genuine_followup")),
    *(("Table 4", "Qwen/Qwen3.5-27B", b, "none", t, "genuine_followup") for b in ("gsm8k", "gpqa_diamond", "ifbench")
      for t in (0.0, 0.3, 0.7, 1.0)),
)


def single_gpu_cells() -> list[Cell]:
    """The cells of :data:`CELLS`, from the packaged cells file."""
    by_key = {(c.source, c.model, c.benchmark, c.perturbation, c.temperature, c.metric): c
              for c in load_reference().cells}
    return [by_key[key] for key in CELLS]


def width_table(confidence: float = 0.95) -> str:
    """The Markdown table of the cells with the interval to expect at the published rate.

    Args:
        confidence: coverage of the interval.
    """
    lines = ["| source | model | benchmark | task | T | metric | paper % | N | expected 95% interval | width pp |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for c in single_gpu_cells():
        n = c.n or c.n_docs or 0
        iv = wilson(round(c.value * n / 100.0), n, confidence)
        task = f"uta_{c.benchmark}" + ("" if c.perturbation == "none" else f"_{c.perturbation}")
        lines.append(f"| {c.source} | {c.model} | {c.benchmark} | {task} | {c.temperature:g} | {c.metric} | "
                     f"{c.value:.1f} | {n} | [{100 * iv.low:.1f}, {100 * iv.high:.1f}] | "
                     f"{100 * (iv.high - iv.low):.1f} |")
    return "\n".join(lines) + "\n"
