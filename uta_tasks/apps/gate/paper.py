"""``uta-gate --paper``: the reference check as exit codes.

Exit 0 when every matched published value lies inside the run's interval (widened by
``--tolerance`` percentage points), 1 when one lies outside, 2 when no published cell is
comparable with the run (none matched, or every match was made with other settings).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from uta_tasks.apps.gate.api import EXIT_FAIL, EXIT_PASS, EXIT_UNDECIDED
from uta_tasks.paper.reference import INSIDE, NOT_COMPARABLE, OUTSIDE, Check, check_reference
from uta_tasks.runs.collect import collect
from uta_tasks.stats.display import percent


@dataclass(frozen=True)
class PaperGateResult:
    """The checks and the exit code they give.

    Attributes:
        checks: every matched cell with its verdict.
        tolerance_pp: the tolerance used.
    """

    checks: list[Check]
    tolerance_pp: float

    @property
    def exit_code(self) -> int:
        """0, 1 or 2 as described in the module."""
        verdicts = {c.verdict for c in self.checks}
        if OUTSIDE in verdicts:
            return EXIT_FAIL
        return EXIT_PASS if INSIDE in verdicts else EXIT_UNDECIDED

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"tolerance_pp": self.tolerance_pp, "exit_code": self.exit_code,
                "checks": [{"cell": c.cell.id, "source": c.cell.source, "paper": c.cell.value, "run_model": c.run_model,
                            "task": c.task, "value": c.value, "ci_low": c.low, "ci_high": c.high,
                            "ci_method": c.method, "n": c.n, "verdict": c.verdict, "reason": c.reason,
                            "notes": list(c.cell.notes)} for c in self.checks]}


def run_paper_gate(folders: list[str | Path], tolerance_pp: float = 0.0,
                   families: dict[str, str] | None = None) -> PaperGateResult:
    """Check the runs under ``folders`` against the paper's published cells.

    Args:
        folders: lm-eval output folders.
        tolerance_pp: percentage points added to each side of the run's interval.
        families: ``MODEL=FAMILY`` pairs for Table 6.
    """
    return PaperGateResult(check_reference(collect(list(folders)), tolerance_pp, families), tolerance_pp)


def render_paper_text(result: PaperGateResult) -> str:
    """One line per check and a closing line with the outcome.

    Args:
        result: the result.
    """
    lines = []
    for c in result.checks:
        run = "—" if c.value is None else f"{percent(c.value)} [{percent(c.low)}, {percent(c.high)}]"
        lines.append(f"{c.verdict.upper():<15} {c.cell.source} {c.run_model} {c.task} {c.cell.metric} "
                     f"T={c.cell.temperature:g}: paper {c.cell.value:g}%, run {run} ({c.reason})"
                     if c.cell.temperature is not None else f"{c.verdict.upper():<15} {c.cell.id}: {c.reason}")
    counts = {v: sum(c.verdict == v for c in result.checks) for v in (INSIDE, OUTSIDE, NOT_COMPARABLE)}
    outcome = {0: "reproduces the paper", 1: "does NOT reproduce the paper",
               2: "nothing comparable with the paper"}[result.exit_code]
    lines.append(f"paper: {counts[INSIDE]} inside, {counts[OUTSIDE]} outside, {counts[NOT_COMPARABLE]} not comparable "
                 f"(tolerance {result.tolerance_pp:g} pp): {outcome}")
    return "\n".join(lines) + "\n"
